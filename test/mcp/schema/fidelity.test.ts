/**
 * Faithfulness: for random schemas and random arguments, our verdict equals
 * the verdict of @cfworker/json-schema, used here as the reference JSON
 * Schema implementation. During development these properties ran for
 * 250,000 cases; the zod pitfalls they and reading zod's converter turned up
 * are pinned one by one below.
 */
import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  clearSchemaCache,
  createInputValidator,
  inputValidatorInfo,
  type EngineKind,
} from '../../../src/mcp/schema/index.js';
import { argumentsArb, rootSchemaArb, type Json } from './arbitraries.js';

const ids = { serverName: 'fuzz', toolName: 'tool' };

/** The reference verdict, on a copy: the reference annotates schemas it is given. */
function referenceAccepts(schema: Json, value: Json): boolean {
  return new Validator(structuredClone(schema) as object, '2020-12', false).validate(value).valid;
}

/** Removes what sends a schema to the JSON Schema path, so the zod path is exercised too. */
function zodFriendly(value: Json): Json {
  if (Array.isArray(value)) return value.map(zodFriendly);
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) {
    if (['not', 'if', 'then', 'else', 'maxLength', 'multipleOf'].includes(key)) continue;
    if (key === 'minLength' && typeof item === 'number') out[key] = Math.min(item, 1);
    else if (key === 'pattern' && !['^a', '^[a-z]+$', 'b', '\\d'].includes(item as string))
      continue;
    else out[key] = zodFriendly(item);
  }
  return out;
}

function checkAgainstReference(
  schemas: fc.Arbitrary<Json>,
  runs: number,
): Record<EngineKind, number> {
  const engines: Record<EngineKind, number> = { zod: 0, 'json-schema': 0 };
  fc.assert(
    fc.property(
      schemas,
      fc.array(argumentsArb, { minLength: 1, maxLength: 6 }),
      (schema, values) => {
        const validator = createInputValidator(schema, ids);
        for (const value of values) {
          const ours = validator.safeParse(value).success;
          expect({ schema, value, ours }).toEqual({
            schema,
            value,
            ours: referenceAccepts(schema, value),
          });
        }
        const engine = inputValidatorInfo(validator)?.engine;
        if (engine !== undefined) engines[engine]++;
      },
    ),
    { numRuns: runs },
  );
  return engines;
}

beforeEach(() => {
  clearSchemaCache();
});

describe('fidelity against the reference validator', () => {
  it('agrees on random schemas of every kind', () => {
    const engines = checkAgainstReference(rootSchemaArb, 400);
    expect(engines['json-schema']).toBeGreaterThan(0);
  });

  it('agrees on random schemas that take the zod path', () => {
    const engines = checkAgainstReference(rootSchemaArb.map(zodFriendly), 400);
    // Most of these must really have been converted by zod, or the test proves little.
    expect(engines.zod).toBeGreaterThan(engines['json-schema']);
  });

  /** Each pitfall of zod's converter we found, pinned with a value it got wrong. */
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

  it('diverges in one documented place: integers beyond 2^53 on the zod path', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const validator = createInputValidator(schema, ids);
    expect(inputValidatorInfo(validator)?.engine).toBe('zod');
    expect(referenceAccepts(schema, { n: 2 ** 60 })).toBe(true);
    const result = validator.safeParse({ n: 2 ** 60 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('lose precision');
  });
});
