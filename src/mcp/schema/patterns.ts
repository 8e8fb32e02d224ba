/**
 * Every pattern of a server's schema runs on RE2 (`re2js`, linear time),
 * never on JavaScript's backtracking engine, where `^(a+)+$` or
 * `^\d*\d*\d*x$` can stall the process for minutes. The patterns are taken
 * out of the validator's copy and checked by {@link patternProblems} where
 * that keeps the schema's meaning. Anywhere else (under `not`, `if`, an
 * `anyOf` with several string branches, a `patternProperties` key) only a
 * pattern a backtracking engine has no choice to backtrack over may stay
 * with the validator; any other refuses the schema. A pattern RE2 cannot
 * run (a look-around, a back-reference, a count above 1000) is left
 * unchecked where that only accepts more (the server remains the
 * authority, as for `format`), and refuses the schema elsewhere.
 */
import type { SchemaDraft } from '@cfworker/json-schema';
import type { PatternNode } from './pattern-check.js';
import { decodePointer, isJsonRecord, memberOf, type JsonRecord } from '../../core/json.js';
import { SchemaProblem } from './json.js';
import { detectDraft, foreignKeywordsOf } from './keywords.js';
import { compileLinear, hasNoChoice } from './linear-pattern.js';

/** Where a schema's patterns are checked, and the schema objects whose `pattern` the validator's copy must drop (the others keep one without choices). */
export interface PatternPlan {
  /** Undefined when no pattern applies to the arguments. */
  readonly root: PatternNode | undefined;
  readonly taken: ReadonlySet<JsonRecord>;
  /**
   * Objects with a `pattern` or `patternProperties` that the validator
   * never applies (under a keyword JSON Schema does not define, or one
   * the schema's dialect does not have): not judged, and their patterns
   * are dropped from the validator's copy, so that none ever runs.
   */
  readonly inert: ReadonlySet<JsonRecord>;
  /** The RE2 instructions its compiled patterns hold (what keeping them costs). */
  readonly instructions: number;
}

/**
 * Most RE2 instructions the patterns of one schema may compile to. A
 * pattern of twenty characters can compile to a thousand (`[\s\S]{999}`),
 * and compiling and keeping them costs time and memory in proportion
 * (≈ 2 µs and ≈ 170 bytes each here): 2,500 such patterns in one schema
 * stalled a connect for 4.5 s and kept 400 MB. Real patterns take 5 to 50;
 * `^.{0,1000}$` takes 2,000.
 */
export const MAX_SCHEMA_PATTERN_INSTRUCTIONS = 10_000;

/**
 * What the patterns of several schemas may still compile to, shared by the
 * checks of one listing: a server's tools together are bounded too.
 */
export interface PatternBudget {
  /** The bound, for the refusal's message. */
  readonly instructions: number;
  instructionsLeft: number;
}

/** How a schema object was reached from the root. */
const PLAIN = 1; // through properties, items, allOf, $ref: its pattern holds for every value there
const STRING = 2; // through the one string branch of an anyOf/oneOf: its pattern holds for strings there
const OTHER = 4; // through anything else: its pattern cannot be taken out

/** Keywords whose value is a subschema, a list or a map of them (`items` either). */
const SINGLE = `additionalProperties additionalItems unevaluatedProperties unevaluatedItems
  contains propertyNames not if then else items`.split(/\s+/);
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies'];
const DEFINITIONS = ['$defs', 'definitions'];
const REFERENCES = ['$ref', '$dynamicRef', '$recursiveRef'];

/**
 * Plans the RE2 check of every pattern of `schema`; `patterned` are its
 * schema objects with a `pattern` or `patternProperties` (a survey's).
 * Nothing is modified.
 * @throws SchemaProblem naming a pattern that cannot be checked in linear
 *   time, or one that is no regular expression.
 */
