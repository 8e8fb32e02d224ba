/**
 * From a tool's input schema to the check of its arguments: one walk
 * refuses what cannot be honoured (remote or dangling `$ref`, malformed
 * keywords, a non-object top level) and prepares the validator's copy.
 * Nothing here evaluates schema text.
 */
import { dereference, validate, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { messageOf } from '../../core/errors.js';
import { describeTyped, type ArgumentProblem } from './issues.js';
import { checkKeywordValues, childSchemas, detectDraft } from './keywords.js';
import {
  decodePointer,
  isJsonRecord,
  memberOf,
  type JsonRecord,
  type JsonData,
} from '../../core/json.js';
import { MAX_SAME_VALUE_SCHEMAS } from './bounds.js';
import { SchemaProblem } from './json.js';
import { asSent } from './json-data.js';
import { problemsFromOutputUnits } from './output-units.js';
import { hasNoChoice } from './linear-pattern.js';
import { patternProblems, type PatternNode } from './pattern-check.js';
import { unicodePattern } from './patterns.js';

/** Everything wrong with `value`; empty when it is valid. Never throws. */
export type ArgumentCheck = (value: unknown) => ArgumentProblem[];

/**
 * The check of arguments against `document`, which becomes the validator's
 * copy (`format` dropped, patterns in `u`-flag form, `$dynamicRef` as
 * `$ref`, no pattern left): @cfworker/json-schema's interpreter (no code
 * generated) reporting every error, then the patterns of `patterns` (RE2).
 * @throws {SchemaProblem} naming the first thing that makes the schema unusable.
 */
export function createArgumentCheck(
  document: JsonRecord,
  patterns: PatternNode | undefined,
): ArgumentCheck {
  const draft = detectDraft(document);
  const type = document['type'];
  const types = Array.isArray(type) ? type : [type];
  if (type !== undefined && (types.length === 0 || types.some((name) => name !== 'object'))) {
    throw new SchemaProblem(
      `top-level "type" must be "object" (MCP tools take an object of named arguments), received ${JSON.stringify(type)}`,
    );
  }
  const enums = countedEnums();
  const walk = new Walk(document, draft, enums);
  walk.visit(document, '#');
  walk.rewriteDynamicRefs();
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(document);
  } catch (error) {
    throw new SchemaProblem(`schema identifiers do not resolve: ${messageOf(error)}`);
  }
  walk.checkRefs(lookup);
  const counted = countedLookup(lookup);
  const refs = walk.refCount;
  /** The schema value at a validator `keywordLocation`; `$ref` leads to its target in the lookup. */
  const locate = (location: string): JsonData | undefined =>
    decodePointer(location).reduce<JsonData | undefined>(
      (node, segment) =>
        segment === '$ref' && isJsonRecord(node)
          ? lookup[(node as Schema).__absolute_ref__ ?? '']
          : memberOf(node, segment),
      document,
    );
  const accepts = flatAcceptor(document);
  return (given) => {
    if (!isJsonRecord(given)) {
      const message = `the arguments must be an object; received ${describeTyped(given)}`;
      return [{ path: [], keyword: 'type', message }];
    }
    try {
      // Flat arguments of listed scalars are JSON data as they stand: one look, no walk.
      if (accepts?.(given, true) === true) return patternProblems(patterns, given);
      // Checked as the server will receive them.
      const sent = asSent(given);
      if ('message' in sent) return [{ path: sent.path, keyword: 'type', message: sent.message }];
      const value = sent.value as JsonRecord;
      if (accepts?.(value) === true) return patternProblems(patterns, value);
      const values = refs > 0 || enums.counting ? countValues(value) : 0;
      if (refs > 0) counted.reset(refBudget(refs, values));
      if (enums.counting) enums.reset(MIN_ENUM_COMPARISONS + ENUM_COMPARISONS_PER_VALUE * values);
      const result = validate(value, document, draft, counted.lookup, false);
      const problems = result.valid ? [] : problemsFromOutputUnits(result.errors, value, locate);
      return [...problems, ...patternProblems(patterns, value)];
    } catch (error) {
      // Refuse rather than let unchecked arguments through (a getter or proxy that throws).
      const message = `the arguments could not be validated: ${messageOf(error)}`;
      return [{ path: [], keyword: 'error', message }];
    }
  };
}

/** The `$ref` steps any check may take. */
const MIN_REF_STEPS = 1_000;

