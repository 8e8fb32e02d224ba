/**
 * What a trace leaves out of an event once the session holds private data.
 * The library's events are sorted one by one: those that carry nothing of
 * the session's data (names, levels, counts, reasons the library wrote) are
 * kept whole; those that can carry it lose those fields. Any other event
 * (an application's own class, or one added later without a place here)
 * keeps only who and when (`EVENT_IDENTITY_FIELDS`, what a session's
 * mirror keeps of any event without a mask): a trace fails closed rather than open.
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
import { EVENT_IDENTITY_FIELDS } from '../runtime/store/event-serialization.js';

/** What replaces a result left out because the session held private data. */
export const WITHHELD_PRIVATE = 'private-data';

/** What a trace shows for a prompt rendered while the session held private data. */
const WITHHELD_PROMPT_TEXT =
  '[left out: the session held private data when this prompt was rendered; record with includePrivateResults: true to keep it]';

/** Events with nothing of the session's data in them: kept whole. */
const KEPT_WHOLE: ReadonlySet<string> = new Set(
  [
    SensitivityEscalated,
    RollbackConflict,
    PromptOverrideApplied,
    PromptOverrideRefused,
    PromptOverrideSkipped,
    McpServerHealthChanged,
    McpServerConnected,
    McpServerDisconnected,
    McpServerUnavailable,
    McpToolsChanged,
    McpToolTimedOut,
    McpSectionIsolated,
    McpIsolationFailed,
    PrivateDataMarkerMalformed,
    // The refused host is what a debugger needs to see of an attempt to leave.
    McpNetworkDenied,
  ].map((eventClass) => eventClass.name),
);

/**
 * Events whose other fields are kept, and the fields that can carry the
 * session's data: each left out, or replaced by a note when it has one.
 */
const PRIVATE_FIELDS: ReadonlyMap<string, Readonly<Record<string, string | undefined>>> = new Map([
  // Its sections may show session state.
  [PromptRendered.name, { text: WITHHELD_PROMPT_TEXT }],
  // The model's answer, and what was parsed from it.
  [PromptExecuted.name, { text: undefined, output: undefined }],
  // The server's own words, written while it held the data.
  [McpToolProgress.name, { message: undefined }],
  [McpServerLog.name, { message: undefined }],
]);

/**
 * @internal An event's fields (by its class name, as recorded, or as read
 * from another process's stream) without what may carry private data, with
 * `withheld` set when anything was left out.
 */
export function withholdPrivate(
  type: string,
  fields: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (KEPT_WHOLE.has(type)) return fields;
  if (type === ToolInvoked.name) return withholdResult(fields);
  const hidden = PRIVATE_FIELDS.get(type);
  const kept: Record<string, unknown> = {};
  let withheld = false;
  for (const [name, value] of Object.entries(fields)) {
    const keep =
      hidden === undefined ? EVENT_IDENTITY_FIELDS.includes(name) : !Object.hasOwn(hidden, name);
    if (keep) {
      kept[name] = value;
      continue;
    }
    withheld = true;
    const note = hidden?.[name];
    if (note !== undefined) kept[name] = note;
  }
  return withheld ? { ...kept, withheld: WITHHELD_PRIVATE } : fields;
}

/** A `ToolInvoked`'s fields with the result's value (and a success's message) left out. */
function withholdResult(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const result = fields['result'];
  const success =
    typeof result === 'object' && result !== null && (result as { success?: unknown }).success;
  // A failure's message is the reason (a refusal, an error): kept, it is what a debugger needs.
  const message =
    success === false && typeof (result as { message?: unknown }).message === 'string'
      ? { message: (result as { message: string }).message }
      : {};
  return {
    ...fields,
    result: { success: success === true, ...message, withheld: WITHHELD_PRIVATE },
  };
}
