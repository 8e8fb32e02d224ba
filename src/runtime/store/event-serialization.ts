/**
 * Events as they cross a process boundary: the class name and the event's
 * fields as JSON. What a session mirrors to its store's stream goes through
 * an {@link EventMask}; without one only who, when and whether a call
 * succeeded leave the process ({@link serializeEventIdentity}), because this
 * layer knows neither the servers' secrets nor which arguments are secret.
 * The trace layer's `traceEventMask` masks as a trace file does.
 */
import { toJsonCopy } from '../../core/json-copy.js';
import { SensitivityEscalated, ToolInvoked } from '../events.js';

/** An event flattened for a store's event stream. */
export interface SerializedSessionEvent {
  /** The event's class name, e.g. `SensitivityEscalated`. */
  readonly type: string;
  /** The event's fields as a JSON object text; dates become ISO strings. */
  readonly data: string;
}

/** An event read back from another process's stream. */
export interface RemoteSessionEvent {
  /** Position in the stream (a Redis stream id); later events have later ids. */
  readonly id: string;
  readonly sessionId: string;
  /** The class name of the event in the process that published it. */
  readonly type: string;
  /** The event's fields, parsed from JSON (dates are ISO strings). */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** What a session tells its {@link EventMask} about itself when an event is mirrored. */
export interface EventMaskContext {
  /** Whether the session holds private data (sensitivity above `public`) at this event. */
  readonly hasPrivateData: boolean;
}

/**
 * Turns one event of a session into the entry its store's stream keeps:
 * the place to mask secrets and leave out private data, since the stream
 * is read by other processes and outlives the session.
 */
export type EventMask = (event: object, context: EventMaskContext) => SerializedSessionEvent;

/** The fields of any event that say who and when, and carry none of the session's data. */
export const EVENT_IDENTITY_FIELDS: readonly string[] = Object.freeze([
  'sessionId',
  'createdAt',
  'callId',
  'serverName',
  'toolName',
]);

/** What `withheld` says in an entry mirrored without an {@link EventMask}. */
export const WITHHELD_WITHOUT_MASK = 'no-mask';

/** Fields of a `ToolInvoked` that are the library's own words: names, a duration. */
const CALL_FIELDS = ['source', 'mcpServer', 'originalName', 'durationMs'];

/**
 * Flattens `event` into its class name and all its JSON fields, as they are:
 * for data that stays where the event's contents may go. A session's mirror
 * uses an {@link EventMask} instead.
 */
export function serializeEvent(event: object): SerializedSessionEvent {
  return Object.freeze({ type: event.constructor.name, data: JSON.stringify(toJsonCopy(event)) });
}

/**
 * The mirror's default mask: an event's class name and who and when
 * ({@link EVENT_IDENTITY_FIELDS}); of a `ToolInvoked` also its tool's origin,
 * its duration and whether it succeeded; a `SensitivityEscalated` whole
 * (levels and a dataset name), so followers know the session's level.
 * Arguments, results, messages and texts are left out, with `withheld` set
 * to {@link WITHHELD_WITHOUT_MASK}.
 */
export function serializeEventIdentity(event: object): SerializedSessionEvent {
  const type = event.constructor.name;
  const fields = toJsonCopy(event) as Record<string, unknown>;
  if (event instanceof SensitivityEscalated) {
    return Object.freeze({ type, data: JSON.stringify(fields) });
  }
  const kept: Record<string, unknown> = {};
  const names =
    event instanceof ToolInvoked
      ? [...EVENT_IDENTITY_FIELDS, ...CALL_FIELDS]
      : EVENT_IDENTITY_FIELDS;
  for (const name of names) if (Object.hasOwn(fields, name)) kept[name] = fields[name];
  if (event instanceof ToolInvoked) kept['result'] = { success: event.result.success === true };
  kept['withheld'] = WITHHELD_WITHOUT_MASK;
  return Object.freeze({ type, data: JSON.stringify(kept) });
}
