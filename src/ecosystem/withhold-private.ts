/**
 * What a trace, and a span (`telemetry.ts`), leave out of an event once the
 * session holds private data: both leave the process.
 * The library's events are sorted one by one: those that carry nothing of
 * the session's data and no server's text (ids, names, levels, counts) are
 * kept whole; those that can carry either lose those fields: a server that
 * holds the data may write it into any text it sends (an error, a log's
 * logger, a marker, a dataset name, its stderr). Any other event (an
 * application's own class, or one added later without a place here) keeps
 * only who and when (`EVENT_IDENTITY_FIELDS`, what a session's mirror
 * keeps of any event without a mask): a trace fails closed rather than open.
 */
import {
  McpIsolationFailed,
  McpNetworkDenied,
  McpSectionIsolated,
  McpServerConnected,
  McpServerDisconnected,
  McpServerLog,
  McpServerUnavailable,
  McpToolProgress,
  McpToolsChanged,
  McpToolTimedOut,
  PrivateDataMarkerMalformed,
} from '../mcp/events.js';
import { McpServerHealthChanged } from '../mcp/health-monitor.js';
import {
  PromptOverrideApplied,
  PromptOverrideRefused,
  PromptOverrideSkipped,
} from '../prompt/overrides/events.js';
import {
  PromptExecuted,
  PromptRendered,
  RollbackConflict,
  SensitivityEscalated,
  ToolInvoked,
} from '../runtime/events.js';
import type { McpServerConfig } from '../config/server-config.js';
import { EVENT_IDENTITY_FIELDS } from '../runtime/store/event-serialization.js';

/** What replaces a result left out because the session held private data. */
export const WITHHELD_PRIVATE = 'private-data';

/** What a trace shows for a prompt rendered while the session held private data. */
const WITHHELD_PROMPT_TEXT =
  '[left out: the session held private data when this prompt was rendered; record with includePrivateResults: true to keep it]';

/**
 * What a trace shows for a server's text (an error, a reason, a dataset
 * name) written while the session held private data: the server that holds
 * the data writes it, so any of its words may carry the data.
 */
export const WITHHELD_SERVER_TEXT =
  "[left out: the server's text, written while the session held private data; a trace keeps it with includePrivateResults: true, a span with includePrivateText: true]";

/**
 * What a trace shows for the reasons a bridged tool refused its arguments
 * while the session held private data: they quote the server's schema (an
 * `enum`, a `pattern`, a `$ref`), which a server that holds the data may
 * have listed again with the data in it.
 */
export const WITHHELD_SCHEMA_REASONS =
  "[left out: the reasons quote the server's schema, listed by a server that may hold the session's private data; record with includePrivateResults: true to keep them]";

/**
 * A tool name as MCP defines one (1 to 128 of `A–Z a–z 0–9 _ - .`): an
 * identifier, kept while private. Any other original name is free text the
 * server chose, of any length, and is left out.
 */
const TOOL_IDENTIFIER = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A tool's original name as a trace may keep it while the session holds
 * private data: the name when it is an identifier, else the note.
 */
export function privateOriginalName(name: string): string {
  return TOOL_IDENTIFIER.test(name) ? name : WITHHELD_SERVER_TEXT;
}

/** Events with nothing of the session's data or a server's text in them: kept whole. */
const KEPT_WHOLE: ReadonlySet<string> = new Set(
  [
    RollbackConflict,
    PromptOverrideApplied,
    PromptOverrideRefused,
    PromptOverrideSkipped,
    McpServerConnected,
    // Bridged tool names only (made of the server's names, cleaned and cut): names stay.
    McpToolsChanged,
    McpToolTimedOut,
    McpSectionIsolated,
  ].map((eventClass) => eventClass.name),
);

/**
 * Events whose other fields are kept, and the fields that can carry the
 * session's data or a server's words: each left out, or replaced by a note
 * when it has one.
 */
