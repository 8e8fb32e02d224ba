/**
 * The JSON Schema vocabulary the analysis knows: where subschemas stand,
 * which keywords take counts, and which dialects we read.
 */
import type { SchemaDraft } from '@cfworker/json-schema';
import { SchemaProblem, type JsonObject } from './json.js';

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
