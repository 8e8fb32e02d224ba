/**
 * Pins `prepareCodegenSchema` beyond what `codegen.test.ts` covers: the exact
 * prepared schema and the exact JSON-Pointer issue for each form the zod
 * converter would loosen, `$ref` resolution (escapes, arrays, descriptions),
 * and that the input is never changed.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_ISSUES,
  MAX_NODES,
  MAX_TEXT,
  prepareCodegenSchema,
} from '../../src/ecosystem/codegen-schema.js';

/**
 * A schema of a few KB whose `$defs` each refer twice to the next: inlined,
 * it has 2^levels copies of the last one.
 */
function doublingSchema(
  levels: number,
  last: unknown = { type: 'string' },
): Record<string, unknown> {
  const $defs: Record<string, unknown> = {};
  for (let level = 0; level < levels; level += 1) {
    const next = { $ref: `#/$defs/d${level + 1}` };
    $defs[`d${level}`] = { type: 'object', properties: { a: next, b: next } };
  }
  $defs[`d${levels}`] = last;
  return { type: 'object', $defs, properties: { x: { $ref: '#/$defs/d0' } } };
}

/** Wraps `property` as the one property `p` of an object root. */
function under(property: unknown): Record<string, unknown> {
  return { type: 'object', properties: { p: property } };
}

