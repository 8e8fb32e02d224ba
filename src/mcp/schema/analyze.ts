/**
 * Walks a tool's input schema once, before anything is built from it:
 * refuses what cannot be honoured (remote or dangling `$ref`, malformed
 * keywords, a non-object top level), prepares an owned copy for the JSON
 * Schema validator, resolves every reference, and lists what zod's
 * `fromJSONSchema` would get wrong. Nothing here evaluates schema text.
 */
import { dereference, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import {
  ASSERTING_KEYWORDS,
  detectDraft,
  NON_NEGATIVE_INTEGER_KEYWORDS,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
  TYPE_NAMES,
  TYPED_KEYWORDS,
  ZOD_UNSUPPORTED,
} from './keywords.js';
import {
  escapePointerSegment,
  hasJsonType,
  isJsonObject,
  SchemaProblem,
  type JsonObject,
  type JsonValue,
} from './json.js';
import { isModeIndependentPattern, unicodePattern } from './regex.js';

/** A node where a schema may stand: an object or a boolean. */
export type SchemaNode = JsonObject | boolean;

/** What {@link analyzeSchema} learns about a schema. */
export interface SchemaAnalysis {
  /**
   * The owned copy, ready for @cfworker/json-schema: `format` removed (an
   * annotation, see `docs/schemas.md`), patterns in `u`-flag form,
   * `$dynamicRef` rewritten to `$ref`. Already dereferenced into `lookup`.
   */
  readonly document: JsonObject;
  /** The dialect the schema is read in. */
  readonly draft: SchemaDraft;
  /** Every schema the validator can reach by URI, built by `dereference`. */
  readonly lookup: Record<string, Schema | boolean>;
  /** The schema each `$ref`-bearing node of `document` points at. */
  readonly refTargets: ReadonlyMap<JsonObject, SchemaNode>;
  /**
   * Where zod's converter would not be faithful, e.g. `"if" at #/properties/a`.
   * Empty when the schema can take the zod path. At most
   * {@link MAX_LISTED_OBSTACLES} are listed.
   */
  readonly zodObstacles: readonly string[];
}

/** How many zod obstacles an analysis lists before it stops counting. */
export const MAX_LISTED_OBSTACLES = 20;

/** A `type` keyword after validation: one name or a list of names. */
type TypeSpec = string | readonly string[];

interface Visit {
  readonly node: JsonObject;
  readonly pointer: string;
  /** The `type` of the composition parent, which zod's copy may inherit. */
  readonly inherited: TypeSpec | undefined;
}

/**
 * Analyses `document`, which the caller owns and which is changed in place
 * (see {@link SchemaAnalysis.document}).
 * @throws {SchemaProblem} naming the first thing that makes the schema
 * unusable.
 */
export function analyzeSchema(document: JsonObject): SchemaAnalysis {
  return new Analyzer(document).run();
}

class Analyzer {
  readonly draft: SchemaDraft;
  private readonly obstacles: string[] = [];
  private readonly visited = new Map<JsonObject, Visit>();
  private readonly refNodes: JsonObject[] = [];
  private readonly dynamicRefNodes: Visit[] = [];
  private readonly anchors = new Map<string, string[]>();
  private nestedResources = 0;
  /** Nodes zod turns into an intersection (see `checkIntersections`). */
  private readonly intersections: Visit[] = [];
  /** Cleared once `dereference` has run: later edits could not reach the lookup. */
  private beforeDereference = true;

  constructor(private readonly root: JsonObject) {
    this.draft = detectDraft(root);
  }

  run(): SchemaAnalysis {
    this.checkTopLevel();
    this.walk({ node: this.root, pointer: '#', inherited: 'object' });
    this.rewriteDynamicRefs();
    this.beforeDereference = false;
    let lookup: Record<string, Schema | boolean>;
    try {
      lookup = dereference(this.root);
    } catch (error) {
      throw new SchemaProblem(`schema identifiers do not resolve: ${messageOf(error)}`, {
        cause: error,
      });
    }
    const refTargets = this.resolveRefs(lookup);
    this.checkIntersections(refTargets);
    return {
      document: this.root,
      draft: this.draft,
      lookup,
      refTargets,
      zodObstacles: this.obstacles,
    };
  }

  private checkTopLevel(): void {
    const type = this.root['type'];
    if (type === undefined) return;
    const names = Array.isArray(type) ? type : [type];
    if (names.length === 0 || names.some((name) => name !== 'object')) {
      throw new SchemaProblem(
        `top-level "type" must be "object" (MCP tools take an object of named arguments), received ${JSON.stringify(type)}`,
      );
    }
  }

  private obstacle(reason: string): void {
    if (this.obstacles.length < MAX_LISTED_OBSTACLES) this.obstacles.push(reason);
  }

  /** Visits every subschema reachable from `start` without following `$ref`. */
  private walk(start: Visit): void {
    const stack: Visit[] = [start];
    for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
      if (this.visited.has(visit.node)) continue;
      this.visited.set(visit.node, visit);
      this.checkNode(visit);
      this.pushChildren(visit, stack);
    }
  }

  private pushChildren(visit: Visit, stack: Visit[]): void {
    const { node, pointer } = visit;
    const ownType = node['type'] as TypeSpec | undefined;
    const push = (value: JsonValue | undefined, at: string, inherited?: TypeSpec): void => {
      if (value === undefined || typeof value === 'boolean') return;
      if (!isJsonObject(value)) {
        throw new SchemaProblem(
          `expected a schema (an object or a boolean) at ${at}, received ${kindOf(value)}`,
        );
      }
      stack.push({ node: value, pointer: at, inherited });
    };
    for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
      push(node[keyword], `${pointer}/${keyword}`);
    }
    const items = node['items'];
    if (Array.isArray(items)) {
      items.forEach((item, i) => push(item, `${pointer}/items/${i}`));
    } else {
      push(items, `${pointer}/items`);
    }
    const prefixItems = node['prefixItems'];
    if (prefixItems !== undefined) {
      if (!Array.isArray(prefixItems)) {
        throw new SchemaProblem(`"prefixItems" at ${pointer} must be an array of schemas`);
      }
      prefixItems.forEach((item, i) => push(item, `${pointer}/prefixItems/${i}`));
    }
    // Branches of a typed schema only ever see values of that type, so zod's
    // copy may give an untyped branch its parent's type without changing a verdict.
    const branchType = ownType ?? visit.inherited;
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = node[keyword];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) {
        throw new SchemaProblem(`"${keyword}" at ${pointer} must be a non-empty array of schemas`);
      }
      list.forEach((item, i) => push(item, `${pointer}/${keyword}/${i}`, branchType));
    }
    for (const keyword of SCHEMA_MAP_KEYWORDS) {
      const map = node[keyword];
      if (map === undefined) continue;
      if (!isJsonObject(map)) {
        throw new SchemaProblem(`"${keyword}" at ${pointer} must be an object of schemas`);
      }
      for (const [name, sub] of Object.entries(map)) {
        push(sub, `${pointer}/${keyword}/${escapePointerSegment(name)}`);
      }
    }
    const dependencies = node['dependencies'];
    if (dependencies !== undefined) {
      if (!isJsonObject(dependencies)) {
        throw new SchemaProblem(`"dependencies" at ${pointer} must be an object`);
      }
      for (const [name, sub] of Object.entries(dependencies)) {
        const at = `${pointer}/dependencies/${escapePointerSegment(name)}`;
        if (Array.isArray(sub)) checkStringList(sub, at);
        else push(sub, at);
      }
    }
  }

  private checkNode(visit: Visit): void {
    const { node, pointer } = visit;
    this.checkShapes(node, pointer);
    this.checkIdentifiers(node, pointer);
    this.checkReferences(visit);
    this.checkPatterns(node, pointer);
    if (typeof node['format'] === 'string') {
      // An annotation by default in 2020-12; see docs/schemas.md for why we never assert it.
      delete node['format'];
    }
    this.checkZodFidelity(visit);
  }

  private checkShapes(node: JsonObject, pointer: string): void {
    const type = node['type'];
    if (type !== undefined) {
      const names = Array.isArray(type) ? type : [type];
      if (
        names.length === 0 ||
        names.some((name) => typeof name !== 'string' || !TYPE_NAMES.has(name))
      ) {
        throw new SchemaProblem(
          `"type" at ${pointer} must be one of ${[...TYPE_NAMES].join(', ')} or a non-empty list of them, received ${JSON.stringify(type)}`,
        );
      }
    }
    const required = node['required'];
    if (required !== undefined) checkStringList(required, `${pointer}/required`);
    const enumValues = node['enum'];
    if (enumValues !== undefined && !Array.isArray(enumValues)) {
      throw new SchemaProblem(
        `"enum" at ${pointer} must be an array, received ${kindOf(enumValues)}`,
      );
    }
    for (const keyword of NON_NEGATIVE_INTEGER_KEYWORDS) {
      const value = node[keyword];
      if (
        value !== undefined &&
        !(typeof value === 'number' && Number.isInteger(value) && value >= 0)
      ) {
        throw new SchemaProblem(
          `"${keyword}" at ${pointer} must be a non-negative integer, received ${JSON.stringify(value)}`,
        );
      }
    }
    for (const keyword of ['minimum', 'maximum'] as const) {
      const value = node[keyword];
      if (value !== undefined && typeof value !== 'number') {
        throw new SchemaProblem(
          `"${keyword}" at ${pointer} must be a number, received ${JSON.stringify(value)}`,
        );
      }
    }
    for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
      const value = node[keyword];
      // Draft 4 spells these as booleans beside minimum/maximum; later drafts as numbers.
      const ok = this.draft === '4' ? typeof value === 'boolean' : typeof value === 'number';
      if (value !== undefined && !ok) {
        const expected = this.draft === '4' ? 'a boolean (draft-04)' : 'a number';
        throw new SchemaProblem(
          `"${keyword}" at ${pointer} must be ${expected}, received ${JSON.stringify(value)}`,
        );
      }
    }
    const multipleOf = node['multipleOf'];
    if (multipleOf !== undefined && !(typeof multipleOf === 'number' && multipleOf > 0)) {
      throw new SchemaProblem(
        `"multipleOf" at ${pointer} must be a number above 0, received ${JSON.stringify(multipleOf)}`,
      );
    }
    const uniqueItems = node['uniqueItems'];
    if (uniqueItems !== undefined && typeof uniqueItems !== 'boolean') {
      throw new SchemaProblem(
        `"uniqueItems" at ${pointer} must be a boolean, received ${JSON.stringify(uniqueItems)}`,
      );
    }
    const dependentRequired = node['dependentRequired'];
    if (dependentRequired !== undefined) {
      if (!isJsonObject(dependentRequired)) {
        throw new SchemaProblem(
          `"dependentRequired" at ${pointer} must be an object of string lists`,
        );
      }
      for (const [name, list] of Object.entries(dependentRequired)) {
        checkStringList(list, `${pointer}/dependentRequired/${escapePointerSegment(name)}`);
      }
    }
  }

  private checkIdentifiers(node: JsonObject, pointer: string): void {
    for (const keyword of ['$id', '$anchor', '$dynamicAnchor'] as const) {
      const value = node[keyword];
      if (value !== undefined && typeof value !== 'string') {
        throw new SchemaProblem(
          `"${keyword}" at ${pointer} must be a string, received ${JSON.stringify(value)}`,
        );
      }
    }
    if (this.draft !== '4' && this.beforeDereference && typeof node['id'] === 'string') {
      // `id` is only an identifier in draft 4; later it is an annotation, but the
      // validator would still treat it as a base URI, so take it out of its copy.
      delete node['id'];
    }
    const id = this.draft === '4' ? node['id'] : node['$id'];
    if (typeof id === 'string' && node !== this.root && !id.startsWith('#')) this.nestedResources++;
    for (const name of [node['$anchor'], node['$dynamicAnchor']]) {
      if (typeof name !== 'string') continue;
      const seen = this.anchors.get(name) ?? [];
      seen.push(pointer);
      this.anchors.set(name, seen);
    }
  }

  private checkReferences(visit: Visit): void {
    const { node, pointer } = visit;
    const ref = node['$ref'];
    if (ref !== undefined) {
      if (typeof ref !== 'string') {
        throw new SchemaProblem(
          `"$ref" at ${pointer} must be a string, received ${JSON.stringify(ref)}`,
        );
      }
      requireLocal('$ref', ref, pointer);
      this.refNodes.push(node);
      const siblings = Object.keys(node).filter(
        (key) => key !== '$ref' && ASSERTING_KEYWORDS.has(key),
      );
      if (siblings.length > 0) {
        // Draft 7 ignores them, 2020-12 applies them; zod's converter always ignores them.
        this.obstacle(
          `"$ref" beside ${siblings.map((key) => `"${key}"`).join(', ')} at ${pointer}`,
        );
      }
    }
    const dynamicRef = node['$dynamicRef'];
    if (dynamicRef !== undefined) {
      if (typeof dynamicRef !== 'string') {
        throw new SchemaProblem(
          `"$dynamicRef" at ${pointer} must be a string, received ${JSON.stringify(dynamicRef)}`,
        );
      }
      requireLocal('$dynamicRef', dynamicRef, pointer);
      if (!this.beforeDereference) {
        throw new SchemaProblem(
          `"$dynamicRef" at ${pointer} sits where only a $ref leads; it is not supported there`,
        );
      }
      this.dynamicRefNodes.push(visit);
    }
    const recursiveRef = node['$recursiveRef'];
    if (recursiveRef !== undefined && recursiveRef !== '#') {
      throw new SchemaProblem(
        `"$recursiveRef" at ${pointer} must be "#", received ${JSON.stringify(recursiveRef)}`,
      );
    }
  }

  private checkPatterns(node: JsonObject, pointer: string): void {
    const pattern = node['pattern'];
    if (pattern !== undefined) {
      if (typeof pattern !== 'string') {
        throw new SchemaProblem(
          `"pattern" at ${pointer} must be a string, received ${JSON.stringify(pattern)}`,
        );
      }
      const usable = unicodePattern(pattern);
      if (usable === undefined) {
        throw new SchemaProblem(
          `"pattern" at ${pointer} is not a valid regular expression: ${JSON.stringify(pattern)}`,
        );
      }
      // The validator reads patterns when validating, so this edit may follow `dereference`.
      if (usable !== pattern) node['pattern'] = usable;
    }
    const patternProperties = node['patternProperties'];
    if (isJsonObject(patternProperties)) {
      for (const key of Object.keys(patternProperties)) {
        const usable = unicodePattern(key);
        if (usable === undefined) {
          throw new SchemaProblem(
            `"patternProperties" at ${pointer} has a key that is not a valid regular expression: ${JSON.stringify(key)}`,
          );
        }
        if (usable !== key) {
          const sub = patternProperties[key];
          delete patternProperties[key];
          if (sub !== undefined) patternProperties[usable] = sub;
        }
      }
    }
  }

  private checkZodFidelity(visit: Visit): void {
    const { node, pointer } = visit;
    for (const keyword of ZOD_UNSUPPORTED) {
      if (node[keyword] !== undefined) this.obstacle(`"${keyword}" at ${pointer}`);
    }
    if (Array.isArray(node['items'])) this.obstacle(`array-form "items" at ${pointer}`);
    const minLength = node['minLength'];
    // zod counts UTF-16 units, JSON Schema counts code points; they agree on 0 and 1.
    if (typeof minLength === 'number' && minLength > 1)
      this.obstacle(`"minLength" above 1 at ${pointer}`);
    const pattern = node['pattern'];
    if (typeof pattern === 'string' && !isModeIndependentPattern(pattern)) {
      this.obstacle(`"pattern" whose meaning depends on the Unicode flag at ${pointer}`);
    }
    const hasEnum = node['enum'] !== undefined;
    const hasConst = node['const'] !== undefined;
    if (hasEnum || hasConst) {
      const values = hasEnum ? (node['enum'] as JsonValue[]) : [node['const'] ?? null];
      if (hasEnum && hasConst) this.obstacle(`"enum" beside "const" at ${pointer}`);
      if (values.some((value) => typeof value === 'object' && value !== null)) {
        this.obstacle(
          `"${hasEnum ? 'enum' : 'const'}" with an object or array value at ${pointer}`,
        );
      }
      const others = TYPED_KEYWORDS.filter((key) => node[key] !== undefined);
      if (others.length > 0) {
        this.obstacle(`"${hasEnum ? 'enum' : 'const'}" beside "${others[0] ?? ''}" at ${pointer}`);
      }
    } else if (node['type'] === undefined && visit.inherited === undefined) {
      const typed = TYPED_KEYWORDS.find((key) => node[key] !== undefined);
      // zod's converter reads a schema without "type" as "anything" and drops these.
      if (typed !== undefined) this.obstacle(`"${typed}" without "type" at ${pointer}`);
      const compositions = SCHEMA_LIST_KEYWORDS.filter((key) => node[key] !== undefined);
      // Without a type it keeps only the last of anyOf/oneOf/allOf instead of all of them.
      if (compositions.length > 1)
        this.obstacle(`${compositions.join(' beside ')} without "type" at ${pointer}`);
    }
    const typed =
      node['type'] !== undefined || visit.inherited !== undefined || hasEnum || hasConst;
    if (
      node['allOf'] !== undefined ||
      (typed && (node['anyOf'] !== undefined || node['oneOf'] !== undefined))
    ) {
      this.intersections.push(visit);
    }
    for (const name of propertyNames(node)) {
      // Names on Object.prototype: zod finds them on every object and validates the inherited value.
      if (name in Object.prototype) {
        this.obstacle(`property ${JSON.stringify(name)} (an Object.prototype name) at ${pointer}`);
        break;
      }
    }
  }

  /**
   * zod reports a key that a strict object (`additionalProperties: false`)
   * rejects inside an intersection only when *both* sides reject it, so that
   * strict objects compose; JSON Schema's `allOf` rejects it if either does.
   * An intersection is every `allOf`, and every typed `anyOf`/`oneOf` (zod
   * intersects the type with the union).
   */
  private checkIntersections(refTargets: ReadonlyMap<JsonObject, SchemaNode>): void {
    for (const { node, pointer } of this.intersections) {
      if (hasStrictOperand(node, refTargets, new Set())) {
        this.obstacle(`"additionalProperties": false under allOf/anyOf/oneOf at ${pointer}`);
      }
    }
  }

  /**
   * `$dynamicRef` is rewritten to a plain `$ref` where that is exact: a single
   * schema resource whose anchor of that name is unique, so dynamic scope
   * cannot pick a different target. @cfworker/json-schema ignores the keyword.
   */
  private rewriteDynamicRefs(): void {
    for (const { node, pointer } of this.dynamicRefNodes) {
      const ref = node['$dynamicRef'] as string;
      const name = ref.slice(1);
      const targets = this.anchors.get(name) ?? [];
      const target = targets[0];
      if (
        this.nestedResources > 0 ||
        targets.length !== 1 ||
        target === undefined ||
        node['$ref'] !== undefined
      ) {
        throw new SchemaProblem(
          `"$dynamicRef" ${JSON.stringify(ref)} at ${pointer} is only supported in a single-resource schema with exactly one anchor of that name and no "$ref" beside it`,
        );
      }
      delete node['$dynamicRef'];
      node['$ref'] = pointerToFragment(target);
      this.refNodes.push(node);
    }
  }

  /** Resolves every `$ref` through the validator's own lookup, so both agree. */
  private resolveRefs(lookup: Record<string, Schema | boolean>): Map<JsonObject, SchemaNode> {
    const targets = new Map<JsonObject, SchemaNode>();
    for (let i = 0; i < this.refNodes.length; i++) {
      const node = this.refNodes[i];
      if (node === undefined || targets.has(node)) continue;
      const absolute = (node as Schema).__absolute_ref__;
      const target = absolute === undefined ? undefined : lookup[absolute];
      const ref = JSON.stringify(node['$ref']);
      const at = this.visited.get(node)?.pointer ?? '#';
      if (target === undefined) {
        throw new SchemaProblem(`"$ref" ${ref} at ${at} does not resolve inside the schema`);
      }
      const resolved: SchemaNode = target;
      targets.set(node, resolved);
      if (typeof resolved === 'boolean') continue;
      const earlier = this.visited.get(resolved);
      if (earlier === undefined) {
        // Reachable only through this reference (e.g. under an unknown keyword): check it too.
        this.walk({ node: resolved, pointer: `${ref} (via ${at})`, inherited: undefined });
      } else if (
        earlier.inherited !== undefined &&
        resolved['type'] === undefined &&
        resolved !== this.root
      ) {
        this.obstacle(`"$ref" into an untyped composition branch at ${earlier.pointer}`);
      }
      if (resolved === this.root && this.root['type'] === undefined) {
        this.obstacle(`"$ref" to a top level without "type" at ${at}`);
      }
    }
    return targets;
  }
}

