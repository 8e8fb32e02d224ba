/**
 * Bounded work per schema: a server decides how big its schemas are and
 * what they refer to, so both are checked before any validator is built.
 * A schema over the size limit, or one whose `$ref`s loop back to where
 * they started without any data in between (which no validator can ever
 * finish), is refused with the reason.
 */

/** Largest tool schema accepted, in characters of canonical JSON. */
export const MAX_SCHEMA_TEXT_LENGTH = 262_144;

/** The keywords that make a reference, as they appear in JSON text. */
const REFERENCES = ['"$ref"', '"$dynamicRef"', '"$recursiveRef"'];

/** Keywords whose subschemas apply to the same value (no data consumed on the way). */
const SAME_VALUE = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_VALUE_SINGLE = ['not', 'if', 'then', 'else'] as const;
/** Keywords whose values are data, not schemas. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** Why `schema` (whose JSON text is `text`) is refused before any validator is built, or undefined. */
export function schemaBoundsRefusal(schema: unknown, text: string): string | undefined {
  if (text.length > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${text.length} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  // A JSON tree has no cycle of its own: a loop needs a reference.
  if (!REFERENCES.some((keyword) => text.includes(keyword))) return undefined;
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
 * Pointers are worked out only for the report: the search itself keeps
 * nodes, not strings.
 */
function refCycle(root: unknown): string[] | undefined {
  const onPath = new Set<object>();
  const done = new Set<object>();
  const targets = new Map<string, unknown>();
  const target = (ref: string): unknown => {
    if (!targets.has(ref)) targets.set(ref, resolvePointer(root, ref));
    return targets.get(ref);
  };

  const visit = (node: unknown): [object, object] | undefined => {
    if (!isObject(node) || done.has(node)) return undefined;
    onPath.add(node);
    try {
      for (const next of sameValueEdges(node, target)) {
        if (isObject(next) && onPath.has(next)) return [next, node];
        const found = visit(next);
        if (found !== undefined) return found;
      }
    } finally {
      onPath.delete(node);
    }
    done.add(node);
    return undefined;
  };

  // Start from every subschema: a cycle may hide anywhere, not only at the root.
  for (const node of subschemas(root)) {
    const found = visit(node);
    if (found !== undefined) return found.map((end) => pointerOf(root, end) ?? '#');
  }
  return undefined;
}

/** The subschemas that apply to the same value as `node`. */
function sameValueEdges(
  node: Record<string, unknown>,
  target: (ref: string) => unknown,
): unknown[] {
  const edges: unknown[] = [];
  const ref = node['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#')) edges.push(target(ref));
  for (const key of SAME_VALUE) {
    const list = node[key];
    if (Array.isArray(list)) edges.push(...(list as unknown[]));
  }
  for (const key of SAME_VALUE_SINGLE) edges.push(node[key]);
  return edges;
}

/** Every object under `root` that may be a schema (not inside enum, const, default, examples). */
function subschemas(root: unknown): object[] {
  const found: object[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
    } else if (isObject(node)) {
      found.push(node);
      for (const key of Object.keys(node)) {
        if (!VALUE_KEYWORDS.has(key)) stack.push(node[key]);
      }
    }
  }
  return found;
}

/** The JSON pointer of `wanted` under `root`, found by a walk (for reports only). */
function pointerOf(root: unknown, wanted: object): string | undefined {
  const stack: [unknown, string][] = [[root, '#']];
  while (stack.length > 0) {
    const [node, pointer] = stack.pop() as [unknown, string];
    if (node === wanted) return pointer;
    if (Array.isArray(node))
      node.forEach((item, index) => stack.push([item, `${pointer}/${index}`]));
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        stack.push([value, `${pointer}/${escapePointer(key)}`]);
      }
    }
  }
  return undefined;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
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
