/**
 * The JSON Schema vocabulary the analysis knows: where subschemas stand,
 * which dialects we read, and what each keyword's value must look like.
 */
import type { SchemaDraft } from '@cfworker/json-schema';
import {
  escapePointerSegment,
  isJsonObject,
  SchemaProblem,
  type JsonObject,
  type JsonValue,
} from './json.js';

/** The JSON Schema type names. */
export const TYPE_NAMES = new Set([
  'string',
  'number',
  'integer',
  'boolean',
  'null',
  'array',
  'object',
]);

/** Keywords whose value is one subschema. */
export const SINGLE_SCHEMA_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;

/** Keywords whose value is a non-empty array of subschemas. */
export const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;

/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;

/** Keywords whose value must be a non-negative integer. */
export const NON_NEGATIVE_INTEGER_KEYWORDS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;

/** `$schema` URIs we read, without scheme and trailing `#`. */
const DIALECTS: ReadonlyMap<string, SchemaDraft> = new Map([
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
  ['json-schema.org/schema', '2020-12'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft-07/schema', '7'],
  // Draft 6 differs from 7 only by keywords 7 added; read it as 7.
  ['json-schema.org/draft-06/schema', '7'],
  ['json-schema.org/draft-04/schema', '4'],
]);

/**
 * The dialect named by a root `$schema`; MCP's default, 2020-12, when there
 * is none.
 * @throws {SchemaProblem} for a malformed, obsolete or unknown dialect.
 */
export function detectDraft(root: JsonObject): SchemaDraft {
  const named = root['$schema'];
  if (named === undefined) return '2020-12';
  if (typeof named !== 'string') {
    throw new SchemaProblem(`"$schema" must be a string, received ${JSON.stringify(named)}`);
  }
  const bare = named.replace(/^https?:\/\//, '').replace(/#$/, '');
  const draft = DIALECTS.get(bare);
  if (draft !== undefined) return draft;
  throw new SchemaProblem(
    `"$schema" names ${JSON.stringify(named)}; supported dialects are JSON Schema draft-04, -06, -07, 2019-09 and 2020-12`,
  );
}

/**
 * Refuses malformed keyword values at `pointer` (`required: "a"`,
 * `type: "text"`, a negative `minLength`, …), read in `draft`.
 * @throws {SchemaProblem} naming the keyword and what it must be.
 */
export function checkKeywordValues(node: JsonObject, pointer: string, draft: SchemaDraft): void {
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
    const ok = draft === '4' ? typeof value === 'boolean' : typeof value === 'number';
    if (value !== undefined && !ok) {
      const expected = draft === '4' ? 'a boolean (draft-04)' : 'a number';
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

/** @throws {SchemaProblem} unless `value` is a list of strings. */
export function checkStringList(value: JsonValue, at: string): void {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new SchemaProblem(`${at} must be an array of strings, received ${JSON.stringify(value)}`);
  }
}

/** `null`, `an array`, `a string`, … for messages. */
export function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
