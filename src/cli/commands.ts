/**
 * The commands of the `mcp-sections` CLI: `inspect`, `call` and `codegen`.
 * Each connects for the command only and disconnects on every path.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-file.js';
import { messageOf } from '../core/errors.js';
import { cutText } from '../core/well-formed.js';
import { generateToolBindings } from '../ecosystem/codegen.js';
import { Prompt } from '../prompt/prompt.js';
import { PromptTemplate } from '../prompt/prompt-template.js';
import type { Tool } from '../tools/tool.js';
import { withSection, describeTransport, type OpenedSection } from './connect.js';
import { describeArguments } from './describe-arguments.js';
import { CliError, EXIT_CODES, oneLine, type ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';
import { checkOutputPath } from './output-path.js';
import type { Progress } from './spinner.js';
import { terminalJson, terminalLine } from './terminal-text.js';

/** What every command gets. */
export interface CommandContext {
  readonly io: CliIo;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  readonly json: boolean;
  /** `-q`: no progress on stderr (and no progress asked of servers). @default false */
  readonly quiet?: boolean;
}

export { callCommand, type CallReport } from './call-command.js';

/** `inspect <config>`: connect, render the section, list every tool with its arguments. */
export function inspectCommand(configPath: string, context: CommandContext): Promise<ExitCode> {
  const { io } = context;
  return withSection(
    configPath,
    { ...context, onConnectError: 'report' },
    (opened): Promise<ExitCode> => {
      const report = inspectReport(opened);
      if (context.json) {
        io.stdout.write(`${terminalJson(report)}\n`);
      } else {
        io.stdout.write(inspectText(report));
      }
      for (const server of opened.section.unavailableServers) {
        io.stderr.write(
          `${terminalLine(`error: server "${server.name}" is unavailable: ${oneLine(server.reason)}`)}\n`,
        );
      }
      return Promise.resolve(
        opened.section.unavailableServers.length > 0 ? EXIT_CODES.connection : EXIT_CODES.ok,
      );
    },
  );
}

/** The `inspect --json` document, the servers' secrets masked in every text and key. */
export interface InspectReport {
  readonly servers: readonly {
    readonly name: string;
    readonly transport: string;
    readonly status: 'connected' | 'unavailable';
    readonly reason?: string;
    readonly toolCount: number;
  }[];
  /** The rendered section, as the model reads it. */
  readonly prompt: string;
  readonly tools: readonly {
    readonly name: string;
    readonly server?: string;
    readonly originalName?: string;
    readonly description: string;
    readonly arguments: ReturnType<typeof describeArguments>;
    readonly inputSchema: unknown;
    readonly annotations: Tool['annotations'];
  }[];
}

/**
 * What `inspect` shows, the servers' secrets masked in every text and key
 * of it: a server may put one in a tool's name, in its schema's
 * descriptions, titles, defaults, examples or property names, and the
 * rendered prompt quotes the names. Masked for showing only: the section
 * keeps the schema as listed.
 */
function inspectReport(opened: OpenedSection): InspectReport {
  return opened.redactor.redactData(unmaskedReport(opened));
}

function unmaskedReport({ section, session, servers }: OpenedSection): InspectReport {
  const template = PromptTemplate.create({
    ns: 'mcp-sections',
    key: 'inspect',
    sections: [section],
  });
  const rendered = new Prompt(template).render({ session });
  const unavailable = new Map(
    section.unavailableServers.map((server) => [server.name, server.reason]),
  );
  const tools = rendered.tools;
  return {
    servers: servers.map((server) => {
      const reason = unavailable.get(server.name);
      return {
        name: server.name,
        transport: describeTransport(server),
        status: reason === undefined ? 'connected' : 'unavailable',
        ...(reason === undefined ? {} : { reason }),
        toolCount: tools.filter(
          (tool) => tool.origin.kind === 'mcp' && tool.origin.server === server.name,
        ).length,
      };
    }),
    prompt: rendered.text,
    tools: tools.map((tool) => ({
      name: tool.name,
      ...(tool.origin.kind === 'mcp'
        ? { server: tool.origin.server, originalName: tool.origin.originalName }
        : {}),
      description: tool.description,
      arguments: describeArguments(tool.inputSchema),
      inputSchema: tool.inputSchema,
      annotations: tool.annotations,
    })),
  };
}

