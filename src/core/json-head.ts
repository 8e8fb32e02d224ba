/**
 * The first characters of a value's JSON text, written without the rest:
 * a server's log data of megabytes (an object of 60,000 keys) cost a whole
 * `JSON.stringify` for the 8 KB an event keeps.
 */

/** The start of a value's JSON text, and whether it is all of it. */
export interface JsonHead {
  readonly text: string;
  readonly whole: boolean;
}

/** Deeper than this, the text is cut there: a recursive writer must not overflow the stack. */
const MAX_DEPTH = 1_000;

/** Thrown inside the writer once the head is long enough (one instance: never seen outside). */
const FULL = new Error('the head is full');
/** Thrown inside the writer at a value JSON data does not hold. */
const NOT_DATA = new Error('not JSON data');

/**
 * The first `maxChars` characters of `value` as `JSON.stringify` writes it
 * (members in their own order), reading no further than they need (a
 * nesting deeper than 1,000 levels is cut there, as if too long). For
 * what is not plain JSON data (a class instance, a `toJSON`, a function
 * member, a bigint, a non-finite number, a cycle), undefined: that is left
 * to `JSON.stringify`. A getter's throw is thrown.
 */
export function jsonHead(value: unknown, maxChars: number): JsonHead | undefined {
  const parts: string[] = [];
  let length = 0;
  /** The objects and arrays being written: one met again inside itself is a cycle. */
  const open = new Set<object>();
  const put = (text: string): void => {
    parts.push(text);
    length += text.length;
    if (length > maxChars) throw FULL;
  };
  const write = (node: unknown, depth: number): void => {
    if (node === null || typeof node === 'boolean') return put(String(node));
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw NOT_DATA;
      return put(JSON.stringify(node));
    }
    if (typeof node === 'string') {
      // Past what is kept, a long string is not escaped whole either.
      const room = maxChars - length;
      return put(JSON.stringify(node.length > room ? node.slice(0, room) : node));
    }
    if (typeof node !== 'object') throw NOT_DATA;
    if (depth >= MAX_DEPTH) throw FULL;
    if (typeof (node as { toJSON?: unknown }).toJSON === 'function') throw NOT_DATA;
    if (open.has(node)) throw NOT_DATA;
    open.add(node);
    writeContainer(node, depth);
    open.delete(node);
  };
  const writeContainer = (node: object, depth: number): void => {
    if (Array.isArray(node)) {
      put('[');
      for (let index = 0; index < node.length; index++) {
        if (index > 0) put(',');
        const item: unknown = node[index];
        if (item === undefined) put('null');
        else write(item, depth + 1);
      }
      return put(']');
    }
    const prototype: unknown = Object.getPrototypeOf(node);
    if (prototype !== Object.prototype && prototype !== null) throw NOT_DATA;
    put('{');
    let first = true;
    for (const key of Object.keys(node)) {
      const member: unknown = (node as Record<string, unknown>)[key];
      if (member === undefined) continue;
      put(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`);
      first = false;
      put(':');
      write(member, depth + 1);
    }
    return put('}');
  };
  try {
    write(value, 0);
  } catch (stop) {
    if (stop === NOT_DATA) return undefined;
    if (stop !== FULL) throw stop;
    return { text: parts.join('').slice(0, maxChars), whole: false };
  }
  return { text: parts.join(''), whole: true };
}
