/**
 * Walks a tool's input schema once, before anything is built from it:
 * refuses what cannot be honoured (remote or dangling `$ref`, malformed
 * keywords, a non-object top level), prepares an owned copy for the JSON
 * Schema validator and resolves every reference. Nothing here evaluates
 * schema text.
 */
import { dereference, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import {
  checkKeywordValues,
  checkStringList,
  detectDraft,
  kindOf,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SINGLE_SCHEMA_KEYWORDS,
} from './keywords.js';
import {
  escapePointerSegment,
  isJsonObject,
  SchemaProblem,
  type JsonObject,
  type JsonValue,
} from './json.js';
import { unicodePattern } from './regex.js';

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
}

/** A subschema being visited, and where. */
interface Visit {
  readonly node: JsonObject;
  readonly pointer: string;
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
  private readonly visited = new Map<JsonObject, Visit>();
  private readonly refNodes: JsonObject[] = [];
  private readonly dynamicRefNodes: Visit[] = [];
  private readonly anchors = new Map<string, string[]>();
  private nestedResources = 0;
  /** Cleared once `dereference` has run: later edits could not reach the lookup. */
  private beforeDereference = true;

  constructor(private readonly root: JsonObject) {
    this.draft = detectDraft(root);
  }

  run(): SchemaAnalysis {
    this.checkTopLevel();
    this.walk({ node: this.root, pointer: '#' });
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
    return { document: this.root, draft: this.draft, lookup, refTargets };
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
    const push = (value: JsonValue | undefined, at: string): void => {
      if (value === undefined || typeof value === 'boolean') return;
      if (!isJsonObject(value)) {
        throw new SchemaProblem(
          `expected a schema (an object or a boolean) at ${at}, received ${kindOf(value)}`,
        );
      }
      stack.push({ node: value, pointer: at });
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
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = node[keyword];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) {
        throw new SchemaProblem(`"${keyword}" at ${pointer} must be a non-empty array of schemas`);
      }
      list.forEach((item, i) => push(item, `${pointer}/${keyword}/${i}`));
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
    checkKeywordValues(node, pointer, this.draft);
    this.checkIdentifiers(node, pointer);
    this.checkReferences(visit);
    this.checkPatterns(node, pointer);
    if (typeof node['format'] === 'string') {
      // An annotation by default in 2020-12; see docs/schemas.md for why we never assert it.
      delete node['format'];
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
        this.walk({ node: resolved, pointer: `${ref} (via ${at})` });
      }
    }
    return targets;
  }
}

function requireLocal(keyword: string, ref: string, pointer: string): void {
  if (!ref.startsWith('#')) {
    throw new SchemaProblem(
      `${keyword} ${JSON.stringify(ref)} at ${pointer} is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched`,
    );
  }
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
