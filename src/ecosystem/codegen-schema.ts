/**
 * Prepares a tool's input schema for `json-schema-to-zod` and decides
 * whether the generated zod schema would give the same verdicts as the
 * run-time validator. The converter is faithful for a subset of JSON Schema
 * and silently loosens the rest (`$ref` becomes `z.any()`, `if`/`then` is
 * dropped, `anyOf` beside `type` is ignored, ...), so anything outside that
 * subset is reported, and the generated binding says it is not exact rather
 * than pretending.
 *
 * What changes before conversion, keeping verdicts:
 * - local `$ref`s are inlined (a recursive one is reported);
 * - annotations are dropped, and so are `format` (the run-time validator
 *   treats it as an annotation too) and `default` (the server applies
 *   defaults; a default must not make a missing required field pass);
 * - the root gets `"type": "object"` when it has none (arguments are always
 *   an object).
 *
 * A `pattern` a backtracking engine could take more than linear time on is
 * left out (and reported): the generated code would run it with `RegExp`.
 *
 * Two rewrites keep verdicts where the converter would not: of `minimum`
 * and `exclusiveMinimum` (or the maximums) only the stricter is kept, as
 * the converter would apply `minimum` alone, and `items: false` becomes
 * `maxItems: 0`, as the converter reads a false `items` as "anything".
 *
 * Inlining copies a definition each time it is referred to, so a small
 * schema whose definitions each refer twice to the next would make output
 * exponential in its size: past {@link MAX_NODES} schema nodes or
 * {@link MAX_TEXT} characters of names, descriptions and values, the walk
 * stops and the schema is reported as too large. At most
 * {@link MAX_ISSUES} issues are kept.
 */
import { decodePointer, memberOf } from '../core/json.js';
import { hasNoChoice } from '../mcp/schema/linear-pattern.js';
import { unicodePattern } from '../mcp/schema/patterns.js';

type JsonObject = Record<string, unknown>;

/** A schema ready for `json-schema-to-zod`, and why it would not be exact (empty when it is). */
export interface CodegenSchema {
  readonly schema: JsonObject;
  readonly issues: readonly string[];
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  'format',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$comment',
  '$schema',
  '$id',
  'contentEncoding',
  'contentMediaType',
]);
const KEYWORDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  object: ['properties', 'required', 'additionalProperties'],
  array: ['items', 'minItems', 'maxItems'],
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
};
const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const MAX_DEPTH = 64;
/** Most schema nodes the prepared copy may hold ($refs inlined). */
export const MAX_NODES = 10_000;
/** Most characters of property names, descriptions, patterns and values the prepared copy may hold. */
export const MAX_TEXT = 256 * 1024;
/** Most issues kept per schema; the rest are counted in a last one. */
export const MAX_ISSUES = 100;
/** Keywords whose value is a count (a non-negative integer). */
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);
/** Keywords whose value is a bound (a finite number; `multipleOf` a positive one). */
const BOUNDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
]);

/**
 * A copy of `schema` for the converter, with the reasons (JSON Pointers) it
 * cannot be converted exactly. The input is not changed.
 */
export function prepareCodegenSchema(schema: unknown): CodegenSchema {
  const issues: string[] = [];
  if (!isObject(schema)) {
    return { schema: { type: 'object' }, issues: ['#: the input schema is not an object'] };
  }
  const walker = new Walker(schema, issues);
  // Arguments are always an object, so an untyped root is read as one.
  const typed = schema['type'] === undefined ? { ...schema, type: 'object' } : schema;
  if (typed['type'] !== 'object') walker.report('#: the root "type" is not "object"');
  const prepared = walker.node(typed, '#', 0, []);
  walker.finish();
  return { schema: isObject(prepared) ? prepared : { type: 'object' }, issues };
}

class Walker {
  /** Schema nodes copied so far, and characters of server text they hold. */
  private nodes = 0;
  private text = 0;
  /** Set once a budget is spent: every node after that is skipped. */
  private stopped = false;
  private dropped = 0;

  constructor(
    private readonly root: JsonObject,
    private readonly issues: string[],
  ) {}

