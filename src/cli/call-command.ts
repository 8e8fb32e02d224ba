/**
 * `mcp-sections call`: parse the arguments before anything is connected,
 * connect only the server the tool name names, show the server's progress,
 * and explain a name that leads nowhere with the candidates, one per line.
 */
import type { ResolvedServerConfig } from '../config/server-config.js';
import { normalizeToolName } from '../executor/tool-name.js';
import { McpToolProgress } from '../mcp/events.js';
import type { McpIntegrationSection } from '../mcp/section.js';
import { ToolInvoked } from '../runtime/events.js';
import { shownOriginalName } from '../tools/tool.js';
import type { ToolResult } from '../tools/tool-result.js';
import { createCallProgress } from './call-progress.js';
import type { CommandContext } from './commands.js';
import { withSection } from './connect.js';
import { CliError, EXIT_CODES, oneLine, type ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { parseCallArguments } from './json-args.js';
import { candidateLines } from './suggest.js';
import { terminalJson, terminalLine, terminalLines } from './terminal-text.js';

/** The `call --json` document. */
export interface CallReport {
  /** The bridged name of the tool that ran. */
  readonly tool: string;
  readonly success: boolean;
  readonly message: string;
  readonly value: unknown;
  /** The exit status of the command, one of `EXIT_CODES`. */
  readonly exitCode: ExitCode;
}

/**
 * `call <config> <tool> [args]`: validate and invoke one tool by
 * `server.tool`, `server__tool` or its bridged name, with arguments as JSON
 * (text starting with `{` or `[`) or ActionInput text (`-` reads stdin).
 * Only the named server is connected; a bare tool name that names no
 * server connects them all.
 *
 * @throws CliError exit 2 for bad JSON, an unknown server or tool; exit 4
 * when the named server is configured but could not be connected.
 */
export async function callCommand(
  configPath: string,
  toolName: string,
  argsText: string | undefined,
  context: CommandContext,
): Promise<ExitCode> {
  const { io } = context;
  const text = argsText === '-' ? await readStdin(io) : argsText;
  const args = text === undefined ? {} : parseCallArguments(text);
  let target: ServerMatch | undefined;
  const select = (servers: readonly ResolvedServerConfig[]): ResolvedServerConfig[] => {
    target = matchServer(servers, toolName);
    return target === undefined ? [...servers] : [target.server];
  };
  return withSection(
    configPath,
    { ...context, onConnectError: 'report', select },
    async ({ section, session }): Promise<ExitCode> => {
      const down = target && section.unavailableServers.find((s) => s.name === target?.server.name);
      if (down !== undefined) {
        throw new CliError(
          EXIT_CODES.connection,
          `server "${down.name}" is configured but unavailable: ${oneLine(down.reason)}`,
        );
      }
      let invoked: ToolInvoked | undefined;
      const unsubscribe = session.bus.subscribe(ToolInvoked, (event) => {
        invoked ??= event;
      });
      // Subscribing is what asks the server for progress: only when it is shown.
      const shown = context.quiet === true ? undefined : createCallProgress(io.stderr, toolName);
      const stopProgress =
        shown === undefined
          ? (): void => undefined
          : session.bus.subscribe(McpToolProgress, (event) => shown.report(event));
      let result: ToolResult;
      try {
        result = await section.execute(
          { name: toolName, arguments: args },
          { signal: context.signal },
        );
      } finally {
        stopProgress();
        shown?.stop();
        unsubscribe();
      }
      if (invoked === undefined) throw unknownTool(section, toolName, target, result);
      const name = invoked.toolName;
      // What the terminal shows is what an event shows: a server's own secrets
      // masked in its result (the caller's result keeps the server's data as sent).
      const shownResult = invoked.result;
      let code: ExitCode = EXIT_CODES.ok;
      if (!result.success) {
        // Refused by the validator means the command line was wrong; the tool never ran.
        const tool = section.tools().find((candidate) => candidate.name === name);
        const valid = tool === undefined || (await tool.params.safeParseAsync(args)).success;
        code = valid ? EXIT_CODES.toolError : EXIT_CODES.usage;
      }
      if (context.json) {
        const report: CallReport = {
          tool: name,
          success: shownResult.success,
          message: shownResult.message,
          value: shownResult.value,
          exitCode: code,
        };
        io.stdout.write(`${terminalJson(report)}\n`);
      } else if (shownResult.success) {
        // A result may span lines: its line breaks and tabs stay, other controls show as escapes.
        const text = terminalLines(shownResult.message);
        io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      }
      if (!result.success) {
        io.stderr.write(`error: ${terminalLine(oneLine(shownResult.message))}\n`);
      }
      return code;
    },
  );
}

/** A configured server named by a tool name, and the rest of the name. */
interface ServerMatch {
  readonly server: ResolvedServerConfig;
  readonly tool: string;
}

/**
 * The server `name` starts with (`server.tool`, `server__tool`, or the
 * bridged `prefix_tool`), the longest name or prefix winning.
 *
 * @throws CliError exit 2 when `name` has the `server.tool` or
 * `server__tool` form and no configured server has that name.
 */
function matchServer(
  servers: readonly ResolvedServerConfig[],
  name: string,
): ServerMatch | undefined {
  let best: (ServerMatch & { length: number }) | undefined;
  for (const server of servers) {
    for (const key of new Set([server.name, server.toolPrefix ?? server.name])) {
      for (const separator of ['.', '__', '_']) {
        if (name.startsWith(key + separator) && (best === undefined || key.length > best.length)) {
          best = { server, tool: name.slice(key.length + separator.length), length: key.length };
        }
      }
    }
  }
  if (best !== undefined) return { server: best.server, tool: best.tool };
  const normalized = normalizeToolName(name);
  const dot = normalized.indexOf('.');
  if (dot <= 0) return undefined;
  const typed = normalized.slice(0, dot);
  throw new CliError(
    EXIT_CODES.usage,
    `unknown server ${JSON.stringify(typed)} in ${JSON.stringify(name)}`,
    {
      details: candidateLines(
        typed,
        servers.map((server) => server.name),
        'configured servers',
      ),
    },
  );
}

function unknownTool(
  section: McpIntegrationSection,
  name: string,
  target: ServerMatch | undefined,
  result: ToolResult,
): CliError {
  const tools = section.tools();
  if (target !== undefined) {
    const server = target.server.name;
    const origins = tools.flatMap(({ origin }) =>
      origin.kind === 'mcp' && origin.server === server ? [origin] : [],
    );
    if (!origins.some((origin) => origin.originalName === target.tool)) {
      // As events show them: a name that holds its server's secret, masked.
      const names = origins.map((origin) => `${server}.${shownOriginalName(origin)}`);
      return new CliError(
        EXIT_CODES.usage,
        `server "${server}" has no tool ${JSON.stringify(target.tool)}`,
        { details: candidateLines(`${server}.${target.tool}`, names, `tools of ${server}`) },
      );
    }
    return new CliError(EXIT_CODES.usage, oneLine(result.message));
  }
  const unavailable = section.unavailableServers;
  const details = candidateLines(
    name,
    tools.map((tool) => tool.name),
    'available tools',
  );
  if (unavailable.length > 0) {
    details.push('configured but unavailable:');
    for (const server of unavailable) details.push(`  ${server.name}: ${oneLine(server.reason)}`);
  }
  return new CliError(
    unavailable.length > 0 ? EXIT_CODES.connection : EXIT_CODES.usage,
    `unknown tool ${JSON.stringify(name)}`,
    { details },
  );
}

async function readStdin(io: CliIo): Promise<string> {
  if (io.stdin === undefined)
    throw new CliError(EXIT_CODES.usage, 'no stdin to read arguments from');
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of io.stdin) {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
