/** A value that survives `JSON.stringify` / `JSON.parse` unchanged. */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * Checks that `value` is plain JSON data: null, booleans, finite numbers,
 * strings, arrays and plain objects, without cycles. A `Date`, `Map`,
 * `undefined` member or class instance would come back changed from a
 * store, so it is refused here rather than silently altered there.
 *
 * @throws TypeError naming the path of the first offending member.
 */
export function assertJsonValue(value: unknown, label: string): asserts value is JsonValue {
  check(value, label, new Set());
}

function check(value: unknown, path: string, ancestors: Set<object>): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Object.is(value, -0)) throw new TypeError(`${path} is -0, which JSON stores as 0`);
    if (Number.isFinite(value)) return;
    throw new TypeError(`${path} is ${String(value)}; a persistent value must be JSON data`);
  }
  if (typeof value !== 'object') {
    const kind = value === undefined ? 'undefined' : `a ${typeof value}`;
    throw new TypeError(`${path} is ${kind}; a persistent value must be JSON data`);
  }
  if (ancestors.has(value)) {
    throw new TypeError(`${path} refers to itself; a persistent value must be JSON data`);
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value))
        throw new TypeError(`${path}[${index}] is a hole, which JSON stores as null`);
      check(value[index] as unknown, `${path}[${index}]`, ancestors);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value as { constructor?: { name?: unknown } }).constructor?.name;
      throw new TypeError(
        `${path} is a ${typeof kind === 'string' ? kind : 'non-plain object'}; a persistent value must be JSON data (plain objects and arrays)`,
      );
    }
    for (const [key, member] of Object.entries(value)) check(member, `${path}.${key}`, ancestors);
  }
  ancestors.delete(value);
}