const PRIVATE_FIELDS: ReadonlyMap<string, Readonly<Record<string, string | undefined>>> = new Map([
  // Its sections may show session state.
  [PromptRendered.name, { text: WITHHELD_PROMPT_TEXT }],
  // The model's answer, and what was parsed from it.
  [PromptExecuted.name, { text: undefined, output: undefined }],
  // The server's own words, written while it held the data.
  [McpToolProgress.name, { message: undefined }],
  [McpServerLog.name, { message: undefined, logger: undefined }],
  // A dataset name is the server's marker text (or the application's): either may
  // name the data. Those the configuration gives are kept (`WithholdContext`).
  [SensitivityEscalated.name, { dataset: WITHHELD_SERVER_TEXT }],
  // The reason quotes the marker the server sent.
  [PrivateDataMarkerMalformed.name, { reason: WITHHELD_SERVER_TEXT }],
  // Connection reasons carry the server's stderr, its error responses and
  // HTTP bodies, which cannot be told from the library's own words.
  [McpServerDisconnected.name, { reason: WITHHELD_SERVER_TEXT }],
  [McpServerUnavailable.name, { reason: WITHHELD_SERVER_TEXT }],
  [McpServerHealthChanged.name, { reason: WITHHELD_SERVER_TEXT }],
  [McpIsolationFailed.name, { reason: WITHHELD_SERVER_TEXT }],
  // The host is what the sandboxed server asked for (a name it chose), and the reason quotes it.
  [McpNetworkDenied.name, { host: WITHHELD_SERVER_TEXT, reason: WITHHELD_SERVER_TEXT }],
]);

/** What the application configured, which {@link withholdPrivate} may keep. */
export interface WithholdContext {
  /**
   * Dataset names the configuration gives (`<server>.<tool>` of each
   * server's `sensitiveTools`): the library's words, not a server's.
   */
  readonly datasets?: ReadonlySet<string>;
}

/**
 * @internal The dataset names `servers` give through `sensitiveTools`, as
 * a bridged tool names them when its call raises the session.
 */
export function configuredDatasets(
  servers: readonly McpServerConfig[] | undefined,
): ReadonlySet<string> {
  const datasets = new Set<string>();
  for (const server of servers ?? []) {
    for (const tool of Object.keys(server.sensitiveTools ?? {})) {
      datasets.add(`${server.name}.${tool}`);
    }
  }
  return datasets;
}

/**
 * @internal An event's fields (by its class name, as recorded, or as read
 * from another process's stream) without what may carry private data, with
 * `withheld` set when anything was left out.
 */
export function withholdPrivate(
  type: string,
  fields: Readonly<Record<string, unknown>>,
  context: WithholdContext = {},
): Readonly<Record<string, unknown>> {
  const kept = withholdFields(type, fields, context);
  // Whatever else an event keeps, a tool's original name stays only as an identifier.
  const name = kept['originalName'];
  if (typeof name !== 'string' || privateOriginalName(name) === name) return kept;
  return { ...kept, originalName: WITHHELD_SERVER_TEXT, withheld: WITHHELD_PRIVATE };
}

function withholdFields(
  type: string,
  fields: Readonly<Record<string, unknown>>,
  context: WithholdContext,
): Readonly<Record<string, unknown>> {
  if (KEPT_WHOLE.has(type)) return fields;
  if (type === ToolInvoked.name) return withholdResult(fields);
  const dataset = fields['dataset'];
  if (
    type === SensitivityEscalated.name &&
    typeof dataset === 'string' &&
    context.datasets?.has(dataset) === true
  ) {
    return fields; // a configured sensitive tool raised it: the config's names
  }
  const hidden = PRIVATE_FIELDS.get(type);
  const kept: Record<string, unknown> = {};
  let withheld = false;
  for (const [name, value] of Object.entries(fields)) {
    const keep =
      hidden === undefined ? EVENT_IDENTITY_FIELDS.includes(name) : !Object.hasOwn(hidden, name);
    const note = hidden?.[name];
    // A field already replaced by its note (a stream masked as it was written) is kept as it is.
    if (keep || (note !== undefined && value === note)) {
      kept[name] = value;
      continue;
    }
    withheld = true;
    if (note !== undefined) kept[name] = note;
  }
  return withheld ? { ...kept, withheld: WITHHELD_PRIVATE } : fields;
}