export function planPatterns(
  schema: unknown,
  patterned: readonly JsonRecord[],
  budget?: PatternBudget,
): PatternPlan {
  const taken = new Set<JsonRecord>();
  const inert = new Set<JsonRecord>();
  if (patterned.length === 0 || !isJsonRecord(schema)) {
    return { root: undefined, taken, inert, instructions: 0 };
  }
  let instructions = 0;
  const index = indexSchema(schema);
  const reach = reachFrom(schema, index);
  const compiled = new Map<JsonRecord, NonNullable<PatternNode['own']>>();
  const unchecked = new Map<JsonRecord, { readonly pattern: string; readonly why: string }>();
  for (const node of patterned) {
    // Data or an annotation (ajv-errors' `errorMessage: { pattern: "…" }`), a keyword
    // the dialect lacks, or a sibling of a $ref in drafts 4 to 7: no pattern to judge.
    if (
      refHidesSiblings(index.draft, node) ||
      (reach.unresolved === undefined && !reach.how.has(node))
    ) {
      inert.add(node);
      continue;
    }
    const at = index.pointers.get(node) ?? '#';
    const { pattern, patternProperties } = node;
    for (const key of isJsonRecord(patternProperties) ? Object.keys(patternProperties) : []) {
      const usable = unicodePattern(key);
      if (usable !== undefined && !hasNoChoice(usable)) {
        throw new SchemaProblem(
          `"patternProperties" at ${at} has the key ${JSON.stringify(key)}, which would run on JavaScript's backtracking engine, and only a pattern without quantifiers (other than {n}), alternation or look-around cannot take more than linear time there; list the names in "properties" instead`,
        );
      }
    }
    if (typeof pattern !== 'string') continue;
    const usable = unicodePattern(pattern);
    if (usable === undefined) {
      throw new SchemaProblem(
        `"pattern" at ${at} is not a valid regular expression: ${JSON.stringify(pattern)}`,
      );
    }
    const linear = compileLinear(usable);
    // RE2 cannot run it (a look-around, a back-reference, a count above 1000):
    // where leaving it out only accepts more, it is not checked (the server
    // remains the authority, as for `format`); elsewhere the schema is refused.
    // A spelling RE2 does not read (`\p{Script=Grek}`) is refused wherever it is.
    if ('unsupported' in linear && !linear.inherent) {
      throw new SchemaProblem(
        `"pattern" at ${at} uses what the linear-time engine (RE2) cannot read, so it cannot be checked: ${linear.unsupported}`,
      );
    }
    if ('unsupported' in linear) unchecked.set(node, { pattern, why: linear.unsupported });
    else {
      compiled.set(node, { pattern, re2: linear.re2 });
      const size = linear.re2.programSize();
      instructions += size;
      if (instructions > MAX_SCHEMA_PATTERN_INSTRUCTIONS) {
        throw new SchemaProblem(
          `its patterns compile to more than ${MAX_SCHEMA_PATTERN_INSTRUCTIONS} RE2 instructions (the limit of one schema; ${pattern.length > 40 ? 'a pattern' : JSON.stringify(pattern)} at ${at} alone takes ${size}), more than checking them in bounded time and memory allows`,
        );
      }
      if (budget !== undefined) {
        budget.instructionsLeft -= size;
        if (budget.instructionsLeft < 0) {
          throw new SchemaProblem(
            `the patterns of the server's schemas together compile to more than ${budget.instructions} RE2 instructions, more than checking them in bounded time and memory allows`,
          );
        }
      }
    }
    taken.add(node);
  }
  for (const [node, { pattern, why }] of unchecked) {
    if (reach.unresolved === undefined && ((reach.how.get(node) ?? 0) & OTHER) === 0) continue;
    throw new SchemaProblem(
      `pattern ${JSON.stringify(pattern)} at ${index.pointers.get(node) ?? '#'} cannot be checked in linear time (${why}), and it sits where leaving it out would change what the schema refuses`,
    );
  }
  for (const [node, own] of compiled) {
    const how = reach.how.get(node) ?? 0;
    const at = index.pointers.get(node) ?? '#';
    if (reach.unresolved !== undefined || (how & OTHER) !== 0) {
      // Where RE2 cannot take it, only a pattern without choices may stay with the validator.
      taken.delete(node);
      if (hasNoChoice(unicodePattern(own.pattern) ?? own.pattern)) continue;
      throw new SchemaProblem(
        reach.unresolved !== undefined
          ? `pattern ${JSON.stringify(own.pattern)} at ${at} cannot be checked in linear time: "$ref" ${JSON.stringify(reach.unresolved)} of the schema does not resolve to one place inside it (a JSON Pointer to a subschema, or a unique anchor of a single resource), so where the pattern applies is unknown`
          : `pattern ${JSON.stringify(own.pattern)} at ${at} sits under "${reach.via.get(node) ?? '?'}", where it cannot be checked in linear time; patterns are checked (with RE2) under "properties", "items", "allOf", "$ref", and the one branch of an "anyOf" or "oneOf" that admits strings (elsewhere, only one without quantifiers, alternation or look-around)`,
      );
    }
    const checked = reach.nodes.get(node);
    if (checked !== undefined) checked.own = own;
    // A pattern reached by nothing never applies (the validator would not read it either).
  }
  return { root: pruned(reach.nodes, reach.nodes.get(schema)), taken, inert, instructions };
}

