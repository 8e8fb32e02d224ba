/**
 * `schemaBoundsRefusal` read directly: the size limit's message, `$ref`
 * chains that loop through keywords applying to the same value (refused
 * with the chain), and recursion that data ends (accepted).
 */
import { describe, expect, it } from 'vitest';
import type { JsonData, JsonRecord } from '../../../src/core/json.js';
import { MAX_SAME_VALUE_CHAIN, schemaBoundsRefusal } from '../../../src/mcp/schema/bounds.js';
import {
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_TEXT_LENGTH,
  surveySchema,
} from '../../../src/mcp/schema/json.js';
import {
  clearSchemaCache,
  createInputValidator,
  inputSchemaRefusal,
} from '../../../src/mcp/schema/index.js';

const loop = (chain: string): string =>
  `its $refs loop without any data in between (${chain}), so no value could ever be checked against it`;

describe('schemaBoundsRefusal: depth', () => {
  /** An object schema holding `levels` more objects or arrays, one inside the other, at `where`. */
  const nested = (levels: number, where: 'default' | 'properties'): JsonRecord => {
    let inner: JsonData = 'x';
    for (let level = 0; level < levels; level++) {
      inner = where === 'default' ? [inner] : { type: 'object', properties: { a: inner } };
    }
    return where === 'default'
      ? { type: 'object', default: inner }
      : { type: 'object', properties: { a: inner } };
  };
  const ids = { serverName: 'srv', toolName: 'deep' };

  // Bug: past the depth a validator's copy may have, a schema passed at
  // connect and was refused only when the tool was first called.
  it('refuses at connect exactly what the validator would refuse for its depth, saying where', () => {
    const verdicts = new Set<boolean>();
    for (const where of ['default', 'properties'] as const) {
      // Around the limit: arrays one level each, property schemas two (the schema and its map).
      const perLevel = where === 'default' ? 1 : 2;
      for (let depth = MAX_SCHEMA_DEPTH - 10; depth <= MAX_SCHEMA_DEPTH + 10; depth += perLevel) {
        const schema = nested(depth / perLevel, where);
        let built: string | undefined;
        try {
          clearSchemaCache();
          createInputValidator(schema, ids);
        } catch (error) {
          built = (error as Error).message;
        }
        const tooDeep = built?.includes('nests deeper') === true;
        const atConnect = inputSchemaRefusal(schema);
        expect(atConnect !== undefined, `${where}, ${depth}: ${atConnect} / ${built}`).toBe(
          tooDeep,
        );
        if (atConnect !== undefined) {
          expect(atConnect).toMatch(
            new RegExp(`^the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels \\(at #/`),
          );
        }
        verdicts.add(tooDeep);
      }
    }
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it('needs no look at the depth of a schema with fewer containers than the limit', () => {
    const schema = nested(50, 'default');
    expect(surveySchema(schema).containers).toBeLessThan(MAX_SCHEMA_DEPTH);
    expect(schemaBoundsRefusal(schema)).toBeUndefined();
  });
});

describe('schemaBoundsRefusal: size', () => {
  it('refuses a schema over the limit, with its size', () => {
    const schema = { type: 'object', description: 'x'.repeat(MAX_SCHEMA_TEXT_LENGTH) };
    const { chars } = surveySchema(schema);
    expect(chars).toBeGreaterThan(MAX_SCHEMA_TEXT_LENGTH);
    expect(schemaBoundsRefusal(schema)).toBe(
      `the schema is ${chars} characters of JSON, above the limit of 262144`,
    );
  });

  it('takes the exact length from the caller when it is known', () => {
    const schema = { type: 'object' };
    const survey = surveySchema(schema);
    expect(schemaBoundsRefusal(schema, { ...survey, chars: MAX_SCHEMA_TEXT_LENGTH })).toBe(
      undefined,
    );
    expect(schemaBoundsRefusal(schema, { ...survey, chars: MAX_SCHEMA_TEXT_LENGTH + 1 })).toBe(
      'the schema is 262145 characters of JSON, above the limit of 262144',
    );
  });

  it('reports the size before a loop', () => {
    const schema = { $ref: '#' };
    expect(schemaBoundsRefusal(schema, { ...surveySchema(schema), chars: 300_000 })).toBe(
      'the schema is 300000 characters of JSON, above the limit of 262144',
    );
  });
});

describe('schemaBoundsRefusal: $ref loops', () => {
  it.each([
    ['allOf', { a: { allOf: [{ type: 'object' }, { $ref: '#/$defs/a' }] } }],
    ['anyOf', { a: { anyOf: [{ $ref: '#/$defs/a' }] } }],
    ['oneOf', { a: { oneOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] } }],
    ['not', { a: { not: { $ref: '#/$defs/a' } } }],
    ['if', { a: { if: { $ref: '#/$defs/a' } } }],
    ['then', { a: { if: true, then: { $ref: '#/$defs/a' } } }],
    ['else', { a: { if: false, else: { $ref: '#/$defs/a' } } }],
  ])('refuses a loop through %s, naming the chain', (_keyword, defs) => {
    expect(schemaBoundsRefusal({ type: 'object', $defs: defs })).toBe(loop('#/$defs/a'));
  });

  it('refuses a chain of $refs that comes back, naming each $ref followed', () => {
    expect(
      schemaBoundsRefusal({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }),
    ).toBe(loop('#/$defs/a → #/$defs/b'));
    expect(
      schemaBoundsRefusal({
        type: 'object',
        properties: { p: { $ref: '#/$defs/x' } },
        $defs: {
          x: { $ref: '#/$defs/y' },
          y: { allOf: [{ not: { $ref: '#/$defs/z' } }] },
          z: { anyOf: [{ $ref: '#/$defs/x' }] },
        },
      }),
    ).toBe(loop('#/$defs/x → #/$defs/y → #/$defs/z'));
  });

  it('refuses a loop through the root, "#"', () => {
    expect(schemaBoundsRefusal({ type: 'object', allOf: [{ $ref: '#' }] })).toBe(loop('#'));
    expect(schemaBoundsRefusal({ $ref: '#' })).toBe(loop('#'));
    expect(
      schemaBoundsRefusal({
        type: 'object',
        $defs: { r: { $ref: '#' } },
        oneOf: [{ $ref: '#/$defs/r' }],
      }),
    ).toBe(loop('#/$defs/r → #'));
  });

  it('refuses a $ref to itself, wherever it stands', () => {
    expect(schemaBoundsRefusal({ properties: { a: { $ref: '#/properties/a' } } })).toBe(
      loop('#/properties/a'),
    );
  });

  it('follows escaped and percent-encoded pointers', () => {
    expect(schemaBoundsRefusal({ $defs: { 'a/b': { not: { $ref: '#/$defs/a~1b' } } } })).toBe(
      loop('#/$defs/a~1b'),
    );
    expect(schemaBoundsRefusal({ $defs: { 'a b': { allOf: [{ $ref: '#/$defs/a%20b' }] } } })).toBe(
      loop('#/$defs/a%20b'),
    );
  });

  it.each([
    [
      'properties',
      { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#' } } },
    ],
    [
      'items',
      {
        type: 'object',
        properties: { list: { type: 'array', items: { $ref: '#/properties/list' } } },
      },
    ],
    [
      'properties then items, under $defs',
      {
        $defs: { n: { properties: { c: { type: 'array', items: { $ref: '#/$defs/n' } } } } },
        allOf: [{ $ref: '#/$defs/n' }],
      },
    ],
    ['additionalProperties', { additionalProperties: { $ref: '#' } }],
    ['prefixItems', { $defs: { t: { prefixItems: [{ $ref: '#/$defs/t' }] } } }],
  ])('accepts recursion through %s: data ends it', (_name, schema) => {
    expect(schemaBoundsRefusal(schema)).toBeUndefined();
  });

  it('accepts a $ref reached twice without a loop (a diamond)', () => {
    expect(
      schemaBoundsRefusal({
        $defs: {
          leaf: { type: 'string' },
          l: { $ref: '#/$defs/leaf' },
          r: { $ref: '#/$defs/leaf' },
        },
        anyOf: [{ $ref: '#/$defs/l' }, { $ref: '#/$defs/r' }],
        allOf: [{ $ref: '#/$defs/leaf' }],
      }),
    ).toBeUndefined();
  });

  // Bug: a chain of a thousand $refs passed at connect and overflowed the
  // validator's stack on every call; from about 2,500 the check at connect
  // itself overflowed, so where the line fell depended on the stack's size.
  it('refuses a chain of more schemas in a row than a validator can follow, and accepts the limit', () => {
    const chain = (links: number, via: 'ref' | 'allOf'): JsonRecord => {
      const $defs: JsonRecord = {};
      for (let index = 0; index < links; index++) {
        const next = index + 1 < links ? { $ref: `#/$defs/d${index + 1}` } : undefined;
        $defs[`d${index}`] =
          next === undefined ? { type: 'object' } : via === 'ref' ? next : { allOf: [next] };
      }
      return { $ref: '#/$defs/d0', $defs };
    };
    const tooLong = `its $refs lead through more than ${MAX_SAME_VALUE_CHAIN} schemas in a row that apply to one value, so checking a value could overflow the stack`;
    // The root's $ref and the links before the last one: the limit exactly.
    expect(schemaBoundsRefusal(chain(MAX_SAME_VALUE_CHAIN, 'ref'))).toBeUndefined();
    expect(schemaBoundsRefusal(chain(MAX_SAME_VALUE_CHAIN + 1, 'ref'))).toBe(tooLong);
    expect(schemaBoundsRefusal(chain(4_000, 'ref'))).toBe(tooLong);
    // Through allOf, each link is two schemas in a row.
    expect(schemaBoundsRefusal(chain(MAX_SAME_VALUE_CHAIN / 2, 'allOf'))).toBeUndefined();
    expect(schemaBoundsRefusal(chain(MAX_SAME_VALUE_CHAIN / 2 + 1, 'allOf'))).toBe(tooLong);
  });

  it('does not count a dangling $ref, or a remote one, as a loop', () => {
    expect(schemaBoundsRefusal({ allOf: [{ $ref: '#/$defs/missing' }] })).toBeUndefined();
    expect(schemaBoundsRefusal({ allOf: [{ $ref: '#/allOf/7' }] })).toBeUndefined();
    expect(schemaBoundsRefusal({ allOf: [{ $ref: 'https://example.com/s#' }] })).toBeUndefined();
    expect(schemaBoundsRefusal({ allOf: [{ $ref: 'other.json' }] })).toBeUndefined();
  });

  it('ignores $ref text inside data keywords', () => {
    expect(
      schemaBoundsRefusal({ default: { $ref: '#' }, enum: [{ $ref: '#' }], const: { $ref: '#' } }),
    ).toBeUndefined();
  });

  // Bug: a $ref to a plain-name fragment ($anchor) is never resolved, so a loop
  // through one is not found; the validator then overflows its stack on every value.
  it('refuses a loop through an $anchor', () => {
    const schema: JsonRecord = { $defs: { a: { $anchor: 'x', allOf: [{ $ref: '#x' }] } } };
    expect(schemaBoundsRefusal(schema)).toBe(loop('#x'));
  });

  // Bug: dependentSchemas (and draft-07 schema dependencies) apply to the same
  // value, like allOf, but are not among the keywords searched; a value with
  // the trigger property then overflows the validator's stack.
  it('refuses a loop through dependentSchemas', () => {
    const schema: JsonRecord = { $defs: { a: { dependentSchemas: { k: { $ref: '#/$defs/a' } } } } };
    expect(schemaBoundsRefusal(schema)).toBe(loop('#/$defs/a'));
  });
});

describe('schemaBoundsRefusal: loops through what the validator counts as an anchor', () => {
  it.each([
    [
      'a fragment $id (draft 7)',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { a: { $id: '#x', allOf: [{ $ref: '#x' }] } },
        allOf: [{ $ref: '#x' }],
      },
    ],
    [
      'a fragment id (draft 4)',
      {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        definitions: { a: { id: '#x', allOf: [{ $ref: '#x' }] } },
        allOf: [{ $ref: '#x' }],
      },
    ],
    [
      'an anchor in an object under examples, which the validator indexes as a schema',
      {
        type: 'object',
        allOf: [{ $ref: '#x' }],
        examples: { $anchor: 'x', allOf: [{ $ref: '#x' }] },
      },
    ],
    [
      'an absolute $id with a fragment',
      {
        $id: 'http://x.test/s',
        type: 'object',
        $defs: { a: { $id: 'http://x.test/s#foo', allOf: [{ $ref: '#foo' }] } },
        properties: { x: { $ref: '#foo' } },
      },
    ],
    [
      'a percent-encoded reference to an anchor',
      {
        type: 'object',
        $defs: { a: { $anchor: 'foo', allOf: [{ $ref: '#%66oo' }] } },
        properties: { x: { $ref: '#foo' } },
      },
    ],
  ])('refuses a loop through %s', (_, schema) => {
    expect(schemaBoundsRefusal(schema)).toMatch(/^its \$refs loop without any data in between/);
  });

  it('still reads examples that are an array as data', () => {
    const schema = {
      type: 'object',
      examples: [{ $anchor: 'x', allOf: [{ $ref: '#x' }] }],
    };
    expect(schemaBoundsRefusal(schema)).toBeUndefined();
  });
});

describe('schemaBoundsRefusal: anchor references, many of them', () => {
  it("reads each anchored schema's names once a walk, however many references name anchors", () => {
    // 8,000 references to anchors against one schema with a long encoded $id took 2.7 s
    // within the size limit, when every reference read and decoded every anchor again.
    let idReads = 0;
    const anchored: JsonRecord = {};
    Object.defineProperty(anchored, '$id', {
      enumerable: true,
      get: () => {
        idReads++;
        return `#${'%41'.repeat(40_000)}`;
      },
    });
    const references = Array.from({ length: 7_000 }, (_, index) => ({ $ref: `#a${index}` }));
    const schema = { type: 'object', anyOf: [anchored, ...references] };
    const survey = surveySchema(schema);
    expect(survey.chars).toBeLessThan(MAX_SCHEMA_TEXT_LENGTH);
    idReads = 0;
    expect(schemaBoundsRefusal(schema, survey)).toBeUndefined();
    // Once by the walk over its depth (7,001 containers), once for the index of anchor names.
    expect(idReads).toBe(2);
  });

  it('still finds a loop through an anchor among many that name no schema', () => {
    const references = Array.from({ length: 1_000 }, (_, index) => ({ $ref: `#none${index}` }));
    const schema = {
      type: 'object',
      $defs: { a: { $anchor: 'x', allOf: [{ $ref: '#x' }] } },
      anyOf: [...references, { $ref: '#x' }],
    };
    expect(schemaBoundsRefusal(schema)).toMatch(/^its \$refs loop without any data in between/);
  });
});
