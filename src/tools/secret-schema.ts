/**
 * Which schemas of a tool's JSON Schema apply to a value, for finding its
 * secret arguments (`secret-arguments.ts`): the value's own schema, the
 * branches of `anyOf`, `oneOf` and `allOf`, the conditional and dependent
 * schemas, and the targets of local `$ref`s, each schema object once, with
 * a bound on the work; what cannot be known counts as secret.
 */
import { isJsonRecord } from '../core/json.js';

/**
 * Most schemas one lookup may take in (each `anyOf`, `oneOf` or `allOf`
 * branch, each `$ref` target, counted as reached, repeats included); past
 * it the value counts as secret. A schema of at most half as many JSON
 * values never reaches it (see {@link declaresSecretArguments}), so only a
 * huge or hostile schema pays for this bound, in masked values.
 */
export const MAX_SCHEMA_STEPS = 20_000;

/** Combinators whose branches all describe the same value. */
const BRANCH_KEYWORDS = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * Keywords whose schema may apply to the same value, on a condition this
 * does not decide (`if`/`then`/`else`), or when a property is present
 * (`dependentSchemas`, and `dependencies` where a value is a schema):
 * their marks apply as a branch's do.
 */
const CONDITIONAL_KEYWORDS = ['if', 'then', 'else'] as const;
const DEPENDENT_KEYWORDS = ['dependentSchemas', 'dependencies'] as const;

/** Keywords that apply another schema, found by URI, to the same value. */
export const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

/** What {@link SchemaReader.resolve} answers for a reference it cannot follow. */
export const UNRESOLVED = Symbol('unresolved');

/** A JSON array index as RFC 6901 writes it: no sign, no leading zero. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** The schemas that apply to one value, and whether some could not be known. */
export interface Applicable {
  /** `anyOf`, `oneOf`, `allOf` branches and `$ref` targets, each schema object once. */
  readonly branches: readonly Record<string, unknown>[];
  /**
   * A `$ref` did not resolve, or the step bound was hit: which schemas
   * apply is not known, so the value counts as secret.
   */
  readonly unknown: boolean;
  /** Some branch marks the value secret, or {@link unknown}: the value is withheld. */
  readonly secret: boolean;
  /** How many leading items the branches describe one by one (tuples). */
  readonly tuple: number;
  /** Lookups made below this value, by property or item key (items past the tuples share one). */
  readonly below: Map<string, Applicable>;
}

/** Reads one tool schema: resolves its local `$ref`s and finds the schemas that apply to a value. */
export class SchemaReader {
  readonly #root: unknown;
  readonly #targets = new Map<string, unknown>();
  /**
   * Lookups made from one schema, by that schema: every property that only
   * `additionalProperties` describes, every value behind one `$ref`, shares one.
   */
  readonly #single = new Map<unknown, Applicable>();

  constructor(root: unknown) {
    this.#root = root;
  }

  /**
   * The schema a reference names: a JSON Pointer fragment (`#`,
   * `#/$defs/Creds`, `#/definitions/a~1b`, percent-encoded or not) into the
   * root schema. Anything else (another document, an `#anchor`, a pointer
   * to nothing or to a value that is no schema) is {@link UNRESOLVED}: no
   * base URI is known here, and a `$id` inside the schema is not honoured.
   */
  resolve(ref: unknown): unknown {
    if (typeof ref !== 'string' || !ref.startsWith('#')) return UNRESOLVED;
    // One lookup per reference and schema, however many values it applies to.
    if (this.#targets.has(ref)) return this.#targets.get(ref);
    const target = this.#walk(ref);
    this.#targets.set(ref, target);
    return target;
  }

  #walk(ref: string): unknown {
    let pointer: string;
    try {
      // RFC 6901 §6: the fragment is percent-decoded first, then split.
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return UNRESOLVED;
    }
    if (pointer !== '' && !pointer.startsWith('/')) return UNRESOLVED;
    let node = this.#root;
    if (pointer !== '') {
      for (const raw of pointer.slice(1).split('/')) {
        const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (Array.isArray(node)) {
          if (!ARRAY_INDEX.test(segment) || Number(segment) >= node.length) return UNRESOLVED;
          node = node[Number(segment)];
        } else if (isJsonRecord(node) && Object.hasOwn(node, segment)) {
          node = node[segment];
        } else return UNRESOLVED;
      }
    }
    return isJsonRecord(node) || typeof node === 'boolean' ? node : UNRESOLVED;
  }

  /**
   * The schemas that apply to a value described by `schemas`: themselves,
   * their `anyOf`, `oneOf` and `allOf` branches and `$ref` targets, at any
   * depth; each schema object once, so a cycle ends and a diamond costs
   * once. At most {@link MAX_SCHEMA_STEPS} schemas are reached.
   */
  applicable(schemas: readonly unknown[]): Applicable {
    if (schemas.length > 1) return this.#lookUp(schemas);
    const [schema] = schemas;
    let known = this.#single.get(schema);
    if (known === undefined) {
      known = this.#lookUp(schemas);
      this.#single.set(schema, known);
    }
    return known;
  }

