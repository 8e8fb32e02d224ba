/**
 * Bounded work per schema: a server decides how big its schemas are and
 * what they refer to, so both are checked before any validator is built.
 * A schema over the size limit, or one whose `$ref`s loop back to where
 * they started without any data in between (which no validator can ever
 * finish), is refused with the reason.
 */
import { decodePointer, isJsonObject, memberOf, schemaLikeObjects } from './json.js';

/** Largest tool schema accepted, in characters of JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** Keywords whose subschemas apply to the same value as their parent: no data is consumed. */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'];

/** Why `schema` (whose JSON text is `text`) is refused before any validator is built, or undefined. */
export function schemaBoundsRefusal(schema: unknown, text: string): string | undefined {
  if (text.length > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${text.length} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  // A JSON tree has no cycle of its own: a loop needs a reference.
  if (!/"\$(ref|dynamicRef|recursiveRef)"/.test(text)) return undefined;
  const cycle = refCycle(schema);
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
function refCycle(root: unknown): string[] | undefined {
  const followed: string[] = [];
  /** Nodes on the current path, with how many `$ref`s had been followed to reach them. */
  const onPath = new Map<object, number>();
  const done = new Set<object>();
  const visit = (node: unknown): string[] | undefined => {
    if (!isJsonObject(node) || done.has(node)) return undefined;
    const entered = onPath.get(node);
    if (entered !== undefined) return followed.slice(entered);
    onPath.set(node, followed.length);
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#')) {
      followed.push(ref);
      const found = visit(resolvePointer(root, ref));
      followed.pop();
      if (found !== undefined) return found;
    }
    for (const keyword of SAME_VALUE) {
      const value = node[keyword];
      for (const sub of Array.isArray(value) ? value : [value]) {
        const found = visit(sub);
        if (found !== undefined) return found;
      }
    }
    onPath.delete(node);
    done.add(node);
    return undefined;
  };
  // Start from every subschema: a cycle may hide anywhere, not only at the root.
  for (const node of schemaLikeObjects(root)) {
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
