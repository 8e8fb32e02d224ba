/**
 * Bounded work per schema, checked before any validator is built: a schema
 * over the size limit, or whose `$ref`s loop without data in between (no
 * validator could finish), is refused with the reason.
 */
import { decodePointer, isJsonRecord, memberOf, type JsonRecord } from '../../core/json.js';
import { MAX_SCHEMA_TEXT_LENGTH, surveySchema, type SchemaSurvey } from './json.js';

/** Keywords whose subschemas apply to the same value as their parent: no data is consumed. */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'];

/**
 * Why `schema` is refused before any validator is built, or undefined;
 * `chars` is its length as JSON text when known exactly.
 */
export function schemaBoundsRefusal(
  schema: unknown,
  { objects, chars }: SchemaSurvey = surveySchema(schema),
): string | undefined {
  if (chars > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${chars} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  const cycle = refCycle(schema, objects);
  return cycle === undefined
    ? undefined
    : `its $refs loop without any data in between (${cycle.join(' → ')}), so no value could ever be checked against it`;
}

/**
 * A chain of local `$ref`s that comes back to where it started through
 * keywords that apply to the same value ({@link SAME_VALUE}), as the `$ref`
 * values followed; undefined when there is none. Recursion through
 * `properties` or `items` is fine: data ends it.
 */
function refCycle(root: unknown, objects: readonly JsonRecord[]): string[] | undefined {
  const followed: string[] = [];
  /** Nodes on the current path, with how many `$ref`s had been followed to reach them. */
  const onPath = new Map<object, number>();
  const done = new Set<object>();
  const targets = new Map<string, unknown>();
  const visit = (node: unknown): string[] | undefined => {
    if (!isJsonRecord(node) || done.has(node)) return undefined;
    const entered = onPath.get(node);
    if (entered !== undefined) return followed.slice(entered);
    onPath.set(node, followed.length);
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#')) {
      if (!targets.has(ref)) targets.set(ref, resolvePointer(root, ref));
      followed.push(ref);
      const found = visit(targets.get(ref));
      followed.pop();
      if (found !== undefined) return found;
    }
    for (const keyword of SAME_VALUE) {
      const value = node[keyword];
      if (value === undefined) continue;
      const found = Array.isArray(value) ? value.reduce(first, undefined) : visit(value);
      if (found !== undefined) return found;
    }
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  const first = (found: string[] | undefined, sub: unknown): string[] | undefined =>
    found ?? visit(sub);
  // A JSON tree has no cycle of its own: every loop passes through a `$ref`.
  for (const node of objects) {
    const found = typeof node['$ref'] === 'string' ? visit(node) : undefined;
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The value at a `#/a/b` reference, or undefined when it does not resolve. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  return decodePointer(ref).reduce<unknown>((node, key) => memberOf(node, key), root);
}