describe('prepareCodegenSchema', () => {
  it.each([null, 'object', 3, [], true])('reads %j as a non-object schema', (schema) => {
    expect(prepareCodegenSchema(schema)).toEqual({
      schema: { type: 'object' },
      issues: ['#: the input schema is not an object'],
    });
  });

  it('gives an untyped root "type": "object", without changing the input', () => {
    const input = { properties: { a: { type: 'string', title: 'A', 'x-ui': 1 } } };
    const frozen = JSON.stringify(input);
    expect(prepareCodegenSchema(input)).toEqual({
      schema: { type: 'object', properties: { a: { type: 'string' } } },
      issues: [],
    });
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it('keeps a pattern without choices and leaves out, reported, one a backtracking engine could stall on', () => {
    expect(
      prepareCodegenSchema({
        type: 'object',
        properties: {
          sku: { type: 'string', pattern: '^[A-Z]{3}$' },
          digits: { type: 'string', pattern: '^\\d*\\d*\\d*x$' },
        },
      }),
    ).toEqual({
      schema: {
        type: 'object',
        properties: { sku: { type: 'string', pattern: '^[A-Z]{3}$' }, digits: { type: 'string' } },
      },
      issues: [
        "#/properties/digits/pattern: left out, as it would run on JavaScript's backtracking engine (the tool's own check runs it in linear time)",
      ],
    });
  });

  it('reports a root that is not an object', () => {
    expect(prepareCodegenSchema({ type: 'array', items: { type: 'string' } })).toEqual({
      schema: { type: 'array', items: { type: 'string' } },
      issues: ['#: the root "type" is not "object"'],
    });
  });

  it('keeps string descriptions, drops other ones and every annotation', () => {
    expect(
      prepareCodegenSchema(
        under({
          type: 'string',
          description: 'kept',
          default: 'x',
          format: 'email',
          examples: ['a'],
          deprecated: true,
          $comment: 'c',
        }),
      ).schema,
    ).toEqual(under({ type: 'string', description: 'kept' }));
    expect(prepareCodegenSchema(under({ type: 'string', description: 7 })).schema).toEqual(
      under({ type: 'string' }),
    );
  });

  it('keeps boolean schemas as they are', () => {
    expect(
      prepareCodegenSchema({
        type: 'object',
        properties: { yes: true, no: false },
        additionalProperties: false,
      }),
    ).toEqual({
      schema: { type: 'object', properties: { yes: true, no: false }, additionalProperties: false },
      issues: [],
    });
  });

  it('inlines a $ref with escaped segments, through arrays, keeping its description', () => {
    const { schema, issues } = prepareCodegenSchema({
      type: 'object',
      properties: {
        slash: { $ref: '#/$defs/a~1b', description: 'a path' },
        tilde: { $ref: '#/$defs/c~0d' },
        encoded: { $ref: '#/$defs/a%2Fb' },
        indexed: { $ref: '#/$defs/list/anyOf/1' },
        legacy: { $ref: '#/definitions/n' },
      },
      $defs: {
        'a/b': { type: 'string', description: 'inner' },
        'c~d': { type: 'boolean' },
        list: { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] },
      },
      definitions: { n: { type: 'null' } },
    });
    expect(issues).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        slash: { type: 'string', description: 'a path' },
        tilde: { type: 'boolean' },
        encoded: { type: 'string', description: 'inner' },
        indexed: { type: 'integer', minimum: 0 },
        legacy: { type: 'null' },
      },
    });
  });

  it.each<[unknown, string]>([
    [{ type: 'strng' }, '#/properties/p: "type" is not a list of JSON types'],
    [{ type: [] }, '#/properties/p: "type" is not a list of JSON types'],
    [7, '#/properties/p: not a schema'],
    [{ type: 'string', minimum: 1 }, '#/properties/p: "minimum" is not converted exactly'],
    [{ minLength: 1 }, '#/properties/p: "minLength" on a schema without "type"'],
    [{ allOf: [{ type: 'string' }] }, '#/properties/p: "allOf" is not converted exactly'],
    [{ $ref: '#/$defs/none' }, '#/properties/p: "$ref" #/$defs/none does not resolve'],
    [{ $ref: 5 }, '#/properties/p: "$ref" 5 is not local'],
    [{ $ref: '#/$defs/s', type: 'string' }, '#/properties/p: "$ref" beside type'],
    [{ type: 'object', properties: [] }, '#/properties/p/properties: not an object'],
    [
      { type: 'object', properties: {}, required: 'a' },
      '#/properties/p/required: not a list of names',
    ],
    [{ anyOf: [] }, '#/properties/p/anyOf: not a non-empty list'],
    [
      { type: 'number', exclusiveMinimum: true },
      '#/properties/p/exclusiveMinimum: a boolean (draft-04) form',
    ],
    [
      { enum: [{ a: 1 }] },
      '#/properties/p: "enum" with values other than strings, numbers, booleans and null',
    ],
    [{ type: 'integer', const: 1.5 }, '#/properties/p: "const" values that "type" refuses'],
    [{ type: 'string', enum: ['a', null] }, '#/properties/p: "enum" values that "type" refuses'],
  ])('reports %j with its pointer', (property, issue) => {
    expect(prepareCodegenSchema(under(property)).issues).toEqual([issue]);
  });

  it('escapes ~ and / in the pointer of an issue', () => {
    expect(
      prepareCodegenSchema({ type: 'object', properties: { 'a/b~c': { type: 'nope' } } }).issues,
    ).toEqual(['#/properties/a~1b~0c: "type" is not a list of JSON types']);
  });

  it('accepts const and enum values that "type" allows, integers included', () => {
    expect(
      prepareCodegenSchema(under({ type: ['integer', 'null'], enum: [1, 2, null] })).issues,
    ).toEqual([]);
    expect(prepareCodegenSchema(under({ type: 'number', const: 2 })).issues).toEqual([]);
  });

  it('reports a schema nested past 64 levels once, at the level it stops', () => {
    let node: unknown = { type: 'string' };
    for (let level = 0; level < 70; level += 1) node = { type: 'array', items: node };
    const { issues } = prepareCodegenSchema(under(node));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toBe(`#/properties/p${'/items'.repeat(64)}: nested too deeply`);
  });

  it('reports a $ref cycle through two definitions', () => {
    expect(
      prepareCodegenSchema({
        type: 'object',
        properties: { p: { $ref: '#/$defs/a' } },
        $defs: {
          a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } } },
          b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } } },
        },
      }).issues,
    ).toEqual(['#/properties/p/properties/b/properties/a: recursive "$ref" #/$defs/a']);
  });

  // A bare "%" is not URI-encoding: the segment is read as it is, as the validator does.
  it('resolves a $ref whose segment holds a bare "%" instead of throwing', () => {
    const { issues } = prepareCodegenSchema({
      type: 'object',
      properties: { p: { $ref: '#/$defs/50%' } },
      $defs: { '50%': { type: 'string' } },
    });
    expect(issues).toEqual([]);
  });

  describe('bounds what inlining $refs copies', () => {
    // 2^16 copies here; 24 levels ran out of memory before the budget.
    it('stops a doubling $ref chain past the node budget', () => {
      const { issues } = prepareCodegenSchema(doublingSchema(16));
      expect(issues).toEqual([
        `#: too large to convert, over ${MAX_NODES} schema nodes with its "$ref"s inlined`,
      ]);
    });

    it('stops past the text budget when few nodes copy long descriptions', () => {
      // 2^8 copies of a 2 KB description: 512 KB, in fewer than 600 nodes.
      const { issues } = prepareCodegenSchema(
        doublingSchema(8, { type: 'string', description: 'd'.repeat(2048) }),
      );
      expect(issues).toEqual([
        `#: too large to convert, over ${MAX_TEXT} characters of names, descriptions and values with its "$ref"s inlined`,
      ]);
    });

    it('still inlines a doubling chain that stays within the budgets', () => {
      const { schema, issues } = prepareCodegenSchema(doublingSchema(8));
      expect(issues).toEqual([]);
      expect(JSON.stringify(schema).match(/"string"/g)).toHaveLength(2 ** 8);
    });

    it(`keeps at most ${MAX_ISSUES} issues and counts the rest`, () => {
      const properties = Object.fromEntries(
        Array.from({ length: MAX_ISSUES + 50 }, (_, index) => [`p${index}`, { not: {} }]),
      );
      const { issues } = prepareCodegenSchema({ type: 'object', properties });
      expect(issues).toHaveLength(MAX_ISSUES + 1);
      expect(issues[0]).toBe('#/properties/p0: "not" is not converted exactly');
      expect(issues.at(-1)).toBe('#: 50 more issues left out');
    });
  });

  describe('forms the converter reads differently from the run time', () => {
    it.each<[Record<string, unknown>, Record<string, unknown>]>([
      [
        { type: 'number', minimum: 0, exclusiveMinimum: 10 },
        { type: 'number', exclusiveMinimum: 10 },
      ],
      [
        { type: 'number', minimum: 10, exclusiveMinimum: 0 },
        { type: 'number', minimum: 10 },
      ],
      [
        { type: 'integer', minimum: 3, exclusiveMinimum: 3 },
        { type: 'integer', exclusiveMinimum: 3 },
      ],
      [
        { type: 'number', maximum: 100, exclusiveMaximum: 10 },
        { type: 'number', exclusiveMaximum: 10 },
      ],
      [
        { type: 'number', maximum: 10, exclusiveMaximum: 100 },
        { type: 'number', maximum: 10 },
      ],
      [
        { type: 'array', items: false, maxItems: 3 },
        { type: 'array', maxItems: 0 },
      ],
      [
        { type: 'array', items: { $ref: '#/$defs/never' } },
        { type: 'array', maxItems: 0 },
      ],
    ])('rewrites %j to the stricter %j', (property, prepared) => {
      expect(prepareCodegenSchema({ ...under(property), $defs: { never: false } })).toEqual({
        schema: under(prepared),
        issues: [],
      });
    });

    it.each<[unknown, string]>([
      [
        { type: 'string', enum: ['a', 'bbbbbb'], minLength: 5 },
        '#/properties/p: "enum" beside minLength',
      ],
      [
        { type: 'string', enum: ['safe', 'rm-rf'], const: 'safe' },
        '#/properties/p: "enum" beside const',
      ],
      [{ type: 'string', const: 'x', pattern: '^y$' }, '#/properties/p: "const" beside pattern'],
      [{ type: 'number', enum: [1, 2], minimum: 2 }, '#/properties/p: "enum" beside minimum'],
      [{ type: 'string', minLength: '1' }, '#/properties/p/minLength: not a non-negative integer'],
      [{ type: 'array', maxItems: 1.5 }, '#/properties/p/maxItems: not a non-negative integer'],
      [{ type: 'number', minimum: '0' }, '#/properties/p/minimum: not a number'],
      [{ type: 'number', multipleOf: 0 }, '#/properties/p/multipleOf: not a positive number'],
    ])('reports %j', (property, issue) => {
      expect(prepareCodegenSchema(under(property)).issues).toEqual([issue]);
    });

    it('keeps enum and const beside "type" and a description', () => {
      expect(
        prepareCodegenSchema(
          under({ type: ['string', 'null'], enum: ['a', null], description: 'd' }),
        ).issues,
      ).toEqual([]);
    });
  });
});
