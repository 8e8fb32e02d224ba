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
  return new CanonicalWriter().write(value);
}

class CanonicalWriter {
  private text = '';
  /** Keys and indexes down to the current value; made into a pointer only for errors. */
  private readonly path: (string | number)[] = [];
  private readonly ancestors = new Set<object>();

  write(value: unknown): string {
    this.value(value);
    return this.text;
  }

  private value(value: unknown): void {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        this.text += JSON.stringify(value);
        return;
      case 'number':
        if (!Number.isFinite(value)) {
          throw this.problem(`holds the number ${String(value)}; JSON numbers must be finite`);
        }
        this.text += JSON.stringify(value);
        return;
      case 'object':
        if (value === null) this.text += 'null';
        else this.container(value);
        return;
      default:
        throw this.problem(`holds a ${typeof value}; expected plain JSON`);
    }
  }

  private container(value: object): void {
    if (this.path.length >= MAX_SCHEMA_DEPTH) {
      throw this.problem(`nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
    }
    if (this.ancestors.has(value)) {
      throw this.problem('is cyclic; use $defs and $ref for recursion');
    }
    this.ancestors.add(value);
    if (Array.isArray(value)) {
      this.text += '[';
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.text += ',';
        const item: unknown = value[i];
        this.path.push(i);
        // JSON.stringify writes null for holes and undefined items; so do we.
        if (item === undefined) this.text += 'null';
        else this.value(item);
        this.path.pop();
      }
      this.text += ']';
    } else {
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw this.problem('holds a non-plain object; expected plain JSON');
      }
      const record = value as Record<string, unknown>;
      this.text += '{';
      let first = true;
      for (const key of Object.keys(record).sort()) {
        const item = record[key];
        if (item === undefined) continue;
        this.text += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        this.path.push(key);
        this.value(item);
        this.path.pop();
      }
      this.text += '}';
    }
    this.ancestors.delete(value);
  }

  private problem(what: string): SchemaProblem {
    const pointer = `#${this.path.map((segment) => `/${escapePointerSegment(String(segment))}`).join('')}`;
    const shown = pointer.length > 80 ? `${pointer.slice(0, 80)}…` : pointer;
    return new SchemaProblem(`schema ${what} (at ${shown})`);
  }
}

/** Escapes one JSON Pointer segment (RFC 6901): `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string): string {
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reverses {@link escapePointerSegment}; `~1` is replaced before `~0`. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
