/**
 * Events as they cross a process boundary: the class name and the event's
 * own fields as JSON. Events carry no secrets by design (server headers and
 * environments never enter them), so the fields are copied as they are.
 */
import { toJsonCopy } from '../../core/json-copy.js';

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

/** Flattens `event` into its class name and JSON fields. */
export function serializeEvent(event: object): SerializedSessionEvent {
  return Object.freeze({ type: event.constructor.name, data: JSON.stringify(toJsonCopy(event)) });
}
