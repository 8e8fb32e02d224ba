/** The JSON Schema vocabulary: the dialects we read, keyword values, where subschemas stand. */
import type { SchemaDraft } from '@cfworker/json-schema';
import {
  escapePointerSegment,
  isJsonRecord,
  type JsonRecord,
  type JsonData,
} from '../../core/json.js';
import { SchemaProblem } from './json.js';

/** The JSON Schema type names. */
const TYPE_NAMES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'];

/** The `$schema` URIs we read (draft 6 differs from 7 only by keywords 7 added: read as 7). */
const DIALECT =
  /^(?:https?:\/\/)?json-schema\.org\/(draft\/2020-12\/|draft\/2019-09\/|draft-0([467])\/|)schema#?$/;

/**
 * OpenAPI 3.1's dialects (`…/oas/3.1/dialect/base`, or a dated one): JSON
 * Schema 2020-12 with OpenAPI's vocabulary, whose keywords (`discriminator`,
 * `xml`, `externalDocs`, `example`) annotate and change no verdict.
 * Servers generated from an OpenAPI document declare it.
 */
const OPENAPI_DIALECT = /^https:\/\/spec\.openapis\.org\/oas\/3\.1\/dialect\/[\w.-]+$/;

/**
 * The dialect named by a root `$schema`; MCP's default, 2020-12, when there is none.
 * @throws {SchemaProblem} for a malformed, obsolete or unknown dialect.
 */
export function detectDraft(root: JsonRecord): SchemaDraft {
  const named = root['$schema'];
  const match = typeof named === 'string' ? DIALECT.exec(named) : null;
  if (named === undefined || match?.[1] === '' || match?.[1] === 'draft/2020-12/') return '2020-12';
  if (typeof named === 'string' && OPENAPI_DIALECT.test(named)) return '2020-12';
  if (match?.[1] === 'draft/2019-09/') return '2019-09';
  if (match?.[2] !== undefined) return match[2] === '4' ? '4' : '7';
  throw new SchemaProblem(
    `"$schema" names ${JSON.stringify(named)}; supported dialects are JSON Schema draft-04, -06, -07, 2019-09 and 2020-12, and OpenAPI 3.1's`,
  );
}

/** Keywords 2019-09 added that change a verdict. */
const ADDED_IN_2019 = [
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'minContains',
  'maxContains',
];

/**
 * The keywords that change a verdict which each dialect does not have:
 * there they are unknown keywords, which a validator ignores (draft-07
 * Core §4.3.1; 2019-09 §6.5). The validator underneath applies them in
 * every dialect, so they are taken out of its copy.
 */
const FOREIGN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  '4': [
    'const',
    'contains',
    'propertyNames',
    'if',
    'then',
    'else',
    ...ADDED_IN_2019,
    'prefixItems',
    '$recursiveRef',
    '$dynamicRef',
  ],
  '6': ['if', 'then', 'else', ...ADDED_IN_2019, 'prefixItems', '$recursiveRef', '$dynamicRef'],
  '7': [...ADDED_IN_2019, 'prefixItems', '$recursiveRef', '$dynamicRef'],
  '2019-09': ['prefixItems', '$dynamicRef'],
  // 2020-12 replaced it with $dynamicRef.
  '2020-12': ['$recursiveRef'],
};

/**
 * The keywords `root`'s dialect does not have that the validator would
 * apply (see {@link FOREIGN_KEYWORDS}); none for a dialect it cannot tell
 * (the analysis refuses it with the reason).
 */
export function foreignKeywordsOf(root: JsonRecord): readonly string[] {
  let draft: SchemaDraft;
  try {
    draft = detectDraft(root);
  } catch {
    return [];
  }
  const named = root['$schema'];
  const match = typeof named === 'string' ? DIALECT.exec(named) : null;
  // detectDraft reads draft-06 as 7; only its keywords tell them apart here.
  return FOREIGN_KEYWORDS[match?.[2] ?? draft] ?? [];
}

/**
 * Takes out of `root` (a private copy) every keyword its dialect does not
 * have (see {@link FOREIGN_KEYWORDS}), in every subschema.
 * @throws {SchemaProblem} as {@link detectDraft} and {@link childSchemas} do.
 */
export function dropForeignKeywords(root: JsonRecord): void {
  detectDraft(root);
  const foreign = foreignKeywordsOf(root);
  if (foreign.length === 0) return;
  const pending: [JsonRecord, string][] = [[root, '#']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, pointer] = next;
    for (const keyword of foreign) {
      if (Object.hasOwn(node, keyword)) delete node[keyword];
    }
    for (const [suffix, child] of childSchemas(node, pointer)) {
      pending.push([child, `${pointer}${suffix}`]);
    }
  }
}

type Rule = readonly [holds: (value: unknown) => boolean, expected: string];

const isCount = (value: unknown): boolean =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isTypeName = (value: unknown): boolean =>
  typeof value === 'string' && TYPE_NAMES.includes(value);
