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
 * Most schemas that may apply to one value through references and the
 * keywords that apply to the same value; `allOf` of two `$ref`s to the
 * next level, twenty levels deep, applies a million without any loop.
 */
export const MAX_SAME_VALUE_SCHEMAS = 10_000;

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
  if (referring.length === 0) return undefined;
  const { cycle, mostApplied } = followReferences(schema, anchored, referring);
  if (cycle !== undefined) {
    return `its $refs loop without any data in between (${cycle.join(' → ')}), so no value could ever be checked against it`;
  }
  return mostApplied > MAX_SAME_VALUE_SCHEMAS
    ? `its $refs apply more than ${MAX_SAME_VALUE_SCHEMAS} schemas to one value (references that lead to the same subschemas again and again), so checking a value could take exponential time`
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
): { cycle?: string[]; mostApplied: number } {
  const walk = new ReferenceWalk(root, anchored);
  // A JSON tree has no cycle of its own: every loop passes through a reference.
  let mostApplied = 0;
  for (const node of referring) {
    const cycle = walk.visit(node);
    if (cycle !== undefined) return { cycle, mostApplied };
    mostApplied = Math.max(mostApplied, walk.appliedFrom(node));
  }
  return { mostApplied };
}

/** One schema's references followed depth first; it runs for every schema that has one. */
class ReferenceWalk {
  readonly #root: unknown;
  readonly #anchored: readonly JsonRecord[];
  /** What each reference met so far leads to. */
  readonly #targets = new Map<string, readonly unknown[]>();
  /** The references followed to the current node. */
  readonly #followed: string[] = [];
  /** Nodes on the current path, with how many references had been followed to reach them. */
  readonly #onPath = new Map<object, number>();
  /** Finished nodes: how many schemas apply to a value from each. */
  readonly #applied = new Map<object, number>();

  constructor(root: unknown, anchored: readonly JsonRecord[]) {
    this.#root = root;
    this.#anchored = anchored;
  }

  /** How many schemas apply to a value from `sub`, once it has been visited. */
  appliedFrom(sub: unknown): number {
    return isJsonRecord(sub) ? (this.#applied.get(sub) ?? 0) : 0;
  }

  /** Visits `node` and what applies to its value; the references of a loop, if it finds one. */
  visit(node: unknown): string[] | undefined {
    if (!isJsonRecord(node) || this.#applied.has(node)) return undefined;
    const entered = this.#onPath.get(node);
    if (entered !== undefined) return this.#followed.slice(entered);
    let count = 1;
    if (!appliesMore(node)) {
      this.#applied.set(node, count);
      return undefined;
    }
    this.#onPath.set(node, this.#followed.length);
    for (const keyword of REFERENCE_KEYWORD_LIST) {
      const ref = node[keyword];
      if (typeof ref !== 'string' || !ref.startsWith('#')) continue;
      this.#followed.push(ref);
      for (const target of this.#targetsOf(ref)) {
        const found = this.visit(target);
        if (found !== undefined) return found;
        count += this.appliedFrom(target);
      }
      this.#followed.pop();
    }
    for (const keyword of SAME_VALUE) {
      const value = node[keyword];
      if (value === undefined) continue;
      const subs = Array.isArray(value) ? (value as unknown[]) : [value];
      for (const sub of subs) {
        const found = this.visit(sub);
        if (found !== undefined) return found;
        count += this.appliedFrom(sub);
      }
    }
    for (const keyword of SAME_VALUE_MAPS) {
      const map = node[keyword];
      if (!isJsonRecord(map)) continue;
      for (const sub of Object.values(map)) {
        const found = this.visit(sub);
        if (found !== undefined) return found;
        count += this.appliedFrom(sub);
      }
    }
    this.#onPath.delete(node);
    this.#applied.set(node, Math.min(count, MAX_SAME_VALUE_SCHEMAS + 1));
    return undefined;
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
  #anchoredAs(ref: string): JsonRecord[] {
    const name = decodedFragment(ref);
    return this.#anchored.filter(
      (node) =>
        node['$anchor'] === name ||
        node['$dynamicAnchor'] === name ||
        [node['$id'], node['id']].some(
          (id) => typeof id === 'string' && decodedFragment(id) === name,
        ),
    );
  }
}

/** {@link REFERENCE_KEYWORDS} as a list, read on every node a reference leads to. */
const REFERENCE_KEYWORD_LIST = [...REFERENCE_KEYWORDS];

/** Every keyword through which more schemas apply to a node's value. */
const APPLYING_KEYWORDS = new Set([...REFERENCE_KEYWORDS, ...SAME_VALUE, ...SAME_VALUE_MAPS]);

/**
 * Whether `node` has a keyword through which more schemas apply to its
 * value: one pass over its keys, where looking each keyword up by name on
 * objects of many shapes would mostly miss, slowly.
 */
function appliesMore(node: JsonRecord): boolean {
  for (const key in node) if (APPLYING_KEYWORDS.has(key)) return true;
  return false;
}

/** The value at a `#/a/b` reference, or undefined when it does not resolve. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  return decodePointer(ref).reduce<unknown>((node, key) => memberOf(node, key), root);
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
