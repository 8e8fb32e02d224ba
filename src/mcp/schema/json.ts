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

/** Largest tool schema accepted, in characters of JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** True for a non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON text of `value` with object keys sorted at every level, so equal
 * schemas give equal text whatever their key order. `undefined` members are
 * skipped and `undefined` items written as `null`, as `JSON.stringify` does.
 * @throws {SchemaProblem} for what JSON cannot carry faithfully: cycles,
 * functions, symbols, bigints, non-finite numbers, class instances,
 * nesting beyond {@link MAX_SCHEMA_DEPTH}, and text beyond
 * {@link MAX_SCHEMA_TEXT_LENGTH}.
 */
export function canonicalJsonText(value: unknown): string {
  const path: string[] = [];
  const open = new Set<object>();
  /** Characters of scalars and keys written: bounds the work on shared objects too. */
  let written = 0;
  const scalar = (text: string): string => {
    written += text.length;
    if (written <= MAX_SCHEMA_TEXT_LENGTH) return text;
    throw new SchemaProblem(
      `the schema is more than ${MAX_SCHEMA_TEXT_LENGTH} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`,
    );
  };
  const problem = (what: string): SchemaProblem => {
    const pointer = `#${path.map((segment) => `/${escapePointerSegment(segment)}`).join('')}`;
    const shown = pointer.length > 80 ? `${pointer.slice(0, 80)}…` : pointer;
    return new SchemaProblem(`schema ${what} (at ${shown})`);
  };
  const write = (node: unknown): string => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') {
      return scalar(JSON.stringify(node));
    }
    if (typeof node === 'number') {
      if (Number.isFinite(node)) return scalar(JSON.stringify(node));
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
          .map((key) => `${scalar(JSON.stringify(key))}:${member(key)}`)
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
  if (!/[%~]/.test(pointer)) return pointer.split('/').slice(1);
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

/** What one walk over a schema finds. */
export interface SchemaSurvey {
  /** The objects that may be schemas: all but data under {@link DATA_KEYWORDS}. */
  readonly objects: readonly JsonObject[];
  /** Its length as JSON text, escapes aside. */
  readonly chars: number;
  /** Whether any of `objects` has a `pattern` or `patternProperties`. */
  readonly patterns: boolean;
}

/**
 * Surveys `root` without writing it out, in one pass over its containers;
 * one met twice (shared or cyclic, which only an in-process server can
 * send, and the canonical text refuses) is counted once.
 */
export function surveySchema(root: unknown): SchemaSurvey {
  const objects: JsonObject[] = [];
  let chars = 0;
  let patterns = false;
  // Parallel stacks, not tuples: this runs over every listed schema at connect.
  const nodes: object[] = [];
  const data: boolean[] = [];
  /** Every container queued: one met again (shared, or a cycle) is not walked twice. */
  const seen = new Set<object>();
  /** Counts a scalar at once; queues a container. */
  const take = (value: unknown, inData: boolean): void => {
    if (typeof value === 'string') chars += value.length + 2;
    else if (typeof value !== 'object' || value === null) chars += String(value).length;
    else if (!seen.has(value)) {
      seen.add(value);
      nodes.push(value);
      data.push(inData);
    }
  };
  take(root, false);
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const inData = data.pop() === true;
    let members = 0;
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) {
        members++;
        take(item, inData);
      }
    } else {
      if (!inData) objects.push(node as JsonObject);
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        members++;
        chars += key.length + 3;
        if (!inData && (key === 'pattern' || key === 'patternProperties')) patterns = true;
        take((node as JsonObject)[key], inData || DATA_KEYWORDS.has(key));
      }
    }
    chars += 1 + Math.max(members, 1); // brackets and commas
  }
  return { objects, chars, patterns };
}
