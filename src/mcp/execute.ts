import { parseActionInput } from '../executor/action-input.js';
import { normalizeToolName, splitToolName } from '../executor/tool-name.js';
import type { Session } from '../runtime/session.js';
import { invokeTool } from '../tools/invoke-tool.js';
import type { Approval } from '../tools/policy/approval.js';
import type { ToolPolicy } from '../tools/policy/tool-policy.js';
import { shownOriginalName, type Tool } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';
import { describeSent } from '../core/describe-sent.js';
import { messageOf } from '../core/errors.js';

/** A tool call as a text-protocol agent writes it. */
export interface ExecuteRequest {
  /** `server.tool`, `server__tool` or the bridged name (`server_tool`). */
  readonly name: string;
  /** An object, or text parsed with `parseActionInput`. @default {} */
  readonly arguments?: string | Readonly<Record<string, unknown>>;
}

/** Options of {@link executeByName}. */
export interface ExecuteOptions {
  readonly signal?: AbortSignal;
  /** When the call must be over (see `invokeTool`). */
  readonly deadline?: Date;
  /** Checked before the call (see `invokeTool`). @default none */
  readonly policies?: readonly ToolPolicy[];
  /** Decides the calls a policy asks about; without it an `ask` denies. @default none */
  readonly approval?: Approval;
}

/**
 * Finds the tool a text-protocol agent named and invokes it. Routing
 * problems come back as error results that list what is available.
 */
export async function executeByName(
  tools: readonly Tool[],
  servers: readonly { readonly name: string; readonly prefix: string }[],
  request: ExecuteRequest,
  session: Session,
  options: ExecuteOptions = {},
): Promise<ToolResult> {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError(
      `execute(request): request must be { name: string, arguments?: object | string }, received ${describeSent(request)}`,
    );
  }
  // A model's call without a name is the model's mistake: an error result it can read.
  if (typeof request.name !== 'string') {
    return invokeFailure(
      `the call names no tool: "name" must be a tool's name (a string), received ${describeSent(request.name)}`,
    );
  }
  const found = findTool(tools, servers, request.name.trim());
  if (typeof found === 'string') return invokeFailure(found);
  const args =
    typeof request.arguments === 'string'
      ? parseActionInput(request.arguments)
      : (request.arguments ?? {});
  return invokeTool(found, args, {
    session,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.deadline ? { deadline: options.deadline } : {}),
    ...(options.policies ? { policies: options.policies } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
  });
}

function findTool(
  tools: readonly Tool[],
  servers: readonly { readonly name: string; readonly prefix: string }[],
  name: string,
): Tool | string {
  const exact = tools.find((tool) => tool.name === name);
  // Only a name with a separator can name a server's tool.
  const known =
    name.includes('.') || name.includes('__') ? knownServerPrefix(servers, name) : undefined;
  if (exact !== undefined) {
    // One server's bridged name may spell another's `server__tool`: two
    // different tools under one name is not a choice to make for the caller.
    const named = known === undefined ? undefined : byServer(tools, servers, name, known);
    if (named === undefined || typeof named === 'string' || named === exact) return exact;
    return `ambiguous tool ${JSON.stringify(name)}: it is the bridged name of ${describe(exact)} and names ${describe(named)}; use the bridged name ${JSON.stringify(named.name)} or server.tool`;
  }
  return byServer(tools, servers, name, known);
}

/** The tool `name` gives as `server.tool` or `server__tool`, or why none. */
function byServer(
  tools: readonly Tool[],
  servers: readonly { readonly name: string; readonly prefix: string }[],
  name: string,
  // A known server whose own name contains `__` (or `.`-free prefixes) wins over the generic split.
  known: { server: string; rest: string } | undefined,
): Tool | string {
  const normalized =
    known === undefined ? normalizeToolName(name) : `${known.server}.${known.rest}`;
  if (!normalized.includes('.')) {
    return `unknown tool ${describeSent(name)}; available tools: ${listNames(tools.map((tool) => tool.name))}`;
  }
  let parts: { server: string; tool: string };
  try {
    parts = splitToolName(normalized);
  } catch (error) {
    return messageOf(error);
  }
  const server = servers.find(
    (entry) => entry.name === parts.server || entry.prefix === parts.server,
  );
  if (server === undefined) {
    return `unknown server ${describeSent(parts.server)} in ${describeSent(name)}; available servers: ${listNames(servers.map((s) => s.name))}`;
  }
  const ofServer = tools.filter(
    (tool) => tool.origin.kind === 'mcp' && tool.origin.server === server.name,
  );
  const tool = ofServer.find(
    ({ origin }) => origin.kind === 'mcp' && origin.originalName === parts.tool,
  );
  if (tool !== undefined) return tool;
  const names = ofServer.map(({ origin, name }) =>
    origin.kind === 'mcp' ? `${server.name}.${shownOriginalName(origin)}` : name,
  );
  return `server "${server.name}" has no tool ${describeSent(parts.tool)}; available tools: ${listNames(names)}`;
}

/** `server.tool` for an MCP tool, its name otherwise. */
function describe(tool: Tool): string {
  return tool.origin.kind === 'mcp'
    ? JSON.stringify(`${tool.origin.server}.${shownOriginalName(tool.origin)}`)
    : JSON.stringify(tool.name);
}

function knownServerPrefix(
  servers: readonly { readonly name: string; readonly prefix: string }[],
  name: string,
): { server: string; rest: string } | undefined {
  const candidates = servers
    .flatMap((entry) => [entry.name, entry.prefix])
    .sort((a, b) => b.length - a.length);
  for (const server of candidates) {
    for (const separator of ['.', '__']) {
      if (name.startsWith(server + separator)) {
        return { server, rest: name.slice(server.length + separator.length) };
      }
    }
  }
  return undefined;
}

/** Most names an error lists: a section may bridge thousands of tools. */
const MAX_LISTED_NAMES = 100;

/**
 * `names` for an error that offers them: at most {@link MAX_LISTED_NAMES},
 * then how many more; `(none)` for none.
 */
export function listNames(names: readonly string[]): string {
  if (names.length === 0) return '(none)';
  const shown = names.slice(0, MAX_LISTED_NAMES).join(', ');
  const more = names.length - MAX_LISTED_NAMES;
  return more > 0 ? `${shown}, and ${more} more` : shown;
}

function invokeFailure(message: string): Promise<ToolResult> {
  return Promise.resolve(ToolResult.error(message));
}
