/**
 * Bounded work per schema, checked before any validator is built: a schema
 * over the size limit, nested deeper than a validator's copy may be, or
 * whose `$ref`s loop without data in between (no validator could finish)
 * or apply too much to one value, is refused with the reason.
 */
import {
  decodePointer,
  isJsonRecord,
  memberOf,
  shownPointer,
  type JsonRecord,
} from '../../core/json.js';
import {
  MAX_SCHEMA_DEPTH,
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
 * Most schemas that may apply to one value through references and the
 * keywords that apply to the same value; `allOf` of two `$ref`s to the
 * next level, twenty levels deep, applies a million without any loop.
 */
export const MAX_SAME_VALUE_SCHEMAS = 10_000;

/**
 * A schema with an `enum` counts as one more schema per this many of its
 * values: checking a value against it compares it with each of them, so
 * `$refs` that apply a 38,000-value enum 2,048 times to one value (an
 * `allOf` of two refs, eleven levels deep) took a second a check.
 */
export const ENUM_VALUES_PER_SCHEMA = 100;

/**
 * Most schemas in a row that apply to one value, each reached from the one
 * before by a reference or a keyword that applies to the same value: a
 * validator follows them by recursion, and a chain of a thousand `$ref`s
 * overflowed its stack on every call. The same bound as a schema's depth.
 */
export const MAX_SAME_VALUE_CHAIN = MAX_SCHEMA_DEPTH;

/**
 * Why `schema` is refused before any validator is built, or undefined;
 * `chars` is its length as JSON text when known exactly.
 */
export function schemaBoundsRefusal(
  schema: unknown,
  { referring, anchored, chars, containers }: SchemaSurvey = surveySchema(schema),
): string | undefined {
  if (chars > MAX_SCHEMA_TEXT_LENGTH) {
    return `the schema is ${chars} characters of JSON, above the limit of ${MAX_SCHEMA_TEXT_LENGTH}`;
  }
  // No deeper than it has containers: most schemas need no look at their depth.
  const deep = containers > MAX_SCHEMA_DEPTH ? tooDeepAt(schema, MAX_SCHEMA_DEPTH) : undefined;
  if (deep !== undefined) {
    return `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels (at ${deep})`;
  }
  if (referring.length === 0) return undefined;
  const { cycle, tooLong, mostApplied } = followReferences(schema, anchored, referring);
  if (cycle !== undefined) {
    return `its $refs loop without any data in between (${cycle.join(' → ')}), so no value could ever be checked against it`;
  }
  if (tooLong) {
    return `its $refs lead through more than ${MAX_SAME_VALUE_CHAIN} schemas in a row that apply to one value, so checking a value could overflow the stack`;
  }
  return mostApplied > MAX_SAME_VALUE_SCHEMAS
    ? `its $refs apply more than ${MAX_SAME_VALUE_SCHEMAS} schemas to one value (references that lead to the same subschemas again and again; an enum counts as one more per ${ENUM_VALUES_PER_SCHEMA} of its values), so checking a value could take exponential time`
    : undefined;
}

/**
 * Follows local references (by pointer or by anchor) from every schema
 * that has one, through the keywords that apply to the same value: a
 * `cycle` is a chain of references that comes back to where it started
 * (recursion through `properties` or `items` is fine: data ends it), as
 * the references followed; `mostApplied` is the most schemas that apply
 * to one value from any of them (counted once per way of reaching them,
 * and at most one past the limit).
 */
function followReferences(
  root: unknown,
  anchored: readonly JsonRecord[],
  referring: readonly JsonRecord[],
): { cycle?: string[]; tooLong?: true; mostApplied: number } {
  const walk = new ReferenceWalk(root, anchored);
  // A JSON tree has no cycle of its own: every loop passes through a reference.
  let mostApplied = 0;
  for (const node of referring) {
    const applied = walk.visit(node);
    if (walk.cycle !== undefined) return { cycle: walk.cycle, mostApplied };
    if (walk.tooLong) return { tooLong: true, mostApplied };
    mostApplied = Math.max(mostApplied, applied);
  }
  return { mostApplied };
}

/** One schema's references followed depth first; it runs for every schema that has one. */
class ReferenceWalk {
  /** The references of the first loop found, once one is. */
  cycle: string[] | undefined;
  /** Whether a chain longer than {@link MAX_SAME_VALUE_CHAIN} was found (the walk then stops). */
  tooLong = false;
  readonly #root: unknown;
  readonly #anchored: readonly JsonRecord[];
  /** What each reference met so far leads to. */
  readonly #targets = new Map<string, readonly unknown[]>();
  /** The anchored schemas by the names they answer to, once an anchor reference is met. */
  #byAnchor: Map<string, JsonRecord[]> | undefined;
  /** The references followed to the current node. */
  readonly #followed: string[] = [];
  /** How many nodes that apply more schemas are on the current path. */
  #depth = 0;
  /**
   * Each node met that applies more schemas to its value: while on the
   * current path, how many references had been followed to reach it, as
   * `-1 - count`; once finished, how many schemas apply to a value from it
   * (at least one). A node that applies nothing more is not kept: it is
   * cheaper to look at again than to remember.
   */
  readonly #state = new Map<object, number>();

  constructor(root: unknown, anchored: readonly JsonRecord[]) {
    this.#root = root;
    this.#anchored = anchored;
  }

  /**
   * How many schemas apply to a value from `node` (itself included, none
   * if it is not a schema object), at most one past the limit; once a loop
   * is found, it is in {@link cycle}, or a chain too long ({@link tooLong}),
   * and the count means nothing.
   */
  visit(node: unknown): number {
    if (!isJsonRecord(node)) return 0;
    const state = this.#state.get(node);
    if (state !== undefined) {
      if (state < 0) this.cycle = this.#followed.slice(-1 - state);
      return state;
    }
    const applying = applyingValues(node);
    if (applying === undefined) return weightOf(node);
    if (this.#depth === MAX_SAME_VALUE_CHAIN) {
      this.tooLong = true;
      return 0;
    }
    this.#depth++;
    this.#state.set(node, -1 - this.#followed.length);
    let count = weightOf(node);
    for (let index = 0; index < APPLYING_KEYWORDS.length; index++) {
      const value = applying[index];
      if (value === undefined) continue;
      if (index < REFERENCES_END) {
        if (typeof value !== 'string' || !value.startsWith('#')) continue;
        this.#followed.push(value);
        for (const target of this.#targetsOf(value)) {
          count += this.visit(target);
          if (this.#stopped) return count;
        }
        this.#followed.pop();
        continue;
      }
      for (const sub of subschemasIn(value, index >= SAME_VALUE_END)) {
        count += this.visit(sub);
        if (this.#stopped) return count;
      }
    }
    this.#depth--;
    count = Math.min(count, MAX_SAME_VALUE_SCHEMAS + 1);
    this.#state.set(node, count);
    return count;
  }

  /** Whether the walk found what refuses the schema, and stops. */
  get #stopped(): boolean {
    return this.cycle !== undefined || this.tooLong;
  }

  /** What a local reference may lead to: the value at a pointer, or every schema with that anchor. */
  #targetsOf(ref: string): readonly unknown[] {
    let targets = this.#targets.get(ref);
    if (targets === undefined) {
      const pointer = ref === '#' || ref.startsWith('#/');
      targets = pointer ? [resolvePointer(this.#root, ref)] : this.#anchoredAs(ref);
      this.#targets.set(ref, targets);
    }
    return targets;
  }

  /** The schemas an anchor reference names; the validator resolves it as a URL: `#%66oo` names `foo`. */
  #anchoredAs(ref: string): readonly JsonRecord[] {
    this.#byAnchor ??= anchorIndex(this.#anchored);
    return this.#byAnchor.get(decodedFragment(ref) ?? '') ?? [];
  }
}

/**
 * The schemas each anchor name names: by `$anchor` and `$dynamicAnchor` as
 * written, by the fragment of `$id` (`id` in draft 4) decoded. Built once a
 * walk: looked up per reference, a scan of every anchored schema, decoding
 * each `$id` again, made 8,000 references to one schema with a 120,000
 * character `$id` take 2.7 s within the size limit.
 */
function anchorIndex(anchored: readonly JsonRecord[]): Map<string, JsonRecord[]> {
  const index = new Map<string, JsonRecord[]>();
  for (const node of anchored) {
    const names = new Set<string>();
    for (const anchor of [node['$anchor'], node['$dynamicAnchor']]) {
      if (typeof anchor === 'string') names.add(anchor);
    }
    for (const id of [node['$id'], node['id']]) {
      const fragment = typeof id === 'string' ? decodedFragment(id) : undefined;
      if (fragment !== undefined) names.add(fragment);
    }
    for (const name of names) {
      const nodes = index.get(name);
      if (nodes === undefined) index.set(name, [node]);
      else nodes.push(node);
    }
  }
  return index;
}

/** How many schemas `node` counts as: one, and one more per {@link ENUM_VALUES_PER_SCHEMA} values of its enum. */
function weightOf(node: JsonRecord): number {
  const values = node['enum'];
  return Array.isArray(values) ? 1 + Math.floor(values.length / ENUM_VALUES_PER_SCHEMA) : 1;
}

/**
 * Every keyword through which more schemas apply to a node's value, in the
 * order a walk follows them: references, then keywords whose subschemas
 * apply to the same value, then maps of such subschemas.
 */
const APPLYING_KEYWORDS = [...REFERENCE_KEYWORDS, ...SAME_VALUE, ...SAME_VALUE_MAPS];
const REFERENCES_END = REFERENCE_KEYWORDS.size;
const SAME_VALUE_END = REFERENCES_END + SAME_VALUE.length;
const APPLYING_INDEX = new Map(APPLYING_KEYWORDS.map((keyword, index) => [keyword, index]));

/**
 * The values of `node`'s {@link APPLYING_KEYWORDS}, by their index there,
 * or undefined when it has none. One pass over its keys: reading twelve
 * keywords by name on objects of many shapes would mostly miss, slowly.
 */
function applyingValues(node: JsonRecord): unknown[] | undefined {
  let values: unknown[] | undefined;
  for (const key in node) {
    const index = APPLYING_INDEX.get(key);
    if (index === undefined) continue;
    values ??= new Array<unknown>(APPLYING_KEYWORDS.length);
    values[index] = node[key];
  }
  return values;
}

/**
 * Where `root` holds an object or array inside `maxDepth` others, as a
 * JSON pointer cut for a message, or undefined: the depth the validator's
 * copy of a schema may have (`canonicalJsonText`'s limit, which says where
 * the same way).
 */
function tooDeepAt(root: unknown, maxDepth: number): string | undefined {
  const path: string[] = [];
  const visit = (node: unknown): boolean => {
    if (typeof node !== 'object' || node === null) return false;
    if (path.length >= maxDepth) return true;
    for (const key of Object.keys(node)) {
      path.push(key);
      if (visit((node as Record<string, unknown>)[key])) return true;
      path.pop();
    }
    return false;
  };
  return visit(root) ? shownPointer(path) : undefined;
}

/** The subschemas a same-value keyword holds: one or a list, or a map's values. */
function subschemasIn(value: unknown, isMap: boolean): readonly unknown[] {
  if (isMap) return isJsonRecord(value) ? Object.values(value) : [];
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

/** The value at a `#/a/b` reference, or undefined when it does not resolve. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  if (ref.includes('%') || ref.includes('~')) {
    return decodePointer(ref).reduce<unknown>((node, key) => memberOf(node, key), root);
  }
  // Nothing to decode: read segment by segment, with no list of them.
  let node = root;
  for (let start = 2; ;) {
    const end = ref.indexOf('/', start);
    node = memberOf(node, end < 0 ? ref.slice(start) : ref.slice(start, end));
    if (end < 0 || node === undefined) return node;
    start = end + 1;
  }
}

/** What follows the `#` of an identifier or reference, percent-escapes decoded; undefined without one. */
function decodedFragment(uri: string): string | undefined {
  const hash = uri.indexOf('#');
  if (hash < 0) return undefined;
  const fragment = uri.slice(hash + 1);
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment; // a malformed escape: compared as written
  }
}
