/**
 * Events as they cross a process boundary: the class name and the event's
 * own fields as JSON. Events carry no secrets by design (server headers and
 * environments never enter them), so the fields are copied as they are.
 */

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
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) fields[key] = toJson(value, new Set());
  return Object.freeze({ type: event.constructor.name, data: JSON.stringify(fields) });
}

/** A JSON-safe copy: dates as ISO text, errors as name and message, cycles cut. */
function toJson(value: unknown, ancestors: Set<object>): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      // functions, symbols and undefined have no JSON form
      return undefined;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item: unknown) => toJson(item, ancestors) ?? null);
    if (value instanceof Set) {
      return [...(value as Set<unknown>)].map((item) => toJson(item, ancestors));
    }
    const entries: [string, unknown][] =
      value instanceof Map
        ? [...(value as Map<unknown, unknown>)].map(([key, member]) => [String(key), member])
        : Object.entries(value);
    const out: Record<string, unknown> = {};
    for (const [key, member] of entries) {
      const converted = toJson(member, ancestors);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}