const isStringList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const COUNT: Rule = [isCount, 'a non-negative integer'];
const NUMBER: Rule = [(value) => typeof value === 'number', 'a number'];
const STRING: Rule = [(value) => typeof value === 'string', 'a string'];

/** What each keyword's value must be, in every dialect. */
const RULES: Readonly<Record<string, Rule>> = {
  type: [
    (value) =>
      isTypeName(value) || (Array.isArray(value) && value.length > 0 && value.every(isTypeName)),
    `one of ${TYPE_NAMES.join(', ')} or a non-empty list of them`,
  ],
  required: [isStringList, 'an array of strings'],
  $recursiveRef: [(value) => value === '#', '"#"'],
  enum: [Array.isArray, 'an array'],
  ...Object.fromEntries(
    ['Length', 'Items', 'Properties', 'Contains'].flatMap((what) => [
      [`min${what}`, COUNT],
      [`max${what}`, COUNT],
    ]),
  ),
  minimum: NUMBER,
  maximum: NUMBER,
  multipleOf: [(value) => typeof value === 'number' && value > 0, 'a number above 0'],
  uniqueItems: [(value) => typeof value === 'boolean', 'a boolean'],
  dependentRequired: [
    (value) => isJsonRecord(value) && Object.values(value).every(isStringList),
    'an object of string lists',
  ],
  ...Object.fromEntries(
    ['$ref', '$dynamicRef', '$id', '$anchor', '$dynamicAnchor', 'pattern'].map((k) => [k, STRING]),
  ),
};

/** Draft 4 spells exclusive bounds as booleans beside minimum/maximum; later drafts as numbers. */
const EXCLUSIVE_4: Rule = [(value) => typeof value === 'boolean', 'a boolean (draft-04)'];

/**
 * Refuses malformed keyword values at `pointer` (`required: "a"`,
 * `type: "text"`, a negative `minLength`, …), read in `draft`.
 * @throws {SchemaProblem} naming the keyword, what it must be and what it is.
 */
export function checkKeywordValues(node: JsonRecord, pointer: string, draft: SchemaDraft): void {
  for (const keyword of Object.keys(node)) {
    const exclusive = keyword.startsWith('exclusiveM');
    const rule = exclusive ? (draft === '4' ? EXCLUSIVE_4 : NUMBER) : RULES[keyword];
    if (rule !== undefined && !rule[0](node[keyword])) {
      throw new SchemaProblem(
        `"${keyword}" at ${pointer} must be ${rule[1]}, received ${JSON.stringify(node[keyword])}`,
      );
    }
  }
}

/** Keywords whose value is one subschema (`items` may also be a list). */
const SINGLE = `additionalProperties additionalItems unevaluatedProperties unevaluatedItems
  contains propertyNames not if then else items`.split(/\s+/);
/** Keywords whose value is an array of subschemas (never empty for `allOf`, `anyOf`, `oneOf`). */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas (`dependencies` also to property lists). */
const MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * The object subschemas of `node`, where they stand; `dependencies` that
 * list property names are checked here and left out.
 * @throws {SchemaProblem} when a list or map keyword holds something else.
 */
export function childSchemas(node: JsonRecord, pointer: string): [string, JsonRecord][] {
  const children: [suffix: string, schema: JsonRecord][] = [];
  /** Keeps an object schema; a boolean one has nothing under it; anything else is refused. */
  const add = (suffix: string, value: JsonData): void => {
    if (isJsonRecord(value)) children.push([suffix, value]);
    else if (typeof value !== 'boolean') {
      throw new SchemaProblem(
        `expected a schema (an object or a boolean) at ${pointer}${suffix}, received ${JSON.stringify(value)}`,
      );
    }
  };
  for (const keyword of SINGLE) {
    const value = node[keyword];
    if (value !== undefined && !Array.isArray(value)) add(`/${keyword}`, value);
  }
  for (const keyword of LISTS) {
    const list = node[keyword];
    if (list === undefined || (keyword === 'items' && !Array.isArray(list))) continue;
    if (!Array.isArray(list) || (list.length === 0 && keyword.endsWith('Of'))) {
      throw new SchemaProblem(`"${keyword}" at ${pointer} must be a non-empty array of schemas`);
    }
    list.forEach((item, i) => add(`/${keyword}/${i}`, item));
  }
  for (const keyword of [...MAPS, 'dependencies']) {
    const map = node[keyword];
    if (map === undefined) continue;
    if (!isJsonRecord(map)) {
      throw new SchemaProblem(`"${keyword}" at ${pointer} must be an object of schemas`);
    }
    for (const [name, sub] of Object.entries(map)) {
      const at = `/${keyword}/${escapePointerSegment(name)}`;
      if (keyword !== 'dependencies' || !Array.isArray(sub)) add(at, sub);
      else if (!isStringList(sub)) {
        throw new SchemaProblem(
          `${pointer}${at} must be an array of strings, received ${JSON.stringify(sub)}`,
        );
      }
    }
  }
  return children;
}