  #lookUp(schemas: readonly unknown[]): Applicable {
    const found: Record<string, unknown>[] = [];
    const seen = new Set<object>();
    const queue: unknown[] = [];
    const below = new Map<string, Applicable>();
    let unknown = false;
    const reach = (schema: unknown): void => {
      if (queue.length >= MAX_SCHEMA_STEPS) unknown = true;
      else queue.push(schema);
    };
    for (const schema of schemas) reach(schema);
    // `queue` only grows: its length counts the steps, repeats included.
    for (let next = 0; next < queue.length && !unknown; next += 1) {
      const node = queue[next];
      // A boolean schema marks nothing; another value is no schema.
      if (!isJsonRecord(node) || seen.has(node)) continue;
      seen.add(node);
      found.push(node);
      for (const keyword of BRANCH_KEYWORDS) {
        const list = node[keyword];
        if (!Array.isArray(list)) continue;
        for (const branch of list) {
          reach(branch);
          if (unknown) break;
        }
      }
      for (const keyword of CONDITIONAL_KEYWORDS) {
        if (Object.hasOwn(node, keyword)) reach(node[keyword]);
      }
      for (const keyword of DEPENDENT_KEYWORDS) {
        const map = node[keyword];
        if (!isJsonRecord(map)) continue;
        // `dependencies` also takes lists of names, which are no schemas and mark nothing.
        for (const name in map) if (Object.hasOwn(map, name)) reach(map[name]);
      }
      for (const keyword of REF_KEYWORDS) {
        if (!Object.hasOwn(node, keyword)) continue;
        const target = this.resolve(node[keyword]);
        if (target === UNRESOLVED) unknown = true;
        else reach(target);
      }
    }
    const tuple = found.reduce((most, branch) => Math.max(most, tupleLength(branch)), 0);
    const secret = unknown || found.some(marksSecret);
    return { branches: found, unknown, secret, tuple, below };
  }

  /** What applies to property `key` of a value that `parent` applies to. */
  property(parent: Applicable, key: string): Applicable {
    return this.#below(parent, `p${key}`, () => propertySchemas(parent.branches, key));
  }

  /** What applies to item `index` of a list that `parent` applies to. */
  item(parent: Applicable, index: number): Applicable {
    // Items past every tuple all have the same schemas: one lookup serves them all.
    const key = index < parent.tuple ? `i${index}` : 'i*';
    return this.#below(parent, key, () => itemSchemas(parent.branches, index));
  }

  #below(parent: Applicable, key: string, schemas: () => unknown[]): Applicable {
    let found = parent.below.get(key);
    if (found === undefined) {
      // Under a value whose schemas are not known, nothing below is known either.
      found = parent.unknown
        ? { branches: [], unknown: true, secret: true, tuple: 0, below: new Map() }
        : this.applicable(schemas());
      parent.below.set(key, found);
    }
    return found;
  }
}

/** Whether the schema itself (not its branches) says `x-secret` or `writeOnly`. */
export function marksSecret(schema: Record<string, unknown>): boolean {
  return schema['x-secret'] === true || schema['writeOnly'] === true;
}

/**
 * The schemas of property `key` in each branch that has one (its own, else
 * `additionalProperties`), and every `patternProperties` schema of the
 * branch: whether a server's pattern matches the key is not decided here
 * (running it is the validator's business, on a linear engine), so each
 * one's marks apply, which withholds more rather than less.
 */
function propertySchemas(branches: readonly Record<string, unknown>[], key: string): unknown[] {
  const found: unknown[] = [];
  for (const branch of branches) {
    const properties = branch['properties'];
    if (isJsonRecord(properties) && Object.hasOwn(properties, key)) found.push(properties[key]);
    else if (branch['additionalProperties'] !== undefined) {
      found.push(branch['additionalProperties']);
    }
    const patterns = branch['patternProperties'];
    if (isJsonRecord(patterns)) {
      for (const pattern in patterns)
        if (Object.hasOwn(patterns, pattern)) found.push(patterns[pattern]);
    }
  }
  return found;
}

/** How many items a branch describes one by one (`prefixItems`, or an `items` array). */
function tupleLength(branch: Record<string, unknown>): number {
  const { prefixItems, items } = branch;
  return Math.max(
    Array.isArray(prefixItems) ? prefixItems.length : 0,
    Array.isArray(items) ? items.length : 0,
  );
}

/**
 * The schema of item `index` in each branch that has one: from a tuple
 * (`prefixItems`, or an `items` array as before JSON Schema 2020-12), else
 * the schema of the other items (`items`, `additionalItems`).
 */
function itemSchemas(branches: readonly Record<string, unknown>[], index: number): unknown[] {
  const found: unknown[] = [];
  for (const branch of branches) {
    const { prefixItems, items, additionalItems } = branch;
    if (Array.isArray(prefixItems) && index < prefixItems.length) found.push(prefixItems[index]);
    else if (Array.isArray(items)) {
      found.push(index < items.length ? items[index] : additionalItems);
    } else found.push(items);
  }
  return found.filter((schema) => schema !== undefined);
}