/**
 * How many `$ref` steps one check of `value` may take. `$ref`s that branch
 * into the same targets again and again (`allOf` of two refs to the next
 * level, twenty levels deep, or two ways down to the same property on every
 * level of the arguments) make the validator's work exponential without any
 * loop, and only a reference can share a subschema (the validator's copy
 * comes from JSON text): counting them bounds the work. A check without
 * such sharing follows each of the schema's `refs` at most once for each
 * value in the arguments, so the budget grows with both, on top of the
 * sharing on one value that connect accepts ({@link MAX_SAME_VALUE_SCHEMAS}).
 */
function refBudget(refs: number, values: number): number {
  return MIN_REF_STEPS + MAX_SAME_VALUE_SCHEMAS + 2 * refs * (values + 1);
}

/** An enum shorter than this is not counted: comparing a value with a few costs next to nothing. */
const COUNTED_ENUM_LENGTH = 64;
/** Comparisons with the values of long enums that any check may make… */
const MIN_ENUM_COMPARISONS = 10_000_000;
/** …and, beyond those, per JSON value the checked data holds. */
const ENUM_COMPARISONS_PER_VALUE = 256;

/**
 * The long enums of the validator's copy, counting the values the
 * validator compares with (it goes through an enum one value after the
 * other): a 38,000-value enum checked against each of 20,000 items of a
 * result took 5 s. Past the budget set for one check it throws, and the
 * check refuses the data with the reason.
 */
function countedEnums(): {
  /** Whether the schema has a long enum, whose comparisons are counted. */
  readonly counting: boolean;
  /** Counts the comparisons with `values` from now on. */
  count(values: unknown[]): void;
  /** Starts a check that may make `budget` comparisons. */
  reset(budget: number): void;
} {
  let compared = 0;
  let budget = 0;
  let counting = false;
  return {
    get counting() {
      return counting;
    },
    count(values) {
      if (values.length < COUNTED_ENUM_LENGTH) return;
      counting = true;
      // The validator asks `some` of the enum: it is told how long the walk may be first.
      Object.defineProperty(values, 'some', {
        value(this: unknown[], predicate: (value: unknown, index: number) => boolean): boolean {
          compared += this.length;
          if (compared > budget) {
            throw new SchemaProblem(
              `checking them would compare them with the values of the schema's long enums more than ${budget} times`,
            );
          }
          return Array.prototype.some.call(this, predicate);
        },
      });
    },
    reset(allowed) {
      compared = 0;
      budget = allowed;
    },
  };
}

/** How many JSON values `value` holds, itself included. */
function countValues(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined || pending.length > 0; next = pending.pop()) {
    count++;
    if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (isJsonRecord(next)) for (const key in next) pending.push(next[key]);
  }
  return count;
}

/**
 * The validator's lookup, counting the reads the validator makes to follow
 * a `$ref`; past the budget set for one check it throws, and the check
 * refuses the arguments with the reason.
 */
