/**
 * Plain JSON values, the canonical text of a schema (the cache key), JSON
 * Pointer segments, and where subschemas stand in a schema. Pure.
 */

/** A JSON value as `JSON.parse` produces it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object as `JSON.parse` produces it. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * A schema fails a structural rule. Carries no server or tool name, so a
 * cached rejection can be re-thrown for any tool with the same schema; the
 * caller wraps it in an `McpSchemaError`.
 */
export class SchemaProblem extends Error {
  override readonly name: string = 'SchemaProblem';
}

/** Deeper than this and the schema is refused: no real tool needs it, and walks must not overflow. */
export const MAX_SCHEMA_DEPTH = 200;

/** True for a non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON text of `value` with object keys sorted at every level, so equal
 * schemas give equal text whatever their key order. `undefined` members are
 * skipped and `undefined` items written as `null`, as `JSON.stringify` does.
 * @throws {SchemaProblem} for what JSON cannot carry faithfully: cycles,
 * functions, symbols, bigints, non-finite numbers, class instances, and
 * nesting beyond {@link MAX_SCHEMA_DEPTH}.
 */
export function canonicalJsonText(value: unknown): string {
  const path: string[] = [];
  const open = new Set<object>();
  const problem = (what: string): SchemaProblem => {
    const pointer = `#${path.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
    const shown = pointer.length > 80 ? `${pointer.slice(0, 80)}…` : pointer;
    return new SchemaProblem(`schema ${what} (at ${shown})`);
  };
  const write = (node: unknown): string => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') {
      return JSON.stringify(node);
    }
    if (typeof node === 'number') {
      if (Number.isFinite(node)) return JSON.stringify(node);
      throw problem(`holds the number ${String(node)}; JSON numbers must be finite`);
    }
    if (typeof node !== 'object') throw problem(`holds a ${typeof node}; expected plain JSON`);
    if (path.length >= MAX_SCHEMA_DEPTH)
      throw problem(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    if (open.has(node)) throw problem('is cyclic; use $defs and $ref for recursion');
    const proto: unknown = Object.getPrototypeOf(node);
    if (!Array.isArray(node) && proto !== Object.prototype && proto !== null) {
      throw problem('holds a non-plain object; expected plain JSON');
    }
    open.add(node);
    const member = (key: string): string => {
      path.push(key);
      const item = (node as Record<string, unknown>)[key];
      const text = item === undefined ? 'null' : write(item);
      path.pop();
      return text;
    };
    const text = Array.isArray(node)
      ? `[${Array.from(node, (_, i) => member(String(i))).join(',')}]`
      : `{${Object.keys(node)
          .filter((key) => (node as Record<string, unknown>)[key] !== undefined)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${member(key)}`)
          .join(',')}}`;
    open.delete(node);
    return text;
  };
  return write(value);
}

/** Escapes one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `#/a~1b/0` → `['a/b', '0']`: a pointer fragment's segments, URI-decoded and unescaped. */
export function decodePointer(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => {
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
export function memberOf(node: unknown, key: string | number): JsonValue | undefined {
  if (Array.isArray(node)) return node[Number(key)] as JsonValue | undefined;
  return isJsonObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

/** Keywords whose values are data, never schemas. */
export const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Every object under `root` that may be a schema: all but data under {@link DATA_KEYWORDS}. */
export function schemaLikeObjects(root: unknown): JsonObject[] {
  const found: JsonObject[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else if (isJsonObject(node)) {
      found.push(node);
      for (const key of Object.keys(node)) if (!DATA_KEYWORDS.has(key)) stack.push(node[key]);
    }
  }
  return found;
}