/**
 * A `ToolInvoked`'s fields with the result's value (and a success's
 * message) left out. A failure's message is the reason a debugger needs,
 * and is kept, except the server's own words: a bridged tool's failure is
 * kept only when it is one of the library's refusals, timeouts or
 * cancellations, told by its wording and the call's own names.
 */
function withholdResult(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const result = fields['result'];
  const record =
    typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
  const success = record['success'] === true;
  const text = record['message'];
  let message: { message?: string } = {};
  if (!success && typeof text === 'string') {
    const judged = record['withheld'] === WITHHELD_PRIVATE; // masked once already, as written
    message = {
      message:
        judged || !isServerCall(fields)
          ? text
          : (withoutSchemaReasons(text, fields) ??
            (isLibraryFailure(text, record, fields) ? text : WITHHELD_SERVER_TEXT)),
    };
  }
  return { ...fields, result: { success, ...message, withheld: WITHHELD_PRIVATE } };
}

/**
 * A bridged tool's refusal of its arguments, its reasons left out (they
 * quote the server's schema); undefined for any other message.
 */
function withoutSchemaReasons(
  message: string,
  fields: Readonly<Record<string, unknown>>,
): string | undefined {
  const bridged = fields['toolName'];
  if (typeof bridged !== 'string' || bridged.includes('"')) return undefined;
  const prefix = `invalid arguments for tool ${JSON.stringify(bridged)}: `;
  return message.startsWith(prefix) ? prefix + WITHHELD_SCHEMA_REASONS : undefined;
}

/** A call to an MCP server's tool: its failure may be the server's text. */
function isServerCall(fields: Readonly<Record<string, unknown>>): boolean {
  return fields['source'] === 'mcp' || typeof fields['mcpServer'] === 'string';
}

/**
 * Whether a bridged call's failure is one the library wrote without the
 * server's words: a policy's denial, or a refusal, timeout, cancellation
 * or lost connection worded by the library about this call's tool and
 * server. Such a result carries no value; a server's `isError` answer
 * carries its content, and its JSON-RPC errors, transport errors and
 * output-schema violations quote its text: all withheld. The names must
 * be the call's own, without quotes, so a server cannot name a tool to
 * make its error read like a refusal.
 */
function isLibraryFailure(
  message: string,
  result: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, unknown>>,
): boolean {
  if (fields['denial'] !== undefined && fields['denial'] !== null) return true;
  if (result['value'] !== null) return false;
  const names = [fields['toolName'], fields['originalName'], fields['mcpServer']];
  if (!names.every((name) => typeof name === 'string' && !name.includes('"'))) return false;
  const [bridged, original, server] = names as [string, string, string];
  const tool = (name: string): string => `tool ${JSON.stringify(name)}`;
  const ofServer = `${tool(original)} of server ${JSON.stringify(server)}`;
  // Prefixes the library writes before its own reasons (see `invokeTool`,
  // `callRefusal`, `callFailure` and the bridged tools' store checks).
  const prefixes = [
    `${tool(bridged)} was not started: `,
    `${tool(bridged)} is blocked: `,
    `${ofServer} was not called: `,
    `${ofServer} was cancelled: `,
  ];
  if (prefixes.some((prefix) => message.startsWith(prefix))) return true;
  // Timeouts and a closed connection: whole messages, with the retry note the call may add.
  const whole = new RegExp(
    `^(?:${escapeRegExp(ofServer)} (?:timed out after \\d+ ms(?: \\(its progress was not asked for[^()]*\\))?|reported progress but did not finish within maxTotalTimeoutMs \\(\\d+ ms\\)|reached the call's deadline [0-9TZ:.-]+ \\(timed out after \\d+ ms\\)|lost its connection: Connection closed(?: \\(the server sent a line of more than \\d+ bytes, the most a stdio connection reads\\))?)|server ${escapeRegExp(JSON.stringify(server))} was not connected again within \\d+ ms)(?:; [a-z ,.-]+)?$`,
  );
  return whole.test(message);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
