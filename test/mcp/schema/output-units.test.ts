/**
 * `problemsFromOutputUnits` fed the real output units of
 * @cfworker/json-schema's `validate`: how a failed `oneOf`/`anyOf`,
 * `propertyNames`, `contains`, `false` schemas and the missing-name keywords
 * are worded, and the validator's own words where the schema value cannot
 * be located.
 */
import { dereference, validate, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import {
  decodePointer,
  isJsonRecord,
  memberOf,
  type JsonData,
  type JsonRecord,
} from '../../../src/core/json.js';
import type { ArgumentProblem } from '../../../src/mcp/schema/issues.js';
import {
  problemsFromOutputUnits,
  type SchemaLocator,
} from '../../../src/mcp/schema/output-units.js';

/** The validator's units for `value`, with shortCircuit off as the check runs it. */
function unitsOf(schema: JsonRecord, value: unknown, draft: SchemaDraft = '2020-12') {
  const lookup = dereference(schema);
  const locate: SchemaLocator = (location) =>
    decodePointer(location).reduce<JsonData | undefined>(
      (node, segment) =>
        segment === '$ref' && isJsonRecord(node)
          ? lookup[(node as Schema).__absolute_ref__ ?? '']
          : memberOf(node, segment),
      schema,
    );
  const result = validate(value, schema, draft, lookup, false);
  return { units: result.errors, locate };
}

function problemsOf(
  schema: JsonRecord,
  value: unknown,
  draft: SchemaDraft = '2020-12',
): ArgumentProblem[] {
  const { units, locate } = unitsOf(schema, value, draft);
  return problemsFromOutputUnits(units, value, locate);
}

const at = (path: (string | number)[], keyword: string, message: string): ArgumentProblem => ({
  path,
  keyword,
  message,
});

describe('problemsFromOutputUnits: alternatives', () => {
  it('says how many alternatives a value matches when oneOf wants exactly one', () => {
    const schema = { properties: { v: { oneOf: [{ type: 'number' }, { minimum: 0 }] } } };
    expect(problemsOf(schema, { v: 3 })).toEqual([
      at(['v'], 'oneOf', '"v" must match exactly one alternative, but matches 2'),
    ]);
  });

  it('merges alternatives that differ only by type into one type finding', () => {
    const schema = {
      properties: { v: { anyOf: [{ type: 'string' }, { type: ['integer', 'null'] }] } },
    };
    expect(problemsOf(schema, { v: 1.5 })).toEqual([
      at(['v'], 'type', '"v" must be a string, an integer or null; received a number (1.5)'),
    ]);
  });

  it('lists what each alternative wanted, numbered', () => {
    const schema = {
      properties: {
        v: {
          oneOf: [
            { type: 'string', minLength: 2 },
            { type: 'object', required: ['id'] },
          ],
        },
      },
    };
    expect(problemsOf(schema, { v: 'a' })).toEqual([
      at(
        ['v'],
        'oneOf',
        '"v" must match exactly one of 2 alternatives, but: (1) must have at least 2 characters; received "a" (1); (2) must be an object; received a string ("a")',
      ),
    ]);
  });

  it('names nested fields relative to the value in an alternative', () => {
    const schema = {
      anyOf: [
        { required: ['byId'] },
        { properties: { byName: { type: 'string' } }, required: ['byName'] },
      ],
    };
    expect(problemsOf(schema, { byName: 5 })).toEqual([
      at(
        [],
        'anyOf',
        'the arguments must match at least one of 2 alternatives, but: (1) "byId" is required; (2) "byName" must be a string; received a number (5)',
      ),
    ]);
  });
});

describe('problemsFromOutputUnits: keywords with their own wording', () => {
  it('judges the property name, not its value, under propertyNames', () => {
    expect(problemsOf({ propertyNames: { maxLength: 3 } }, { ok: 1, long: 2 })).toEqual([
      at(
        ['long'],
        'propertyNames',
        '"long" is not an allowed property name: must have at most 3 characters; received "long" (4)',
      ),
    ]);
    expect(problemsOf({ propertyNames: { pattern: '^[a-z]+$' } }, { Bad: 1 })).toEqual([
      at(
        ['Bad'],
        'propertyNames',
        '"Bad" is not an allowed property name: must match /^[a-z]+$/u; received "Bad"',
      ),
    ]);
  });

  it('says contains wants one matching item', () => {
    const schema = { properties: { l: { contains: { type: 'string' } } } };
    expect(problemsOf(schema, { l: [1, 2] })).toEqual([
      at(
        ['l'],
        'contains',
        '"l" must contain at least one item that matches the "contains" schema',
      ),
    ]);
  });

  it.each([
    [
      'additionalProperties',
      { properties: { a: {} }, additionalProperties: false },
      { a: 1, x: 2 },
      at(['x'], 'false', '"x" is not an allowed property'),
    ],
    [
      'unevaluatedProperties',
      { properties: { a: {} }, unevaluatedProperties: false },
      { a: 1, x: 2 },
      at(['x'], 'false', '"x" is not an allowed property'),
    ],
    [
      'items after prefixItems',
      { properties: { l: { prefixItems: [{}], items: false } } },
      { l: [1, 2] },
      at(['l', 1], 'false', '"l[1]" is not an allowed item'),
    ],
    [
      'a property',
      { properties: { a: false } },
      { a: 1 },
      at(['a'], 'false', '"a" is not allowed here'),
    ],
  ])('words a false schema under %s', (_name, schema, value, problem) => {
    expect(problemsOf(schema, value)).toEqual([problem]);
  });

  it('words a false additionalItems schema in draft-07', () => {
    const schema = { properties: { l: { items: [{}], additionalItems: false } } };
    expect(problemsOf(schema, { l: [1, 2, 3] }, '7')).toEqual([
      at(['l', 1], 'false', '"l[1]" is not an allowed item'),
      at(['l', 2], 'false', '"l[2]" is not an allowed item'),
    ]);
  });

  it('names each missing property at its own path', () => {
    expect(problemsOf({ required: ['a', 'b', 'c'] }, { b: 1 })).toEqual([
      at(['a'], 'required', '"a" is required'),
      at(['c'], 'required', '"c" is required'),
    ]);
  });

  it('names what dependentRequired wants and why', () => {
    const schema = { dependentRequired: { card: ['billing', 'zip'], other: ['x'] } };
    expect(problemsOf(schema, { card: 1, zip: 2 })).toEqual([
      at(['billing'], 'dependentRequired', '"billing" is required when "card" is present'),
    ]);
  });

  it('names what draft-07 dependencies want, as lists and as schemas', () => {
    const schema = { dependencies: { card: ['billing'], vip: { required: ['level'] } } };
    expect(problemsOf(schema, { card: 1, vip: true }, '7')).toEqual([
      at(['billing'], 'dependencies', '"billing" is required when "card" is present'),
      at(['level'], 'required', '"level" is required'),
    ]);
  });

  it('gives way from a summary to its details, across $ref, allOf and items', () => {
    const schema = {
      $defs: { Tag: { type: 'string', maxLength: 2 } },
      allOf: [{ properties: { tags: { type: 'array', items: { $ref: '#/$defs/Tag' } } } }],
    };
    expect(problemsOf(schema, { tags: ['ok', 'long', 3] })).toEqual([
      at(['tags', 1], 'maxLength', '"tags[1]" must have at most 2 characters; received "long" (4)'),
      at(['tags', 2], 'type', '"tags[2]" must be a string; received a number (3)'),
    ]);
  });

  it('reports one problem per path and keyword', () => {
    const schema = {
      allOf: [{ properties: { s: { minLength: 3 } } }, { properties: { s: { minLength: 3 } } }],
    };
    expect(problemsOf(schema, { s: 'a' })).toEqual([
      at(['s'], 'minLength', '"s" must have at least 3 characters; received "a" (1)'),
    ]);
  });

  it('keeps numeric-looking keys of objects as names and array indexes as numbers', () => {
    const schema = { properties: { '0': { type: 'string' }, l: { items: { type: 'string' } } } };
    expect(problemsOf(schema, { '0': 1, l: ['a', 2] })).toEqual([
      at(['0'], 'type', '"[\\"0\\"]" must be a string; received a number (1)'),
      at(['l', 1], 'type', '"l[1]" must be a string; received a number (2)'),
    ]);
  });

  it('words uniqueItems, not and if/then from the validator’s units', () => {
    const schema = {
      properties: {
        l: { uniqueItems: true },
        n: { not: { const: 'admin' } },
      },
      if: { required: ['kind'] },
      then: { required: ['id'] },
    };
    expect(problemsOf(schema, { l: [1, 2, 1], n: 'admin', kind: 'x' })).toEqual([
      at(['id'], 'required', '"id" is required'),
      at(['l'], 'uniqueItems', '"l" must not repeat items; item 2 equals item 0'),
      at(['n'], 'not', '"n" must not match the schema under "not"'),
    ]);
  });
});

describe('problemsFromOutputUnits: a schema value that cannot be located', () => {
  it('falls back to the validator’s words', () => {
    const schema = { properties: { s: { minLength: 2 } } };
    const { units } = unitsOf(schema, { s: 'a' });
    const leaf = units.find((unit) => unit.keyword === 'minLength');
    expect(leaf).toBeDefined();
    expect(problemsFromOutputUnits(units, { s: 'a' }, () => undefined)).toEqual([
      at(['s'], 'minLength', `"s" is invalid: ${leaf?.error ?? ''}`),
    ]);
  });

  it('falls back for required too, at the object, not at a guessed name', () => {
    const schema = { properties: { o: { required: ['x'] } } };
    const { units } = unitsOf(schema, { o: {} });
    const leaf = units.find((unit) => unit.keyword === 'required');
    expect(problemsFromOutputUnits(units, { o: {} }, () => undefined)).toEqual([
      at(['o'], 'required', `"o" is invalid: ${leaf?.error ?? ''}`),
    ]);
  });

  it('has nothing to say about no units', () => {
    expect(problemsFromOutputUnits([], {}, () => undefined)).toEqual([]);
  });
});
