/**
 * Command-line parsing and dispatch for `mcp-sections`, separate from the
 * process (`main.ts`) so that tests can run it with their own streams.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type * as Commands from './commands.js';
import type { CommandContext } from './commands.js';
import { asCliError, CliError, EXIT_CODES, oneLine, type ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { createProgress, SILENT_PROGRESS } from './spinner.js';
import { terminalJson, terminalLine } from './terminal-text.js';
import { messageOf } from '../core/errors.js';

/** The text of `mcp-sections --help`. */
export const HELP = `Usage: mcp-sections <command> [options]

Commands:
  inspect <config>              Connect, render the MCP section and list every tool
                                with its arguments
  call <config> <tool> [args]   Validate and invoke one tool, named server.tool,
                                server__tool or by its bridged name; args are JSON
                                or ActionInput text ("message: hi"), - reads stdin
  codegen <config> [-o file]    Write typed bindings (a zod schema and a TypeScript
                                type per tool); stdout without -o
  overrides seed <module> --dir <dir>
                                Write <dir>/<ns>/<key>/<tag>.json holding the current
                                section bodies and tool descriptions of the prompt
                                template <module> exports, with their content hashes
  debug <trace | directory>     Show a session trace (TraceRecorder) in a local,
                                read-only web viewer; prints its URL
    [--port n] [--host 127.0.0.1] [--open] [-o dir]
                                -o writes a static export that works from file://
  debug --redis <url> --session <id>
                                Follow a running session through its Redis event
                                stream (a session opened with mirrorEvents)

Modules for overrides seed: compiled .js or .mjs; .ts when the CLI runs under
tsx (node --import tsx <path to main.js> overrides seed ...).

Config files:
  *.json         an "mcpServers" object, as in .mcp.json or claude_desktop_config.json
  *.yaml, *.yml  an "mcp_servers" section, as in config.yaml

Options:
  --json          print one JSON document on stdout (inspect, call)
  --dir           overrides directory (overrides seed)
  --export        the module's export to seed from (default: its default export,
                  else its only template)
  --tag           overrides tag (default: latest)
  --format        json or yaml (default: json)
  --connect       connect the template's MCP sections first, to seed their tools
  --force         replace an existing overrides file
  -o, --output    file to write (codegen); directory of the static export (debug)
  --port, --host  where the viewer listens (debug; loopback only, port 0 = any)
  --open          open the viewer in the default browser (debug)
  --redis, --session  the Redis server and session to follow (debug)
  -q, --quiet     no progress on stderr
  -h, --help      show this help
  -V, --version   print the version

Exit codes:
  0  ok
  1  the tool returned an error result
  2  usage error: bad command line, unknown tool, or arguments the tool's
     validator refuses (the tool is not run)
  3  config error
  4  connection error
  130 interrupted
`;

const OPTIONS = {
  json: { type: 'boolean' },
  output: { type: 'string', short: 'o' },
  dir: { type: 'string' },
  export: { type: 'string' },
  tag: { type: 'string' },
  format: { type: 'string' },
  connect: { type: 'boolean' },
  force: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  port: { type: 'string' },
  host: { type: 'string' },
  open: { type: 'boolean' },
  redis: { type: 'string' },
  session: { type: 'string' },
} as const;

/** Options only `overrides seed` takes. */
const SEED_OPTIONS = ['dir', 'export', 'tag', 'format', 'connect', 'force'] as const;
/** Options only `debug` takes. */
const DEBUG_OPTIONS = ['port', 'host', 'open', 'redis', 'session'] as const;

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Aborts the command (SIGINT, SIGTERM); servers are disconnected first. */
  readonly signal?: AbortSignal;
}

/**
 * Runs one `mcp-sections` command line and resolves with its exit code.
 * Errors go to stderr as one line (`error: ...`), then any detail lines; with
 * `--json`, stdout gets one document whatever happens. It never throws.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  options: RunCliOptions = {},
): Promise<ExitCode> {
  const signal = options.signal ?? new AbortController().signal;
  // `--json` promises one document on stdout whatever happens, a usage error included.
  const end = argv.indexOf('--');
  const json = (end === -1 ? argv : argv.slice(0, end)).includes('--json');
  let printed = false;
  const tracked: CliIo = {
    ...io,
    stdout: {
      write: (text: string) => {
        printed = true;
        return io.stdout.write(text);
      },
    },
  };
  try {
    const code = await dispatch(argv, tracked, signal);
    // A command cut short by an interrupt says so, whatever failed on the way out.
    return signal.aborted && code !== EXIT_CODES.ok ? EXIT_CODES.interrupted : code;
  } catch (error) {
    const mapped = asCliError(error, signal);
    const failure =
      mapped instanceof CliError ? mapped : new CliError(EXIT_CODES.toolError, messageOf(mapped));
    // Messages and details quote server and config text: made safe for a terminal.
    io.stderr.write(`error: ${terminalLine(oneLine(failure.message))}\n`);
    for (const line of failure.details) io.stderr.write(`${terminalLine(line)}\n`);
    if (json && !printed) {
      const document: CliErrorReport = {
        exitCode: failure.exitCode,
        error: {
          message: oneLine(failure.message),
          ...(failure.details.length === 0 ? {} : { details: failure.details }),
        },
      };
      io.stdout.write(`${terminalJson(document)}\n`);
    }
    return failure.exitCode;
  }
}

/** What `--json` prints on stdout when a command fails before printing its own document. */
export interface CliErrorReport {
  /** The exit status, one of `EXIT_CODES`. */
  readonly exitCode: ExitCode;
  readonly error: {
    /** The `error: ...` line of stderr, without `error: `. */
    readonly message: string;
    /** The lines printed below it: candidates, "did you mean", the offending JSON line. */
    readonly details?: readonly string[];
  };
}