function countedLookup(lookup: Record<string, Schema | boolean>): {
  readonly lookup: Record<string, Schema | boolean>;
  /** Starts a check that may take `budget` steps. */
  reset(budget: number): void;
} {
  let steps = 0;
  let budget = 0;
  const counted = new Proxy(lookup, {
    get(target, key, receiver) {
      steps += 1;
      if (steps > budget) {
        throw new SchemaProblem(
          `checking them followed the schema's $refs more than ${budget} times: its references branch into the same subschemas again and again`,
        );
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return {
    lookup: counted,
    reset: (allowed) => {
      steps = 0;
      budget = allowed;
    },
  };
}

/** Checks of the scalar types a flat schema's properties may have. */
const SCALARS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
};
const ANNOTATIONS = ['title', 'description', '$comment', 'default', 'examples', 'type'];
const FLAT_ROOT = new Set([...ANNOTATIONS, 'properties', 'required', 'additionalProperties']);
const FLAT_PROPERTY = new Set(ANNOTATIONS);

/**
 * A quick yes for arguments of a flat schema (scalar-typed properties,
 * `required`, a boolean `additionalProperties`, annotations), the most
 * common tool schema; a no sends them through the full check, which says
 * what is wrong. `asGiven`: the yes also says that they are JSON data as
 * they stand, with no look for what JSON cannot carry (`json-data.ts`):
 * a plain object whose every member is a listed property (each check
 * takes JSON's scalars only: no `undefined`, `NaN`, object of a class).
 * Undefined for any other schema.
 */
function flatAcceptor(
  document: JsonRecord,
): ((value: JsonRecord, asGiven?: boolean) => boolean) | undefined {
  const { properties = {}, required = [], additionalProperties = true } = document;
  if (Object.keys(document).some((key) => !FLAT_ROOT.has(key) && key !== '$schema')) return;
  if (!isJsonRecord(properties) || !Array.isArray(required)) return;
  if (typeof additionalProperties !== 'boolean') return;
  const checks = new Map<string, (value: unknown) => boolean>();
  for (const [name, sub] of Object.entries(properties)) {
    if (!isJsonRecord(sub) || !Object.keys(sub).every((key) => FLAT_PROPERTY.has(key))) return;
    const type = sub['type'];
    const check =
      typeof type === 'string' && Object.hasOwn(SCALARS, type) ? SCALARS[type] : undefined;
    if (check === undefined) return;
    checks.set(name, check);
  }
  return (value, asGiven = false) => {
    if (asGiven) {
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
    }
    for (const name of required)
      if (typeof name !== 'string' || !Object.hasOwn(value, name)) return false;
    for (const key of Object.keys(value)) {
      const check = checks.get(key);
      if (check === undefined ? asGiven || !additionalProperties : !check(value[key])) return false;
    }
    return true;
  };
}

/** Longest JSON text of an `enum` or `const` (or of one of an enum's values) that a message may write out. */
const MAX_QUOTED_DATA_CHARS = 256;

/**
 * A long string `const` of the validator's copy as the one value of an
 * `enum` (the same check), which {@link quietData} can give a short note:
 * a string cannot carry one. Problems with it name the keyword `enum`.
 */
function quietLongConst(node: JsonRecord): void {
  const value = node['const'];
  if (typeof value !== 'string' || value.length <= MAX_QUOTED_DATA_CHARS) return;
  const values = node['enum'];
  delete node['const'];
  // With an enum beside it, the value must be in both.
  node['enum'] = !Array.isArray(values) || values.includes(value) ? [value] : [];
}

/**
 * Makes data of the validator's copy (`enum`, `const`) short to write: the
 * validator writes a whole `enum` or `const` into the error of every value
 * it refuses, so a 200 KB enum refused for each of 2,000 items wrote 400 MB
 * of messages and could exhaust the heap. Past
 * {@link MAX_QUOTED_DATA_CHARS}, the value writes as a note of its size (a
 * `toJSON` that no comparison reads: they compare members). The problems
 * reported name values from the same copy, a few of them each.
 */
function quietData(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const chars = JSON.stringify(value).length;
  if (chars <= MAX_QUOTED_DATA_CHARS) return;
  const note = `(${Array.isArray(value) ? `${value.length} values` : 'an object'}, ${chars} characters of JSON)`;
  Object.defineProperty(value, 'toJSON', { value: () => note, enumerable: false });
  if (Array.isArray(value)) for (const item of value as unknown[]) quietData(item);
}

/** One pass over the subschemas, collecting what reference resolution needs. */
class Walk {
  /** The pointer each visited subschema was first reached at. */
  readonly pointers = new Map<JsonRecord, string>();
  private readonly refNodes: JsonRecord[] = [];

  /** How many `$ref`s the validator may follow (its lookup is read once per step). */
  get refCount(): number {
    return this.refNodes.length;
  }
  /** Nodes with a `$dynamicRef` or a `$recursiveRef`, rewritten before `dereference`. */
  private readonly dynamicRefs: JsonRecord[] = [];
  private readonly anchors = new Map<string, string[]>();
  private nestedResources = 0;
  /** Cleared once `dereference` has run: later edits could not reach the lookup. */
  private beforeDereference = true;

  /** Where the schema has a `contains` and an `unevaluatedItems`, once met. */
  private contains: string | undefined;
  private unevaluatedItems: string | undefined;

  constructor(
    private readonly root: JsonRecord,
    private readonly draft: SchemaDraft,
    private readonly enums: ReturnType<typeof countedEnums>,
  ) {}

  /** Visits every subschema reachable from `start` without following `$ref`. */
  visit(start: JsonRecord, startPointer: string): void {
    // With each node, the pointer of the nested resource it lies in, if any.
    const stack: [JsonRecord, string, string | undefined][] = [[start, startPointer, undefined]];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const [node, pointer, outerResource] = next;
      if (this.pointers.has(node)) continue;
      this.pointers.set(node, pointer);
      const resource = this.check(node, pointer) ? pointer : outerResource;
      if (resource !== undefined) refuseNestedAnchor(node, pointer, resource);
      for (const [suffix, child] of childSchemas(node, pointer))
        stack.push([child, pointer + suffix, resource]);
    }
  }

  /**
   * In 2019-09, `contains` does not count as evaluating the items it
   * matches for `unevaluatedItems` (it does in 2020-12); the validator
   * counts them in every dialect, so it would pass arguments the schema
   * refuses. Such a schema is refused, not checked loosely.
   */
  private refuseContainsBesideUnevaluated(node: JsonRecord, pointer: string): void {
    if (Object.hasOwn(node, 'contains')) this.contains ??= pointer;
    if (Object.hasOwn(node, 'unevaluatedItems')) this.unevaluatedItems ??= pointer;
    if (this.contains === undefined || this.unevaluatedItems === undefined) return;
    throw new SchemaProblem(
      `"unevaluatedItems" at ${this.unevaluatedItems} and "contains" at ${this.contains} cannot be checked together in draft 2019-09, where "contains" evaluates no item (the validator would count them); declare 2020-12, where it does, or do without one of them`,
    );
  }

  /** Checks `node`; true when it starts a nested resource (an `$id` of its own, not a fragment). */
  private check(node: JsonRecord, pointer: string): boolean {
    checkKeywordValues(node, pointer, this.draft);
    if (this.draft === '2019-09') this.refuseContainsBesideUnevaluated(node, pointer);
    quietLongConst(node);
    quietData(node['enum']);
    quietData(node['const']);
    const values = node['enum'];
    if (Array.isArray(values)) this.enums.count(values);
    // An annotation by default in 2020-12; see docs/schemas.md for why we never assert it.
    if (typeof node['format'] === 'string') delete node['format'];
    if (this.draft !== '4' && this.beforeDereference && typeof node['id'] === 'string') {
      // `id` is only an identifier in draft 4; the validator would still read it as a base URI.
      delete node['id'];
    }
    const id = this.draft === '4' ? node['id'] : node['$id'];
    const nested = typeof id === 'string' && node !== this.root && !id.startsWith('#');
    if (nested) this.nestedResources++;
    for (const name of [node['$anchor'], node['$dynamicAnchor']].filter(isString)) {
      this.anchors.set(name, [...(this.anchors.get(name) ?? []), pointer]);
    }
    for (const keyword of ['$ref', '$dynamicRef'] as const) {
      const ref = node[keyword];
      if (typeof ref !== 'string') continue;
      if (!ref.startsWith('#')) {
        throw new SchemaProblem(
          `${keyword} ${JSON.stringify(ref)} at ${pointer} is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched`,
        );
      }
      if (keyword === '$ref') this.refNodes.push(node);
      else if (this.beforeDereference) this.dynamicRefs.push(node);
      else {
        throw new SchemaProblem(
          `"$dynamicRef" at ${pointer} sits where only a $ref leads; it is not supported there`,
        );
      }
    }
    // Its value is "#" (checkKeywordValues says so otherwise).
    if (typeof node['$recursiveRef'] === 'string') {
      if (!this.beforeDereference) {
        throw new SchemaProblem(
          `"$recursiveRef" at ${pointer} sits where only a $ref leads; it is not supported there`,
        );
      }
      this.dynamicRefs.push(node);
    }
    // `planPatterns` took the patterns out for RE2, or refused the schema,
    // but for those without choices: nothing else runs on a backtracking
    // engine, here too where a $ref leads into data.
    if (isString(node['pattern'])) {
      node['pattern'] = choicelessPattern(node['pattern'], `"pattern" at ${pointer}`);
    }
    const patternProperties = node['patternProperties'];
    if (isJsonRecord(patternProperties)) repairPatternKeys(patternProperties, pointer);
    return nested;
  }

  /**
   * `$dynamicRef` and `$recursiveRef` are rewritten to a plain `$ref` where
   * that is exact: a single schema resource (and, for `$dynamicRef`, a
   * unique anchor of that name), so dynamic scope cannot pick a different
   * target. @cfworker/json-schema ignores `$dynamicRef`, and follows a
   * `$recursiveRef` without reading its lookup, where the `$ref` steps of
   * a check are counted.
   */
  rewriteDynamicRefs(): void {
    for (const node of this.dynamicRefs) {
      if (typeof node['$recursiveRef'] === 'string') {
        if (this.nestedResources > 0 || node['$ref'] !== undefined) {
          throw new SchemaProblem(
            `"$recursiveRef" at ${this.pointers.get(node) ?? '#'} is only supported in a single-resource schema and with no "$ref" beside it`,
          );
        }
        delete node['$recursiveRef'];
        node['$ref'] = '#';
        this.refNodes.push(node);
        continue;
      }
      const ref = node['$dynamicRef'] as string;
      const targets = this.anchors.get(ref.slice(1)) ?? [];
      if (this.nestedResources > 0 || targets.length !== 1 || node['$ref'] !== undefined) {
        throw new SchemaProblem(
          `"$dynamicRef" ${JSON.stringify(ref)} at ${this.pointers.get(node) ?? '#'} is only supported in a single-resource schema with exactly one anchor of that name and no "$ref" beside it`,
        );
      }
      delete node['$dynamicRef'];
      node['$ref'] = fragmentOf(targets[0] ?? '#');
      this.refNodes.push(node);
    }
    this.beforeDereference = false;
  }

  /**
   * Resolves every `$ref` through the validator's own lookup, so both agree,
   * and walks the targets reached only by reference (under unknown keywords).
   */
  checkRefs(lookup: Record<string, Schema | boolean>): void {
    // The list grows while it is read.
    for (let i = 0; i < this.refNodes.length; i++) {
      const node = this.refNodes[i] as JsonRecord & Schema;
      const target = lookup[node.__absolute_ref__ ?? ''];
      const ref = JSON.stringify(node['$ref']);
      const at = this.pointers.get(node) ?? '#';
      if (target === undefined) {
        throw new SchemaProblem(`"$ref" ${ref} at ${at} does not resolve inside the schema`);
      }
      if (isJsonRecord(target) && !this.pointers.has(target))
        this.visit(target, `${ref} (via ${at})`);
    }
  }
}

/**
 * `pattern` in `u`-flag form.
 * @throws {SchemaProblem} `${what} is not a valid regular expression`, or
 *   names it as one a backtracking engine could take exponential time on.
 */
function choicelessPattern(pattern: string, what: string): string {
  const usable = unicodePattern(pattern);
  if (usable === undefined) {
    throw new SchemaProblem(
      `${what} is not a valid regular expression: ${JSON.stringify(pattern)}`,
    );
  }
  if (!hasNoChoice(usable)) {
    throw new SchemaProblem(
      `pattern ${JSON.stringify(pattern)} (${what}) is where it cannot be checked in linear time (RE2), and a backtracking engine could take exponential time on it`,
    );
  }
  return usable;
}

/** `#/a/b` (a JSON Pointer as we write them) as a URI fragment `$ref` value. */
function fragmentOf(pointer: string): string {
  try {
    return '#' + encodeURI(pointer.slice(1)).replace(/#/g, '%23');
  } catch (error) {
    // encodeURI refuses lone surrogates, which a JSON key may hold.
    throw new SchemaProblem(`cannot refer to ${pointer}: ${messageOf(error)}`);
  }
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/**
 * `patternProperties` keys in the form the validator reads (see
 * `choicelessPattern`); a key that becomes one the schema already has
 * (`^\\_a` beside `^_a`) adds its schema to that key's: both apply.
 */
function repairPatternKeys(patternProperties: JsonRecord, pointer: string): void {
  for (const [key, sub] of Object.entries(patternProperties)) {
    const usable = choicelessPattern(key, `"patternProperties" at ${pointer} has a key that`);
    if (usable === key) continue;
    delete patternProperties[key];
    // Written as another key the schema has (`^\\_a` beside `^_a`): both apply.
    const other = Object.hasOwn(patternProperties, usable) ? patternProperties[usable] : undefined;
    patternProperties[usable] = other === undefined ? sub : { allOf: [other, sub] };
  }
}

/**
 * Refuses an anchor in a nested resource (`resource`, a subschema with an
 * `$id` of its own): it belongs to that resource's base URI alone, but the
 * validator's lookup also finds it from the outer one, so a `$ref` there
 * could reach the wrong schema, or one it must not reach.
 */
function refuseNestedAnchor(node: JsonRecord, pointer: string, resource: string): void {
  // An `$id` (`id` in draft 4) that is a fragment names an anchor too.
  const anchored = ['$anchor', '$dynamicAnchor', '$id', 'id'].find((keyword) => {
    const value = node[keyword];
    return isString(value) && (keyword.endsWith('nchor') || value.startsWith('#'));
  });
  if (anchored === undefined) return;
  throw new SchemaProblem(
    `"${anchored}" at ${pointer} lies in the nested resource at ${resource} (a subschema with an "$id" of its own); anchors are only supported in the schema's root resource`,
  );
}
