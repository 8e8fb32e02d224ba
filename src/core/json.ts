/**
 * Plain JSON data as `JSON.parse` makes it: its types, its canonical text
 * (equal for equal data whatever the key order), and JSON Pointers. Pure.
 */

/** A JSON value as `JSON.parse` produces it (mutable: an owned copy may be edited). */
export type JsonData = null | boolean | number | string | JsonData[] | JsonRecord;

/** A JSON object as `JSON.parse` produces it. */
export interface JsonRecord {
  [key: string]: JsonData;
}

/** True for a non-null, non-array object. */
export function isJsonRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * True for a plain object, as JSON and YAML make a map: its prototype is
 * `Object.prototype` or null; not an array, nor YAML's `!!omap` or `!!set`
 * (a Map or a Set, whose entries `Object.entries` does not see).
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** True for an object as `JSON.parse` or a literal makes it: its prototype is `Object.prototype`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Bounds on {@link canonicalJsonText}'s work. */
export interface CanonicalLimits {
  /** Deepest nesting written. @default Infinity */
  readonly maxDepth?: number;
  /**
   * Most characters written, counted before they are: an array of more
   * items than that is refused before its first. @default Infinity
   */
  readonly maxChars?: number;
}

/**
 * JSON text of `value` with object keys sorted at every level. `undefined`
 * members are skipped and `undefined` items written as `null`, as
 * `JSON.stringify` does.
 * @throws {TypeError} naming where `value` holds what JSON cannot carry
 * faithfully (a cycle, a function, a symbol, a bigint, a non-finite number,
 * a class instance), or where it passes one of `limits`.
 */
export function canonicalJsonText(value: unknown, limits: CanonicalLimits = {}): string {
  return jsonText(value, limits, true);
}

/**
 * JSON text of `value` with object keys in their own order, within
 * `limits`: a copy of data that may be an in-process server's own objects,
 * read once (see {@link canonicalJsonText} for what it refuses).
 * @throws {TypeError} as {@link canonicalJsonText} does.
 */
export function boundedJsonText(value: unknown, limits: CanonicalLimits): string {
  return jsonText(value, limits, false);
}

function jsonText(value: unknown, limits: CanonicalLimits, sortKeys: boolean): string {
  const { maxDepth = Infinity, maxChars = Infinity } = limits;
  const path: string[] = [];
  const open = new Set<object>();
  let written = 0;
  const problem = (what: string): TypeError => new TypeError(`${what} (at ${shownPointer(path)})`);
  /** Counts `chars` more written, before they are. */
  const charge = (chars: number): void => {
    written += chars;
    if (written > maxChars) throw problem(`the value is more than ${maxChars} characters of JSON`);
  };
  const scalar = (text: string): string => {
    charge(text.length);
    return text;
  };
  const write = (node: unknown): string => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') {
      return scalar(JSON.stringify(node));
    }
    if (typeof node === 'number') {
      if (Number.isFinite(node)) return scalar(JSON.stringify(node));
      throw problem(`the value holds the number ${String(node)}; JSON numbers must be finite`);
    }
    if (typeof node !== 'object') throw problem(`the value holds a ${typeof node}, not JSON`);
    if (path.length >= maxDepth) throw problem(`the value nests deeper than ${maxDepth} levels`);
    if (open.has(node)) throw problem('the value is cyclic');
    const proto: unknown = Object.getPrototypeOf(node);
    if (!Array.isArray(node) && proto !== Object.prototype && proto !== null) {
      throw problem('the value holds a non-plain object, not JSON');
    }
    open.add(node);
    // Each member read once: a getter cannot pass as one value and be written as another.
    const member = (key: string, item: unknown): string => {
      path.push(key);
      const text = write(item === undefined ? null : item);
      path.pop();
      return text;
    };
    let text: string;
    if (Array.isArray(node)) {
      // Its brackets and commas, before any item: a sparse array may be billions long.
      const length = node.length;
      charge(Math.max(length + 1, 2));
      const items: string[] = [];
      for (let index = 0; index < length; index++) {
        items.push(member(String(index), (node as unknown[])[index]));
      }
      text = `[${items.join(',')}]`;
    } else {
      const members: [string, unknown][] = [];
      for (const key of Object.keys(node)) {
        const item = (node as Record<string, unknown>)[key];
        if (item !== undefined) members.push([key, item]);
      }
      charge(Math.max(members.length * 2 + 1, 2)); // braces, colons and commas
      if (sortKeys) members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      text = `{${members
        .map(([key, item]) => `${scalar(JSON.stringify(key))}:${member(key, item)}`)
        .join(',')}}`;
    }
    open.delete(node);
    return text;
  };
  return write(value);
}

/** The JSON Pointer fragment of `path` (`#/a~1b/0`), cut to 80 characters for a message. */
export function shownPointer(path: readonly string[]): string {
  const pointer = `#${path.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
  return pointer.length > 80 ? `${pointer.slice(0, 80)}…` : pointer;
}

/** Escapes one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `#/a~1b/0` → `['a/b', '0']`: a pointer fragment's segments, URI-decoded and unescaped. */
export function decodePointer(pointer: string): string[] {
  const segments = pointer.split('/').slice(1);
  if (!/[%~]/.test(pointer)) return segments;
  return segments.map((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // not URI-encoded after all: taken as it is
    }
    return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

/** The member `key` of an array or object (own members only), or undefined. */
export function memberOf(node: unknown, key: string | number): JsonData | undefined {
  if (Array.isArray(node)) return node[Number(key)] as JsonData | undefined;
  return isJsonRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}
