/**
 * Bounded work per schema: a server decides how big its schemas are and
 * what they refer to, so both are checked before any validator is built.
 * A schema over the size limit, or one whose `$ref`s loop back to where
 * they started without any data in between (which no validator can ever
 * finish), is refused with the reason.
 */

/** Largest tool schema accepted, in characters of canonical JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** Keywords whose subschemas apply to the same value (no data consumed on the way). */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_VALUE_SINGLE = ['not', 'if', 'then', 'else'] as const;

/** Why `schema` is refused before any validator is built, or undefined. */
export function schemaBoundsRefusal(schema: unknown, textLength: number): string | undefined {
  if (textLength > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${textLength} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  const cycle = refCycle(schema);
  if (cycle !== undefined) {
    return `its $refs loop without any data in between (${cycle.join(' → ')}), so no value could ever be checked against it`;
  }
  return undefined;
}

/**
 * A chain of local `$ref`s that comes back to its start through keywords
 * that apply to the same value (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`,
 * `if`/`then`/`else`), as JSON pointers; undefined when there is none.
 * Recursion through `properties` or `items` is fine: data ends it.
 */
function refCycle(root: unknown): string[] | undefined {
  const onPath = new Map<object, string>();
  const done = new Set<object>();

  const visit = (node: unknown, pointer: string): string[] | undefined => {
    if (!isObject(node)) return undefined;
    const seen = onPath.get(node);
    if (seen !== undefined) return [seen, pointer];
    if (done.has(node)) return undefined;
    onPath.set(node, pointer);
    try {
      for (const next of sameValueEdges(root, node, pointer)) {
        const found = visit(next.node, next.pointer);
        if (found !== undefined) return found;
      }
    } finally {
      onPath.delete(node);
    }
    done.add(node);
    return undefined;
  };

  // Start from every subschema: a cycle may hide anywhere, not only at the root.
  for (const [node, pointer] of subschemas(root, '#')) {
    const found = visit(node, pointer);
    if (found !== undefined) return found;
  }
  return undefined;
}

function sameValueEdges(
  root: unknown,
  node: Record<string, unknown>,
  pointer: string,
): { node: unknown; pointer: string }[] {
  const edges: { node: unknown; pointer: string }[] = [];
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#')) {
    const target = resolvePointer(root, ref);
    if (target !== undefined) edges.push({ node: target, pointer: ref });
  }
  for (const key of SAME_VALUE) {
    const list = node[key];
    if (Array.isArray(list)) {
      list.forEach((item, index) =>
        edges.push({ node: item, pointer: `${pointer}/${key}/${index}` }),
      );
    }
  }
  for (const key of SAME_VALUE_SINGLE) {
    if (isObject(node[key])) edges.push({ node: node[key], pointer: `${pointer}/${key}` });
  }
  return edges;
}

/** Every object under `node` with its JSON pointer (bounded by the size check above). */
function* subschemas(node: unknown, pointer: string): Generator<[object, string]> {
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index += 1) {
      yield* subschemas(node[index], `${pointer}/${index}`);
    }
    return;
  }
  if (!isObject(node)) return;
  yield [node, pointer];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    yield* subschemas(value, `${pointer}/${escapePointer(key)}`);
  }
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