/**
 * Whether an intersection operand — the node itself or, through
 * composition keywords and `$ref`, one of its branches — is an object schema
 * whose extra keys are refused.
 */
function hasStrictOperand(
  node: SchemaNode,
  refTargets: ReadonlyMap<JsonObject, SchemaNode>,
  seen: Set<JsonObject>,
): boolean {
  if (typeof node === 'boolean' || seen.has(node)) return false;
  seen.add(node);
  const target = refTargets.get(node);
  if (target !== undefined && hasStrictOperand(target, refTargets, seen)) return true;
  const additional = node['additionalProperties'];
  if (additional !== undefined && refusesAll(additional as SchemaNode, refTargets, new Set()))
    return true;
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    if (branches.some((branch) => hasStrictOperand(branch as SchemaNode, refTargets, seen)))
      return true;
  }
  return false;
}

/** Whether zod converts `node` to `never` (as `false`, or an enum left empty). */
function refusesAll(
  node: SchemaNode,
  refTargets: ReadonlyMap<JsonObject, SchemaNode>,
  seen: Set<JsonObject>,
): boolean {
  if (typeof node === 'boolean') return !node;
  if (seen.has(node)) return false;
  seen.add(node);
  const target = refTargets.get(node);
  if (target !== undefined) return refusesAll(target, refTargets, seen);
  const listed = node['enum'] ?? (node['const'] === undefined ? undefined : [node['const']]);
  if (!Array.isArray(listed)) return false;
  const type = node['type'];
  const names = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  // A value of another type is dropped from zod's copy; erring towards "refuses" only costs the zod path.
  return names === undefined
    ? listed.length === 0
    : !listed.some((value) =>
        names.some((name) => typeof name === 'string' && hasJsonType(value, name)),
      );
}

function requireLocal(keyword: string, ref: string, pointer: string): void {
  if (!ref.startsWith('#')) {
    throw new SchemaProblem(
      `${keyword} ${JSON.stringify(ref)} at ${pointer} is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched`,
    );
  }
}

function checkStringList(value: JsonValue, at: string): void {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new SchemaProblem(`${at} must be an array of strings, received ${JSON.stringify(value)}`);
  }
}

function propertyNames(node: JsonObject): string[] {
  const names: string[] = [];
  const properties = node['properties'];
  if (isJsonObject(properties)) names.push(...Object.keys(properties));
  const required = node['required'];
  if (Array.isArray(required)) {
    for (const name of required) if (typeof name === 'string') names.push(name);
  }
  return names;
}

/** `#/a/b` (a JSON Pointer as we write them) as a URI fragment `$ref` value. */
function pointerToFragment(pointer: string): string {
  try {
    return '#' + encodeURI(pointer.slice(1)).replace(/#/g, '%23');
  } catch (error) {
    // encodeURI refuses lone surrogates, which a JSON key may hold.
    throw new SchemaProblem(`cannot refer to ${pointer}: ${messageOf(error)}`, { cause: error });
  }
}

function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
