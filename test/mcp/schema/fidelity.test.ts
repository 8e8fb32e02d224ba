/**
 * Faithfulness: for random schemas and random arguments, our verdict equals
 * the verdict of @cfworker/json-schema, used here as the reference JSON
 * Schema implementation, on the raw schema: what our analysis changes in
 * its private copy (formats dropped, patterns made Unicode-aware or checked
 * with RE2, `$dynamicRef` rewritten) must not change a verdict. The
 * pitfalls an earlier zod-based path had are pinned one by one below.
 */
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { McpSchemaError } from '../../../src/core/errors.js';
import { clearSchemaCache, createInputValidator } from '../../../src/mcp/schema/index.js';
import { argumentsArb, rootSchemaArb, type Json } from './arbitraries.js';

const ids = { serverName: 'fuzz', toolName: 'tool' };

/** The reference verdict, on a copy: the reference annotates schemas it is given. */
function referenceAccepts(schema: Json, value: Json): boolean {
  return new Validator(structuredClone(schema) as object, '2020-12', false).validate(value).valid;
}

function checkAgainstReference(
  schemas: fc.Arbitrary<Json>,
  runs: number,
  args: fc.Arbitrary<Json> = argumentsArb,
): void {
  fc.assert(
    fc.property(schemas, fc.array(args, { minLength: 1, maxLength: 6 }), (schema, values) => {
      let validator;
      try {
        validator = createInputValidator(schema, ids);
      } catch (error) {
        // A pattern where RE2 cannot take it is refused by design (patterns.test.ts).
        const refused = error instanceof McpSchemaError && /linear time/.test(error.reason);
        fc.pre(!refused);
        throw error;
      }
      for (const value of values) {
        const ours = validator.safeParse(value).success;
        expect({ schema, value, ours }).toEqual({
          schema,
          value,
          ours: referenceAccepts(schema, value),
        });
      }
    }),
    { numRuns: runs },
  );
}

beforeEach(() => {
  clearSchemaCache();
});

