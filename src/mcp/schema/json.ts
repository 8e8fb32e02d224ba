/**
 * Plain JSON values, the canonical text of a schema (the cache key), and
 * JSON Pointer helpers. Pure; no dependencies.
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

/**
 * Deeper than this and the schema is refused: no real tool needs it, and the
 * recursive walks below (and in both validators) must not overflow the stack.
 */
export const MAX_SCHEMA_DEPTH = 200;

/** True for a non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * JSON text of `value` with object keys sorted at every level, so equal
 * schemas give equal text whatever their key order. Throws
 * {@link SchemaProblem} for anything JSON cannot carry faithfully: cycles,
 * functions, symbols, bigints, non-finite numbers, class instances, and
 * nesting beyond {@link MAX_SCHEMA_DEPTH}. `undefined` object members are
 * skipped, as `JSON.stringify` does.
 */
export function canonicalJsonText(value: unknown): string {
  const parts: string[] = [];
  writeCanonical(value, parts, new Set<object>(), '#', 0);
  return parts.join('');
}

function writeCanonical(
  value: unknown,
  out: string[],
  ancestors: Set<object>,
  at: string,
  depth: number,
): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new SchemaProblem(`schema holds the number ${String(value)} at ${at}; JSON numbers must be finite`);
      }
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new SchemaProblem(`schema holds a ${typeof value} at ${at}; expected plain JSON`);
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (depth >= MAX_SCHEMA_DEPTH) {
    throw new SchemaProblem(`schema nests deeper than ${MAX_SCHEMA_DEPTH} levels at ${at}`);
  }
  if (ancestors.has(value)) {
    throw new SchemaProblem(`schema is cyclic at ${at}; use $defs and $ref for recursion`);
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item: unknown = value[i];
      // JSON.stringify writes null for holes and undefined items; so do we.
      if (item === undefined) out.push('null');
      else writeCanonical(item, out, ancestors, `${at}/${i}`, depth + 1);
    }
    out.push(']');
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new SchemaProblem(`schema holds a non-plain object at ${at}; expected plain JSON`);
    }
    const record = value as Record<string, unknown>;
    out.push('{');
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined) continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(key), ':');
      writeCanonical(item, out, ancestors, `${at}/${escapePointerSegment(key)}`, depth + 1);
    }
    out.push('}');
  }
  ancestors.delete(value);
}

/** Escapes one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reverses {@link escapePointerSegment}; `~1` is replaced before `~0`. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