/** Pointers of every subschema (definitions included), anchors, and whether a nested resource changes how `$ref`s resolve. */
function indexSchema(root: JsonRecord): {
  readonly pointers: Map<JsonRecord, string>;
  readonly anchors: Map<string, JsonRecord | null>;
  readonly draft: SchemaDraft;
  readonly nestedResource: boolean;
} {
  let draft: SchemaDraft = '2020-12';
  try {
    draft = detectDraft(root);
  } catch {
    // The analysis refuses the schema with the reason; read it as 2020-12 until then.
  }
  const pointers = new Map<JsonRecord, string>();
  const anchors = new Map<string, JsonRecord | null>();
  let nestedResource = false;
  const stack: [JsonRecord, string][] = [[root, '#']];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, pointer] = next;
    if (pointers.has(node)) continue;
    pointers.set(node, pointer);
    for (const name of [node['$anchor'], node['$dynamicAnchor']]) {
      // An anchor named twice (or once as each kind on different nodes) is ambiguous: null.
      if (typeof name === 'string') anchors.set(name, anchors.has(name) ? null : node);
    }
    const id = draft === '4' ? node['id'] : node['$id'];
    if (node !== root && typeof id === 'string' && !id.startsWith('#')) nestedResource = true;
    for (const [keyword, key, child] of subschemas(node, [...DEFINITIONS])) {
      stack.push([child, `${pointer}/${keyword}${key === undefined ? '' : `/${key}`}`]);
    }
  }
  return { pointers, anchors, draft, nestedResource };
}

/**
 * How each schema object is reached from the root ({@link PLAIN},
 * {@link STRING}, {@link OTHER}, or'ed), the keyword that made a path
 * {@link OTHER}, and a {@link PatternNode} for each reached plainly or as
 * a string branch, linked as they apply.
 */