/**
 * The longest a tool's description, or an argument's name, type, default or
 * description, is shown by `inspect` (in characters, `…` included): a
 * server's text can be megabytes long. `--json` keeps the whole text.
 */
export const INSPECT_TEXT_LENGTH = 1_000;

function capped(text: string): string {
  return cutText(text, INSPECT_TEXT_LENGTH);
}

/** The `inspect` text for people: server and config text made safe for a terminal. */
function inspectText(report: InspectReport): string {
  const lines: string[] = ['Servers'];
  const width = Math.max(...report.servers.map((server) => server.name.length));
  for (const server of report.servers) {
    const status =
      server.status === 'connected'
        ? `connected, ${server.toolCount} tool${server.toolCount === 1 ? '' : 's'}`
        : `unavailable: ${oneLine(server.reason ?? '')}`;
    lines.push(`  ${server.name.padEnd(width)}  ${server.transport}  ${status}`);
  }
  lines.push(
    '',
    'Prompt section',
    ...report.prompt.split('\n').map((line) => (line === '' ? '' : `  ${line}`)),
  );
  lines.push('', `Tools (${report.tools.length})`);
  for (const tool of report.tools) {
    const wire = tool.server === undefined ? '' : `  (${tool.server}.${tool.originalName ?? ''})`;
    lines.push(`  ${tool.name}${wire}`, `    ${capped(tool.description)}`);
    if (tool.arguments.length === 0) lines.push('    (no arguments)');
    for (const argument of tool.arguments) {
      const facts = [capped(argument.type), argument.required ? 'required' : 'optional'];
      if (argument.default !== undefined) facts.push(`default ${capped(argument.default)}`);
      const description =
        argument.description === undefined ? '' : ` - ${capped(argument.description)}`;
      lines.push(`    - ${capped(argument.name)}: ${facts.join(', ')}${description}`);
    }
  }
  // Each line is made safe whole: a line break inside a name or a
  // description shows as `\n` rather than starting a line of its own.
  return `${lines.map(terminalLine).join('\n')}\n`;
}

/** Permission bits of the file `codegen -o` writes: source code, readable by all. */
const GENERATED_FILE_MODE = 0o644;

/** `codegen <config> [-o file]`: typed zod bindings for every tool. */
export async function codegenCommand(
  configPath: string,
  output: string | undefined,
  context: CommandContext,
): Promise<ExitCode> {
  const { io } = context;
  const file = output === undefined || output === '-' ? undefined : path.resolve(output);
  // Before connecting: a refused path fails without starting a server.
  if (file !== undefined) await checkOutputPath(file);
  return withSection(
    configPath,
    { ...context, onConnectError: 'throw' },
    async ({ section, servers }): Promise<ExitCode> => {
      const generated = generateToolBindings(section.tools(), {
        header: [
          `Source: ${path.basename(configPath)} (servers: ${servers.map((server) => server.name).join(', ')}).`,
        ],
        // The file is meant to be committed: no server's secret may reach it.
        servers,
      });
      if (file === undefined) {
        io.stdout.write(generated.source);
      } else {
        await checkOutputPath(file);
        try {
          await mkdir(path.dirname(file), { recursive: true });
          // Replaced by a rename, never written in place: a link planted since the
          // check is replaced, not written through.
          await writeFileAtomic(file, generated.source, GENERATED_FILE_MODE);
        } catch (error) {
          // A path the check passed but the system refuses (permissions, a
          // read-only file system, a change since): the -o given, not a tool's error.
          throw new CliError(EXIT_CODES.usage, `cannot write ${file}: ${messageOf(error)}`, {
            cause: error,
          });
        }
      }
      const inexact = generated.tools.filter((tool) => !tool.exact);
      for (const tool of inexact) {
        const more = tool.issues.length > 1 ? ` (and ${tool.issues.length - 1} more)` : '';
        const warning = `warning: ${tool.toolName}: typed as Record<string, unknown>: ${tool.issues[0] ?? ''}${more}`;
        io.stderr.write(`${terminalLine(warning)}\n`);
      }
      if (output !== undefined && output !== '-') {
        const count = generated.tools.length;
        const summary = `wrote ${output}: ${count} tool${count === 1 ? '' : 's'}, ${count - inexact.length} exact`;
        io.stderr.write(`${terminalLine(summary)}\n`);
      }
      return EXIT_CODES.ok;
    },
  );
}