async function dispatch(
  argv: readonly string[],
  io: CliIo,
  signal: AbortSignal,
): Promise<ExitCode> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage(messageOf(error));
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout.write(HELP);
    return EXIT_CODES.ok;
  }
  if (values.version === true) {
    io.stdout.write(`${version()}\n`);
    return EXIT_CODES.ok;
  }
  const [command, ...operands] = positionals;
  if (command === undefined) throw usage('missing command');
  const context: CommandContext = {
    io,
    signal,
    json: values.json === true,
    quiet: values.quiet === true,
    progress: values.quiet === true ? SILENT_PROGRESS : createProgress(io.stderr),
  };
  const [config, tool, ...rest] = operands;
  // Options of one command only: the others refuse them.
  const own: Readonly<Record<string, readonly string[]>> = {
    overrides: SEED_OPTIONS,
    debug: DEBUG_OPTIONS,
  };
  for (const [owner, options] of Object.entries(own)) {
    if (command === owner) continue;
    for (const option of options) {
      refuse(command, values[option as keyof typeof values] !== undefined, `--${option}`);
    }
  }
  // Loaded only for a command: `--help` and usage errors stay quick.
  const load = (): Promise<typeof Commands> => import('./commands.js');
  switch (command) {
    case 'inspect':
      refuse(command, values.output !== undefined, '-o/--output');
      if (config === undefined || operands.length > 1) throw usage('inspect takes one config file');
      return (await load()).inspectCommand(config, context);
    case 'call':
      refuse(command, values.output !== undefined, '-o/--output');
      if (config === undefined || tool === undefined)
        throw usage('call takes a config file and a tool name');
      // Several words after the tool name are one ActionInput text: `call cfg t message: hi`.
      return (await load()).callCommand(
        config,
        tool,
        rest.length === 0 ? undefined : rest.join(' '),
        context,
      );
    case 'codegen':
      refuse(command, values.json === true, '--json');
      if (config === undefined || operands.length > 1) throw usage('codegen takes one config file');
      return (await load()).codegenCommand(config, values.output, context);
    case 'overrides': {
      refuse(command, values.output !== undefined, '-o/--output');
      const [action, module] = operands;
      if (action !== 'seed') {
        throw usage(`unknown overrides command ${JSON.stringify(action ?? '')}; expected seed`);
      }
      if (module === undefined || operands.length > 2) {
        throw usage('overrides seed takes one module');
      }
      if (values.dir === undefined) throw usage('overrides seed needs --dir <directory>');
      const { seedCommand } = await import('./overrides-command.js');
      return seedCommand(
        {
          module,
          dir: values.dir,
          ...(values.export === undefined ? {} : { exportName: values.export }),
          ...(values.tag === undefined ? {} : { tag: values.tag }),
          ...(values.format === undefined ? {} : { format: values.format as 'json' | 'yaml' }),
          connect: values.connect === true,
          force: values.force === true,
        },
        context,
      );
    }
    case 'debug': {
      refuse(command, values.json === true, '--json');
      if (operands.length > 1) throw usage('debug takes one trace file or directory');
      const { debugCommand } = await import('./debug-command.js');
      return debugCommand(
        {
          ...(config === undefined ? {} : { target: config }),
          ...(values.host === undefined ? {} : { host: values.host }),
          ...(values.port === undefined ? {} : { port: values.port }),
          ...(values.output === undefined ? {} : { output: values.output }),
          ...(values.redis === undefined ? {} : { redis: values.redis }),
          ...(values.session === undefined ? {} : { session: values.session }),
          open: values.open === true,
        },
        context,
      );
    }
    default:
      throw usage(
        `unknown command ${JSON.stringify(command)}; expected inspect, call, codegen, overrides or debug`,
      );
  }
}

function refuse(command: string, given: boolean, option: string): void {
  if (given) throw usage(`${option} does not apply to ${command}`);
}

function usage(message: string): CliError {
  return new CliError(EXIT_CODES.usage, `${message} (run mcp-sections --help)`);
}

/** The package version, from the package.json above this file (in `src/` or `dist/src/`). */
function version(): string {
  let url = new URL('.', import.meta.url);
  for (let depth = 0; depth < 5; depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'mcp-sections' && typeof manifest.version === 'string')
        return manifest.version;
    } catch {
      // Not here; look one directory up.
    }
    url = new URL('..', url);
  }
  return 'unknown';
}