  report(issue: string): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push(issue);
    else this.dropped += 1;
  }

  finish(): void {
    if (this.dropped > 0) this.issues.push(`#: ${this.dropped} more issues left out`);
  }

  /**
   * Counts `characters` of server text into the copy; false (with the
   * issue reported once) when a budget is spent.
   */
  private charge(characters: number): boolean {
    if (this.stopped) return false;
    this.text += characters;
    if (this.nodes <= MAX_NODES && this.text <= MAX_TEXT) return true;
    this.stopped = true;
    // First, and past the cap on issues: the others are beside the point.
    this.issues.unshift(
      this.nodes > MAX_NODES
        ? `#: too large to convert, over ${MAX_NODES} schema nodes with its "$ref"s inlined`
        : `#: too large to convert, over ${MAX_TEXT} characters of names, descriptions and values with its "$ref"s inlined`,
    );
    return false;
  }

  node(node: unknown, pointer: string, depth: number, refs: readonly string[]): unknown {
    this.nodes += 1;
    if (!this.charge(0)) return true;
    if (typeof node === 'boolean') return node;
    if (!isObject(node)) {
      this.report(`${pointer}: not a schema`);
      return true;
    }
    if (depth > MAX_DEPTH) {
      this.report(`${pointer}: nested too deeply`);
      return true;
    }
    const ref = node['$ref'];
    if (ref !== undefined) return this.reference(node, ref, pointer, depth, refs);

    const out: JsonObject = {};
    const types = typeNames(node['type']);
    if (node['type'] !== undefined) {
      if (types === undefined) this.report(`${pointer}: "type" is not a list of JSON types`);
      else out['type'] = node['type'];
    }
    const allowed = new Set(['type', 'enum', 'const', 'anyOf', '$defs', 'definitions']);
    for (const type of types ?? [])
      for (const keyword of KEYWORDS_BY_TYPE[type] ?? []) allowed.add(keyword);

    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === 'type' || keyword === '$defs' || keyword === 'definitions') continue;
      if (keyword === 'description') {
        if (typeof value === 'string' && this.charge(value.length)) out[keyword] = value;
        continue;
      }
      if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue;
      if (keyword === 'pattern' && typeof value === 'string') {
        // Generated code runs it with RegExp and the `u` flag, as the run time reads it.
        const usable = unicodePattern(value);
        if (usable === undefined || !hasNoChoice(usable)) {
          this.report(
            usable === undefined
              ? `${pointer}/pattern: left out, as it is no regular expression with the u flag`
              : `${pointer}/pattern: left out, as it would run on JavaScript's backtracking engine (the tool's own check runs it in linear time)`,
          );
          continue;
        }
        if (allowed.has(keyword)) {
          if (this.charge(usable.length)) out[keyword] = usable;
          continue;
        }
      }
      if (!allowed.has(keyword)) {
        const untyped =
          types === undefined &&
          Object.values(KEYWORDS_BY_TYPE).some((list) => list.includes(keyword));
        this.report(
          untyped
            ? `${pointer}: "${keyword}" on a schema without "type"`
            : `${pointer}: "${keyword}" is not converted exactly`,
        );
        continue;
      }
      out[keyword] = this.keyword(
        keyword,
        value,
        node,
        `${pointer}/${escape(keyword)}`,
        depth,
        refs,
      );
    }
    if (node['anyOf'] !== undefined) {
      const siblings = Object.keys(out).filter((key) => key !== 'anyOf' && key !== 'description');
      if (siblings.length > 0) this.report(`${pointer}: "anyOf" beside ${siblings.join(', ')}`);
    }
    for (const keyword of ['enum', 'const'] as const) {
      if (node[keyword] === undefined) continue;
      const values = keyword === 'enum' ? node[keyword] : [node[keyword]];
      if (!Array.isArray(values) || !values.every(isPrimitive)) {
        this.report(
          `${pointer}: "${keyword}" with values other than strings, numbers, booleans and null`,
        );
      } else if (values.some((value) => typeof value === 'number' && !Number.isFinite(value))) {
        // JSON.parse reads 1e400 as Infinity, which no JSON value equals
        // (the run time refuses the schema) and a literal would write as null.
        this.report(`${pointer}: "${keyword}" with a number that is not finite`);
      } else if (
        types !== undefined &&
        !values.every((value) => types.some((type) => isOfType(value, type)))
      ) {
        this.report(`${pointer}: "${keyword}" values that "type" refuses`);
      } else {
        this.charge(JSON.stringify(values).length);
      }
    }
    // The converter reads `enum` (else `const`) alone and ignores every
    // other constraint beside it (`minLength`, `pattern`, `const`, ...).
    // `type` is no constraint there: the values were checked against it.
    const choice = ['enum', 'const'].find((keyword) => Object.hasOwn(out, keyword));
    if (choice !== undefined) {
      const others = Object.keys(out).filter(
        (key) => !['type', 'description', 'anyOf', choice].includes(key),
      );
      if (others.length > 0) this.report(`${pointer}: "${choice}" beside ${others.join(', ')}`);
    }
    tightenBounds(out);
    // The converter reads a false `items` as no `items` (any item).
    if (out['items'] === false) {
      delete out['items'];
      out['maxItems'] = 0;
    }
    return out;
  }

  private keyword(
    keyword: string,
    value: unknown,
    node: JsonObject,
    pointer: string,
    depth: number,
    refs: readonly string[],
  ): unknown {
    switch (keyword) {
      case 'properties': {
        if (!isObject(value)) {
          this.report(`${pointer}: not an object`);
          return {};
        }
        const entries: [string, unknown][] = [];
        for (const [name, sub] of Object.entries(value)) {
          if (!this.charge(name.length)) break;
          if (name === '__proto__') this.report(`${pointer}: a property named "__proto__"`);
          entries.push([name, this.node(sub, `${pointer}/${escape(name)}`, depth + 1, refs)]);
        }
        return Object.fromEntries(entries);
      }
      case 'required': {
        const properties = isObject(node['properties']) ? node['properties'] : {};
        if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
          this.report(`${pointer}: not a list of names`);
          return [];
        }
        const unknown = value.filter((name) => !Object.hasOwn(properties, name));
        if (unknown.length > 0) {
          this.report(`${pointer}: requires ${unknown.join(', ')} without a property schema`);
        }
        return value;
      }
      case 'additionalProperties':
        return this.node(value, pointer, depth + 1, refs);
      case 'items':
        if (Array.isArray(value)) {
          this.report(`${pointer}: tuple "items" (an array)`);
          return true;
        }
        return this.node(value, pointer, depth + 1, refs);
      case 'anyOf':
        if (!Array.isArray(value) || value.length === 0) {
          this.report(`${pointer}: not a non-empty list`);
          return [true];
        }
        return value.map((branch: unknown, index) =>
          this.node(branch, `${pointer}/${index}`, depth + 1, refs),
        );
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'boolean') {
          this.report(`${pointer}: a boolean (draft-04) form`);
          return value;
        }
        return this.bound(keyword, value, pointer);
      default:
        return COUNTS.has(keyword) || BOUNDS.has(keyword)
          ? this.bound(keyword, value, pointer)
          : value;
    }
  }

  /**
   * A count or bound, which the converter writes into the code as it is:
   * anything but a number of the right kind is reported (and a string
   * would reach the generated text).
   */
  private bound(keyword: string, value: unknown, pointer: string): unknown {
    const usable =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (!COUNTS.has(keyword) || (Number.isInteger(value) && value >= 0)) &&
      (keyword !== 'multipleOf' || value > 0);
    if (!usable) {
      this.report(
        COUNTS.has(keyword)
          ? `${pointer}: not a non-negative integer`
          : keyword === 'multipleOf'
            ? `${pointer}: not a positive number`
            : `${pointer}: not a number`,
      );
    }
    return value;
  }

  private reference(
    node: JsonObject,
    ref: unknown,
    pointer: string,
    depth: number,
    refs: readonly string[],
  ): unknown {
    if (typeof ref !== 'string' || !(ref === '#' || ref.startsWith('#/'))) {
      this.report(`${pointer}: "$ref" ${JSON.stringify(ref)} is not local`);
      return true;
    }
    const siblings = Object.keys(node).filter(
      (key) => key !== '$ref' && !ANNOTATIONS.has(key) && !key.startsWith('x-'),
    );
    if (siblings.length > 0) {
      this.report(`${pointer}: "$ref" beside ${siblings.join(', ')}`);
      return true;
    }
    if (refs.includes(ref)) {
      this.report(`${pointer}: recursive "$ref" ${ref}`);
      return true;
    }
    const target = resolvePointer(this.root, ref);
    if (target === undefined) {
      this.report(`${pointer}: "$ref" ${ref} does not resolve`);
      return true;
    }
    const inlined = this.node(target, pointer, depth + 1, [...refs, ref]);
    const description = node['description'];
    if (isObject(inlined) && typeof description === 'string' && this.charge(description.length)) {
      return { ...inlined, description };
    }
    return inlined;
  }
}

/**
 * Of `minimum` and `exclusiveMinimum` (and of the maximums) keeps only
 * the stricter: both must hold, and the converter would write `minimum`
 * alone.
 */
function tightenBounds(out: JsonObject): void {
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum } = out;
  if (typeof minimum === 'number' && typeof exclusiveMinimum === 'number') {
    delete out[exclusiveMinimum >= minimum ? 'minimum' : 'exclusiveMinimum'];
  }
  if (typeof maximum === 'number' && typeof exclusiveMaximum === 'number') {
    delete out[exclusiveMaximum <= maximum ? 'maximum' : 'exclusiveMaximum'];
  }
}

function resolvePointer(root: JsonObject, ref: string): unknown {
  return decodePointer(ref).reduce<unknown>((node, key) => memberOf(node, key), root);
}

function typeNames(type: unknown): readonly string[] | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  if (
    names.length === 0 ||
    !names.every((name) => typeof name === 'string' && TYPE_NAMES.has(name))
  ) {
    return undefined;
  }
  return names as string[];
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
