/**
 * A JSON-safe copy of any value, for records that leave the process (a
 * store's event stream, a trace file): dates as ISO text, errors as name
 * and message, maps as objects, sets as lists, non-finite numbers and
 * bigints as text; functions, symbols and `undefined` members dropped;
 * cycles and nesting past a depth cut with a marker. Own enumerable keys
 * only, and a key named `__proto__` stays data.
 */

/** What stands in for a value met again inside itself. */
export const CIRCULAR_MARKER = '[circular]';

/** What stands in for a value nested deeper than `maxDepth`. */
export const TOO_DEEP_MARKER = '[too deep]';

/** Default of `maxDepth`: far deeper than any event or result is nested. */
export const DEFAULT_JSON_COPY_DEPTH = 48;

/** A JSON-safe copy of `value`; `undefined` for a value JSON has no form for. */
export function toJsonCopy(value: unknown, maxDepth = DEFAULT_JSON_COPY_DEPTH): unknown {
  return copy(value, 0, maxDepth, new Set());
}

function copy(value: unknown, depth: number, maxDepth: number, ancestors: Set<object>): unknown {
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
      return undefined; // functions, symbols and undefined have no JSON form
  }
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (depth > maxDepth) return TOO_DEEP_MARKER;
  if (ancestors.has(value)) return CIRCULAR_MARKER;
  ancestors.add(value);
  try {
    if (Array.isArray(value) || value instanceof Set) {
      return [...(value as Iterable<unknown>)].map(
        (item) => copy(item, depth + 1, maxDepth, ancestors) ?? null,
      );
    }
    const entries: [unknown, unknown][] =
      value instanceof Map ? [...(value as Map<unknown, unknown>)] : Object.entries(value);
    const out: [string, unknown][] = [];
    for (const [key, member] of entries) {
      const converted = copy(member, depth + 1, maxDepth, ancestors);
      if (converted !== undefined) out.push([String(key), converted]);
    }
    // fromEntries defines own properties: a key named __proto__ stays data.
    return Object.fromEntries(out);
  } finally {
    ancestors.delete(value);
  }
}
