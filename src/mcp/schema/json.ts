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
 * skipped, as `JSON.stringify` does.
 * @throws {SchemaProblem} for what JSON cannot carry faithfully: cycles,
 * functions, symbols, bigints, non-finite numbers, class instances, and
 * nesting beyond {@link MAX_SCHEMA_DEPTH}.
 */
export function canonicalJsonText(value: unknown, path: string[] = [], seen = new Set()): string {
  const problem = (what: string): SchemaProblem => {
    const pointer = `#${path.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
    return new SchemaProblem(
      `schema ${what} (at ${pointer.length > 80 ? `${pointer.slice(0, 80)}…` : pointer})`,
    );
  };
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw problem(`holds the number ${String(value)}; JSON numbers must be finite`);
  }
  if (typeof value !== 'object' || value === null) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      return JSON.stringify(value);
    }
    throw problem(`holds a ${typeof value}; expected plain JSON`);
  }
  if (path.length >= MAX_SCHEMA_DEPTH)
    throw problem(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  if (seen.has(value)) throw problem('is cyclic; use $defs and $ref for recursion');
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) {
    throw problem('holds a non-plain object; expected plain JSON');
  }
  seen.add(value);
  const item = (key: string, member: unknown): string => {
    path.push(key);
    // JSON.stringify writes null for holes and undefined items; so do we.
    const text = member === undefined ? 'null' : canonicalJsonText(member, path, seen);
    path.pop();
    return text;
  };
  const text = Array.isArray(value)
    ? `[${value.map((member: unknown, i) => item(String(i), member)).join(',')}]`
    : `{${Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map(
          (key) => `${JSON.stringify(key)}:${item(key, (value as Record<string, unknown>)[key])}`,
        )
        .join(',')}}`;
  seen.delete(value);
  return text;
}

/** Escapes one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reverses {@link escapePointerSegment}; `~1` is replaced before `~0`. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Keywords whose value is one subschema (`items` may also be a list). */
const SINGLE = `additionalProperties additionalItems unevaluatedProperties unevaluatedItems
  contains propertyNames not if then else items`.split(/\s+/);
/** Keywords whose value is an array of subschemas (never empty for `allOf`, `anyOf`, `oneOf`). */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas (`dependencies` also to property lists). */
const MAPS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
];

/** Where a subschema stands under its parent: the pointer suffix, and the value there. */
export type Child = readonly [suffix: string, value: JsonValue];

/**
 * The subschema positions of `node` (`dependencies` entries that are string
 * lists are left out). Values are returned as they are, so the caller judges
 * whether each is a schema.
 * @throws {SchemaProblem} when a list or map keyword holds something else.
 */
export function childSchemas(node: JsonObject, pointer: string): Child[] {
  const children: Child[] = [];
  for (const keyword of SINGLE) {
    const value = node[keyword];
    if (value !== undefined && !Array.isArray(value)) children.push([`/${keyword}`, value]);
  }
  for (const keyword of LISTS) {
    const list = node[keyword];
    if (list === undefined || (keyword === 'items' && !Array.isArray(list))) continue;
    if (!Array.isArray(list) || (list.length === 0 && keyword.endsWith('Of'))) {
      throw new SchemaProblem(`"${keyword}" at ${pointer} must be a non-empty array of schemas`);
    }
    list.forEach((item, i) => children.push([`/${keyword}/${i}`, item]));
  }
  for (const keyword of MAPS) {
    const map = node[keyword];
    if (map === undefined) continue;
    if (!isJsonObject(map)) {
      throw new SchemaProblem(`"${keyword}" at ${pointer} must be an object of schemas`);
    }
    for (const [name, sub] of Object.entries(map)) {
      if (keyword === 'dependencies' && Array.isArray(sub)) continue;
      children.push([`/${keyword}/${escapePointerSegment(name)}`, sub]);
    }
  }
  return children;
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
