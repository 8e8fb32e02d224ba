/**
 * Bounded work per schema, checked before any validator is built: a schema
 * over the size limit, or whose `$ref`s loop without data in between (no
 * validator could finish), is refused with the reason.
 */
import { decodePointer, isJsonRecord, memberOf, type JsonRecord } from '../../core/json.js';
import {
  MAX_SCHEMA_TEXT_LENGTH,
  REFERENCE_KEYWORDS,
  surveySchema,
  type SchemaSurvey,
} from './json.js';

/** Keywords whose subschemas apply to the same value as their parent: no data is consumed. */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'];
/** Keywords that map names to subschemas applying to the same value. */
const SAME_VALUE_MAPS = ['dependentSchemas', 'dependencies'];

/**
 * Why `schema` is refused before any validator is built, or undefined;
 * `chars` is its length as JSON text when known exactly.
 */
export function schemaBoundsRefusal(
  schema: unknown,
  { referring, anchored, chars }: SchemaSurvey = surveySchema(schema),
): string | undefined {
  if (chars > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${chars} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  const cycle = referring.length === 0 ? undefined : refCycle(schema, anchored, referring);
  return cycle === undefined
    ? undefined
    : `its $refs loop without any data in between (${cycle.join(' → ')}), so no value could ever be checked against it`;
}

/**
 * A chain of local references (by pointer or by anchor) that comes back to
 * where it started through keywords that apply to the same value, as the
 * references followed; undefined when there is none. Recursion through
 * `properties` or `items` is fine: data ends it.
 */
function refCycle(
  root: unknown,
  anchored: readonly JsonRecord[],
  referring: readonly JsonRecord[],
): string[] | undefined {
  const targets = new Map<string, unknown[]>();
  /** What a local reference may lead to: the value at a pointer, or every schema with that anchor. */
  const targetsOf = (ref: string): unknown[] => {
    if (!targets.has(ref)) {
      const named = (node: JsonRecord): boolean =>
        [node['$anchor'], node['$dynamicAnchor']].includes(ref.slice(1));
      const pointer = ref === '#' || ref.startsWith('#/');
      targets.set(ref, pointer ? [resolvePointer(root, ref)] : anchored.filter(named));
    }
    return targets.get(ref) ?? [];
  };
  const followed: string[] = [];
  /** Nodes on the current path, with how many references had been followed to reach them. */
  const onPath = new Map<object, number>();
  const done = new Set<object>();
  const visit = (node: unknown): string[] | undefined => {
    if (!isJsonRecord(node) || done.has(node)) return undefined;
    const entered = onPath.get(node);
    if (entered !== undefined) return followed.slice(entered);
    onPath.set(node, followed.length);
    for (const keyword of REFERENCE_KEYWORDS) {
      const ref = node[keyword];
      if (typeof ref !== 'string' || !ref.startsWith('#')) continue;
      followed.push(ref);
      const found = targetsOf(ref).reduce(first, undefined);
      followed.pop();
      if (found !== undefined) return found;
    }
    for (const keyword of SAME_VALUE) {
      const value = node[keyword];
      if (value === undefined) continue;
      const found = Array.isArray(value) ? value.reduce(first, undefined) : visit(value);
      if (found !== undefined) return found;
    }
    for (const keyword of SAME_VALUE_MAPS) {
      const map = node[keyword];
      const found = isJsonRecord(map) ? Object.values(map).reduce(first, undefined) : undefined;
      if (found !== undefined) return found;
    }
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  const first = (found: string[] | undefined, sub: unknown): string[] | undefined =>
    found ?? visit(sub);
  // A JSON tree has no cycle of its own: every loop passes through a reference.
  for (const node of referring) {
    const found = visit(node);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The value at a `#/a/b` reference, or undefined when it does not resolve. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  return decodePointer(ref).reduce<unknown>((node, key) => memberOf(node, key), root);
}