function reachFrom(
  root: JsonRecord,
  index: ReturnType<typeof indexSchema>,
): {
  readonly how: Map<JsonRecord, number>;
  readonly via: Map<JsonRecord, string>;
  readonly nodes: Map<JsonRecord, PatternNode>;
  /** The first `$ref` that could not be followed, if any: where patterns apply is then unknown. */
  readonly unresolved: string | undefined;
} {
  // The validator's copy has none of them (see dropForeignKeywords).
  const foreign = new Set(foreignKeywordsOf(root));
  const how = new Map<JsonRecord, number>();
  const via = new Map<JsonRecord, string>();
  const nodes = new Map<JsonRecord, PatternNode>();
  let unresolved: string | undefined;
  const nodeOf = (schema: JsonRecord): PatternNode => {
    let node = nodes.get(schema);
    if (node === undefined) {
      node = {
        own: undefined,
        properties: new Map(),
        tuple: [],
        items: undefined,
        names: undefined,
        others: undefined,
        also: [],
        ifString: [],
      };
      nodes.set(schema, node);
    }
    return node;
  };
  const pending: [JsonRecord, number, string | undefined][] = [[root, PLAIN, undefined]];
  const reachOther = (child: JsonRecord, keyword: string, cause: string | undefined): void => {
    pending.push([child, OTHER, cause ?? keyword]);
  };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [schema, mode, cause] = next;
    const seen = how.get(schema) ?? 0;
    if ((seen & mode) !== 0) continue;
    how.set(schema, seen | mode);
    if (mode === OTHER && !via.has(schema)) via.set(schema, cause ?? '?');
    const node = mode === OTHER ? undefined : nodeOf(schema);
    const tuple = schema['prefixItems'] ?? schema['items'];
    if (node !== undefined && mode === PLAIN && Array.isArray(tuple)) {
      node.tuple.length = tuple.length;
    }
    for (const keyword of REFERENCES) {
      const ref = schema[keyword];
      if (typeof ref !== 'string' || foreign.has(keyword)) continue;
      const target = index.nestedResource ? undefined : resolve(root, ref, index.anchors);
      if (target === undefined) unresolved ??= ref;
      else if (target !== null) {
        // A target outside the subschemas (under `examples`, say) is named by the reference.
        if (!index.pointers.has(target)) index.pointers.set(target, ref);
        pending.push([target, mode, cause]);
        node?.also.push(nodeOf(target));
      }
    }
    if (refHidesSiblings(index.draft, schema)) continue;
    for (const [keyword, key, child] of subschemas(schema, [])) {
      if (foreign.has(keyword)) continue;
      if (node === undefined) {
        reachOther(child, keyword, cause);
        continue;
      }
      const member = mode === PLAIN ? memberEdge(schema, keyword, key) : undefined;
      if (member === 'names') {
        // Its patterns apply to the names, which are strings.
        pending.push([child, STRING, cause]);
        node.names = nodeOf(child);
      } else if (member !== undefined) {
        pending.push([child, PLAIN, cause]);
        const linked = nodeOf(child);
        if (member === 'items') node.items = linked;
        else if (member === 'tuple') node.tuple[Number(key)] = linked;
        else if (member === 'property') node.properties.set(key ?? '', linked);
        else {
          const named = isJsonRecord(schema['properties']) ? schema['properties'] : {};
          node.others = { schema: linked, declared: new Set(Object.keys(named)) };
        }
      } else if (keyword === 'allOf') {
        pending.push([child, mode, cause]);
        node.also.push(nodeOf(child));
      } else if (keyword === 'anyOf' || keyword === 'oneOf') {
        const strings = (schema[keyword] as unknown[]).filter((branch) =>
          admitsStrings(branch, index.draft),
        );
        if (strings.length === 1 && strings[0] === child) {
          pending.push([child, STRING, keyword]);
          node.ifString.push(nodeOf(child));
        } else reachOther(child, keyword, cause);
      } else reachOther(child, keyword, cause);
    }
  }
  return { how, via, nodes, unresolved };
}

/** The schema object a local `$ref` names; null for a boolean schema; undefined when it cannot be told. */
function resolve(
  root: JsonRecord,
  ref: string,
  anchors: ReadonlyMap<string, JsonRecord | null>,
): JsonRecord | null | undefined {
  if (!ref.startsWith('#')) return undefined;
  if (ref.length > 1 && ref[1] !== '/') {
    const anchored = anchors.get(ref.slice(1));
    return anchored ?? undefined;
  }
  let target: unknown = root;
  for (const segment of decodePointer(ref.slice(1))) target = memberOf(target, segment);
  if (isJsonRecord(target)) return target;
  return typeof target === 'boolean' ? null : undefined;
}

/**
 * How the subschema at `keyword` (`key`) of `schema` applies to members of
 * the value, as the validator reads it: to the property `key`, the
 * properties `properties` does not name, an item of the tuple, every later
 * item, or the property names; undefined when it
 * does not apply plainly (a tuple in both `prefixItems` and `items`) or
 * not at all (`additionalItems` beside `items` as one schema).
 */
function memberEdge(
  schema: JsonRecord,
  keyword: string,
  key: string | undefined,
): 'property' | 'others' | 'tuple' | 'items' | 'names' | undefined {
  const listedItems = Array.isArray(schema['items']);
  if (keyword === 'properties') return 'property';
  if (keyword === 'propertyNames') return 'names';
  // Beside patternProperties it applies to the names their patterns leave.
  if (keyword === 'additionalProperties') {
    return schema['patternProperties'] === undefined ? 'others' : undefined;
  }
  if (keyword === 'items') {
    if (key === undefined) return 'items';
    return schema['prefixItems'] === undefined ? 'tuple' : undefined;
  }
  if (keyword === 'prefixItems') return listedItems ? undefined : 'tuple';
  // Only beside a tuple: otherwise it is ignored (draft-07 §6.4.2, 2019-09 §9.3.1.2).
  if (keyword === 'additionalItems') return listedItems ? 'items' : undefined;
  return undefined;
}