describe('fidelity against the reference validator', () => {
  it('agrees on random schemas of every kind', () => {
    checkAgainstReference(rootSchemaArb, 800);
  });

  it('agrees on flat schemas, which take the quick path, and on arguments near them', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'toString', '__proto__');
    const property = fc.record(
      {
        type: fc.constantFrom('string', 'number', 'integer', 'boolean'),
        description: fc.string(),
      },
      { requiredKeys: ['type'] },
    );
    const flat = fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(name, property),
        required: fc.uniqueArray(name, { maxLength: 3 }),
        additionalProperties: fc.boolean(),
      },
      { requiredKeys: ['type', 'properties'] },
    );
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      // Arguments are JSON (a value JSON cannot carry is refused before any check: spec-cases.test.ts).
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    checkAgainstReference(flat, 500, fc.dictionary(name, scalar));
  });

  /** Each pitfall zod's converter had, pinned with a value it got wrong. */
  const pitfalls: readonly [string, Json, Json][] = [
    [
      'a required property whose schema may be "nothing" (union of true and a guarded object)',
      {
        type: 'object',
        properties: { c: { anyOf: [{ type: 'object', maxProperties: 2 }, true] } },
        required: ['c'],
      },
      {},
    ],
    [
      'a tuple position below minItems that accepts anything',
      { type: 'object', properties: { t: { type: 'array', prefixItems: [{}], minItems: 1 } } },
      { t: [] },
    ],
    [
      'minItems on an array without items',
      { type: 'object', properties: { l: { type: 'array', minItems: 2 } } },
      { l: [1] },
    ],
    [
      'additionalProperties: false beside a passing anyOf',
      {
        type: 'object',
        properties: { a: {} },
        additionalProperties: false,
        anyOf: [{ required: ['a'] }],
      },
      { a: 1, b: 2 },
    ],
    [
      'anyOf beside oneOf without a type',
      {
        type: 'object',
        properties: {
          v: { anyOf: [{ type: 'string' }], oneOf: [{ minLength: 1 }, { type: 'number' }] },
        },
      },
      { v: 5 },
    ],
    [
      'an optional property named like an Object.prototype member',
      { type: 'object', properties: { toString: { type: 'string' } } },
      {},
    ],
    ['a required name without a property schema', { type: 'object', required: ['x'] }, {}],
    [
      'a required property with a default',
      { type: 'object', properties: { x: { type: 'string', default: 'd' } }, required: ['x'] },
      {},
    ],
    [
      'properties without "type"',
      { type: 'object', properties: { o: { properties: { a: { type: 'string' } } } } },
      { o: { a: 1 } },
    ],
    [
      'maxLength on an emoji',
      { type: 'object', properties: { s: { type: 'string', maxLength: 1 } } },
      { s: '😀' },
    ],
    [
      'a pattern that needs the u flag',
      { type: 'object', properties: { s: { type: 'string', pattern: '^\\p{L}+$' } } },
      { s: 'é' },
    ],
    [
      'multipleOf with a tiny float',
      { type: 'object', properties: { n: { type: 'number', multipleOf: 2 } } },
      { n: 1e-7 },
    ],
    [
      'enum of objects',
      { type: 'object', properties: { e: { enum: [{ a: 1 }] } } },
      { e: { a: 1 } },
    ],
  ];
  for (const [name, schema, value] of pitfalls) {
    it(`agrees on ${name}`, () => {
      const validator = createInputValidator(schema, ids);
      expect(validator.safeParse(value).success).toBe(referenceAccepts(schema, value));
    });
  }

  it('checks a pattern that opens with look-aheads (a password rule) as each part at the start', () => {
    for (const pattern of [
      '^(?=.*[A-Z])(?=.*\\d).{8,}$',
      '^(?=.*a)',
      '^(?=a|b)c?',
      '^(?=[^)]*\\))x',
      '^(?=(a|b))(?=.*z).*$',
    ]) {
      clearSchemaCache();
      const schema = { type: 'object', properties: { p: { type: 'string', pattern } } };
      const validator = createInputValidator(schema, ids);
      const unit = fc.constantFrom('a', 'b', 'c', 'x', 'z', 'A', 'Z', '1', '9', ')', ' ', '\n');
      fc.assert(
        fc.property(fc.string({ unit }), (text) => {
          expect({ pattern, text, ours: validator.safeParse({ p: text }).success }).toEqual({
            pattern,
            text,
            ours: referenceAccepts(schema, { p: text }),
          });
        }),
        { numRuns: 300 },
      );
    }
  });

  it('reads a draft-07 branch with a $ref by its target, not the type beside it', () => {
    // Draft-07 ignores keywords beside `$ref`: the second branch takes any string.
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { s: { type: 'string' } },
      properties: {
        a: {
          anyOf: [
            { type: 'string', pattern: '^a' },
            { $ref: '#/definitions/s', type: 'number' },
          ],
        },
      },
    };
    const validator = createInputValidator(schema, ids);
    const reference = (value: Json): boolean =>
      new Validator(structuredClone(schema) as object, '7', false).validate(value).valid;
    for (const value of [{ a: 'b' }, { a: 'abc' }, { a: 3 }, { a: null }]) {
      expect({ value, ours: validator.safeParse(value).success }).toEqual({
        value,
        ours: reference(value),
      });
    }
    expect(validator.safeParse({ a: 'b' }).success).toBe(true);
  });

  it('reads a 2020-12 branch with a $ref and a type by both: the pattern of the string branch is checked', () => {
    // In 2020-12 `type: number` beside a `$ref` applies: only the first branch takes strings.
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { n: { minimum: 0 } },
      properties: {
        a: {
          anyOf: [
            { type: 'string', pattern: '^a+$' },
            { $ref: '#/$defs/n', type: 'number' },
          ],
        },
      },
    };
    const validator = createInputValidator(schema, ids);
    const reference = (value: Json): boolean =>
      new Validator(structuredClone(schema) as object, '2020-12', false).validate(value).valid;
    for (const value of [{ a: 'aaa' }, { a: 'b' }, { a: 3 }, { a: -1 }]) {
      expect({ value, ours: validator.safeParse(value).success }).toEqual({
        value,
        ours: reference(value),
      });
    }
    expect(validator.safeParse({ a: 'b' }).success).toBe(false);
  });

  it('judges integers beyond 2^53 as the reference does', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const validator = createInputValidator(schema, ids);
    expect(validator.safeParse({ n: 2 ** 60 }).success).toBe(
      referenceAccepts(schema, { n: 2 ** 60 }),
    );
  });
});