/**
 * Whether a branch could accept a string: a `type` that leaves strings
 * out says no, unless the draft ignores it beside a `$ref` (the target,
 * not read here, then decides).
 */
function admitsStrings(branch: unknown, draft: SchemaDraft): boolean {
  if (branch === false) return false;
  if (!isJsonRecord(branch) || branch['type'] === undefined || refHidesSiblings(draft, branch)) {
    return true;
  }
  const type = branch['type'];
  return Array.isArray(type) ? type.includes('string') : type === 'string';
}

/** The object subschemas of `node` that the validator applies (and `extra` keywords' ones). */
function subschemas(
  node: JsonRecord,
  extra: readonly string[],
): [keyword: string, key: string | undefined, child: JsonRecord][] {
  const children: [string, string | undefined, JsonRecord][] = [];
  for (const keyword of SINGLE) {
    const value = node[keyword];
    if (isJsonRecord(value)) children.push([keyword, undefined, value]);
  }
  for (const keyword of LISTS) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    list.forEach((item, i) => {
      if (isJsonRecord(item)) children.push([keyword, String(i), item]);
    });
  }
  for (const keyword of [...MAPS, ...extra]) {
    const map = node[keyword];
    if (!isJsonRecord(map)) continue;
    for (const [name, sub] of Object.entries(map)) {
      if (isJsonRecord(sub)) children.push([keyword, name, sub]);
    }
  }
  return children;
}

/** `root` without the links that lead to no pattern, or undefined when none is left. */
function pruned(
  nodes: ReadonlyMap<JsonRecord, PatternNode>,
  root: PatternNode | undefined,
): PatternNode | undefined {
  const parents = new Map<PatternNode, PatternNode[]>();
  for (const node of nodes.values()) {
    const children = [...node.properties.values(), ...node.also, ...node.ifString];
    for (const child of [...node.tuple, node.items, node.names, node.others?.schema]) {
      if (child) children.push(child);
    }
    for (const child of children) parents.set(child, [...(parents.get(child) ?? []), node]);
  }
  const useful = new Set<PatternNode>();
  const stack = [...nodes.values()].filter((node) => node.own !== undefined);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (useful.has(next)) continue;
    useful.add(next);
    stack.push(...(parents.get(next) ?? []));
  }
  for (const node of useful) {
    for (const [name, child] of node.properties)
      if (!useful.has(child)) node.properties.delete(name);
    if (node.items !== undefined && !useful.has(node.items)) node.items = undefined;
    if (node.names !== undefined && !useful.has(node.names)) node.names = undefined;
    if (node.others !== undefined && !useful.has(node.others.schema)) node.others = undefined;
    node.tuple.forEach((child, i) => {
      if (child !== undefined && !useful.has(child)) node.tuple[i] = undefined;
    });
    node.also = node.also.filter((child) => useful.has(child));
    node.ifString = node.ifString.filter((child) => useful.has(child));
  }
  return root !== undefined && useful.has(root) ? root : undefined;
}

/** Characters that keep their escape in Unicode mode; other escapes are legacy identity escapes. */
const UNICODE_ESCAPABLE = new Set('^$\\.*+?()[]{}|/');

/**
 * The pattern in a form the `u`-flag grammar accepts, or `undefined`. A
 * needless escape (`\_`, `\@`), which other languages allow, means the bare
 * character, so its backslash is dropped.
 */
export function unicodePattern(pattern: string): string | undefined {
  if (compiles(pattern)) return pattern;
  let repaired = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    const next = pattern[i + 1];
    if (char === '\\') {
      if (next === undefined) return undefined;
      i++;
      const keep =
        /[A-Za-z0-9]/.test(next) || UNICODE_ESCAPABLE.has(next) || (inClass && next === '-');
      repaired += keep ? `\\${next}` : next;
      continue;
    }
    if (char === '[' || char === ']') inClass = char === '[';
    repaired += char;
  }
  return compiles(repaired) ? repaired : undefined;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** Whether `schema`'s `$ref` hides the keywords beside it: drafts 4 to 7 ignore them. */
function refHidesSiblings(draft: SchemaDraft, schema: JsonRecord): boolean {
  return (draft === '4' || draft === '7') && typeof schema['$ref'] === 'string';
}
