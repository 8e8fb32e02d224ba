/**
 * The vocabulary of `keywords.ts`, read directly: which `$schema` URIs name
 * which dialect (and the refusal that quotes any other), what each keyword's
 * value must be (with the exact message), and where `childSchemas` finds
 * subschemas, with their pointer suffixes.
 */
import type { SchemaDraft } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../../src/core/json.js';
import { SchemaProblem } from '../../../src/mcp/schema/json.js';
import { checkKeywordValues, childSchemas, detectDraft } from '../../../src/mcp/schema/keywords.js';

const SUPPORTED =
  "supported dialects are JSON Schema draft-04, -06, -07, 2019-09 and 2020-12, and OpenAPI 3.1's";

/** The error `run` throws; fails the test when it returns. */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('detectDraft', () => {
  it('reads no $schema as 2020-12, MCP’s default', () => {
    expect(detectDraft({ type: 'object' })).toBe('2020-12');
  });

  const dialects: readonly [string, SchemaDraft][] = [
    ['draft/2020-12/', '2020-12'],
    ['draft/2019-09/', '2019-09'],
    ['draft-04/', '4'],
    ['draft-06/', '7'],
    ['draft-07/', '7'],
    ['', '2020-12'],
  ];
  const all: [string, SchemaDraft][] = [];
  for (const [path, draft] of dialects) {
    for (const scheme of ['https://', 'http://', '']) {
      for (const hash of ['#', ''])
        all.push([`${scheme}json-schema.org/${path}schema${hash}`, draft]);
    }
  }

  it.each(all)('reads %s as draft %s', (uri, draft) => {
    expect(detectDraft({ $schema: uri })).toBe(draft);
  });

  it.each([
    'https://spec.openapis.org/oas/3.1/dialect/base',
    'https://spec.openapis.org/oas/3.1/dialect/2024-11-10',
  ])('reads OpenAPI 3.1’s dialect %s as 2020-12, which it extends with annotations', (uri) => {
    expect(detectDraft({ $schema: uri })).toBe('2020-12');
  });

  it.each([
    ['OpenAPI 3.0, which is no JSON Schema dialect', 'https://spec.openapis.org/oas/3.0/schema'],
    ['draft-03', 'http://json-schema.org/draft-03/schema#'],
    ['draft-05, which was never a dialect', 'http://json-schema.org/draft-05/schema#'],
    ['another host', 'https://example.com/draft/2020-12/schema'],
    ['another scheme', 'ftp://json-schema.org/draft-07/schema#'],
    ['a host whose dot is any character', 'https://json-schemaXorg/draft-07/schema#'],
    ['two hashes', 'https://json-schema.org/draft-07/schema##'],
    ['a trailing slash', 'https://json-schema.org/draft/2020-12/schema/'],
    ['upper case', 'https://JSON-SCHEMA.org/draft-07/schema#'],
    ['an empty string', ''],
  ])('refuses %s, quoting it', (_name, uri) => {
    const error = thrown(() => detectDraft({ $schema: uri }));
    expect(error).toBeInstanceOf(SchemaProblem);
    expect(error.message).toBe(`"$schema" names ${JSON.stringify(uri)}; ${SUPPORTED}`);
  });

  it.each([
    ['a number', 7, '7'],
    ['null', null, 'null'],
    ['an object', { $id: 'x' }, '{"$id":"x"}'],
  ])('refuses %s as $schema, quoting it', (_name, value, quoted) => {
    expect(() => detectDraft({ $schema: value })).toThrow(
      `"$schema" names ${quoted}; ${SUPPORTED}`,
    );
  });
});

describe('checkKeywordValues', () => {
  const TYPES =
    'one of string, number, integer, boolean, null, array, object or a non-empty list of them';
  /** [keyword, a good value, a bad value, what it must be] in every dialect. */
  const rules: readonly [string, unknown, unknown, string][] = [
    ['type', 'string', 'text', TYPES],
    ['type', ['string', 'null'], [], TYPES],
    ['type', ['object'], ['object', 'map'], TYPES],
    ['type', 'integer', 3, TYPES],
    ['required', ['a', 'b'], 'a', 'an array of strings'],
    ['required', [], ['a', 1], 'an array of strings'],
    ['$recursiveRef', '#', '#/$defs/a', '"#"'],
    ['enum', [1, 'a', null], 'a', 'an array'],
    ['minLength', 0, -1, 'a non-negative integer'],
    ['maxLength', 3, 2.5, 'a non-negative integer'],
    ['minItems', 1, '1', 'a non-negative integer'],
    ['maxItems', 10, null, 'a non-negative integer'],
    ['minProperties', 0, -3, 'a non-negative integer'],
    ['maxProperties', 2, true, 'a non-negative integer'],
    ['minContains', 0, 0.5, 'a non-negative integer'],
    ['maxContains', 4, -1, 'a non-negative integer'],
    ['minimum', -1.5, '0', 'a number'],
    ['maximum', 1e9, null, 'a number'],
    ['multipleOf', 0.5, 0, 'a number above 0'],
    ['multipleOf', 3, -2, 'a number above 0'],
    ['uniqueItems', false, 'yes', 'a boolean'],
    ['dependentRequired', { a: ['b'], c: [] }, { a: 'b' }, 'an object of string lists'],
    ['dependentRequired', {}, ['a'], 'an object of string lists'],
    ['$ref', '#/$defs/a', 5, 'a string'],
    ['$dynamicRef', '#meta', null, 'a string'],
    ['$id', 'https://example.com/s', {}, 'a string'],
    ['$anchor', 'here', 1, 'a string'],
    ['$dynamicAnchor', 'meta', false, 'a string'],
    ['pattern', '^a+$', ['^a'], 'a string'],
  ];

  it.each(rules)('accepts a good "%s" (%j)', (keyword, good) => {
    expect(() =>
      checkKeywordValues({ [keyword]: good } as JsonRecord, '#', '2020-12'),
    ).not.toThrow();
  });

  it.each(rules)('refuses "%s" of %j … with %j', (keyword, _good, bad, expected) => {
    const error = thrown(() =>
      checkKeywordValues({ [keyword]: bad } as JsonRecord, '#/properties/x', '7'),
    );
    expect(error).toBeInstanceOf(SchemaProblem);
    expect(error.message).toBe(
      `"${keyword}" at #/properties/x must be ${expected}, received ${JSON.stringify(bad)}`,
    );
  });

  it('reads exclusive bounds as booleans in draft-04 and as numbers in later drafts', () => {
    for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum']) {
      expect(() => checkKeywordValues({ [keyword]: true }, '#', '4')).not.toThrow();
      expect(() => checkKeywordValues({ [keyword]: 3 }, '#', '4')).toThrow(
        `"${keyword}" at # must be a boolean (draft-04), received 3`,
      );
      for (const draft of ['7', '2019-09', '2020-12'] as const) {
        expect(() => checkKeywordValues({ [keyword]: 3 }, '#', draft)).not.toThrow();
        expect(() => checkKeywordValues({ [keyword]: false }, '#', draft)).toThrow(
          `"${keyword}" at # must be a number, received false`,
        );
      }
    }
  });

  it('leaves unknown keywords and annotations alone, whatever they hold', () => {
    const node = { 'x-vendor': -1, title: 5, description: [], format: 7, default: 'anything' };
    expect(() => checkKeywordValues(node as JsonRecord, '#', '2020-12')).not.toThrow();
  });

  it('names the first malformed keyword in key order', () => {
    expect(() => checkKeywordValues({ minLength: -1, required: 'a' }, '#', '2020-12')).toThrow(
      '"minLength" at # must be a non-negative integer, received -1',
    );
  });
});

describe('childSchemas', () => {
  it('finds single subschemas under each keyword that holds one, in a fixed order', () => {
    const keywords = [
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
      'items',
    ];
    const node = Object.fromEntries(keywords.reverse().map((k) => [k, { title: k }]));
    const children = childSchemas(node, '#/$defs/a');
    expect(children.map(([suffix]) => suffix)).toEqual(keywords.reverse().map((k) => `/${k}`));
    for (const [suffix, schema] of children) expect(schema).toBe(node[suffix.slice(1)]);
  });

  it('finds list items at their indexes, and `items` as a list in draft-07 form', () => {
    const a = { type: 'string' };
    const b = { type: 'number' };
    const children = childSchemas(
      { allOf: [a], anyOf: [a, b], oneOf: [b], prefixItems: [a], items: [b, a] },
      '#',
    );
    expect(children).toEqual([
      ['/allOf/0', a],
      ['/anyOf/0', a],
      ['/anyOf/1', b],
      ['/oneOf/0', b],
      ['/prefixItems/0', a],
      ['/items/0', b],
      ['/items/1', a],
    ]);
  });

  it('finds map members under their escaped names', () => {
    const s = { type: 'string' };
    const children = childSchemas(
      {
        properties: { plain: s, 'a/b': s, 'c~d': s, '~1': s, '': s },
        patternProperties: { '^x/y$': s },
        $defs: { D: s },
        definitions: { 'x~': s },
        dependentSchemas: { when: s },
        dependencies: { also: s },
      },
      '#/$defs/outer',
    );
    expect(children.map(([suffix]) => suffix)).toEqual([
      '/properties/plain',
      '/properties/a~1b',
      '/properties/c~0d',
      '/properties/~01',
      '/properties/',
      '/patternProperties/^x~1y$',
      '/$defs/D',
      '/definitions/x~0',
      '/dependentSchemas/when',
      '/dependencies/also',
    ]);
  });

  it('skips boolean subschemas: nothing stands under them', () => {
    expect(
      childSchemas(
        {
          additionalProperties: false,
          not: true,
          items: false,
          anyOf: [true, { type: 'string' }],
          properties: { a: true, b: false },
        },
        '#',
      ),
    ).toEqual([['/anyOf/1', { type: 'string' }]]);
  });

  it('leaves out dependencies that list property names, and checks them', () => {
    const s = { required: ['x'] };
    expect(childSchemas({ dependencies: { a: ['b', 'c'], d: [], e: s } }, '#')).toEqual([
      ['/dependencies/e', s],
    ]);
    const error = thrown(() => childSchemas({ dependencies: { 'a/b': ['b', 1] } }, '#/x'));
    expect(error).toBeInstanceOf(SchemaProblem);
    expect(error.message).toBe(
      '#/x/dependencies/a~1b must be an array of strings, received ["b",1]',
    );
  });

  it('has no children for a leaf schema', () => {
    expect(childSchemas({ type: 'string', minLength: 1, enum: [{ not: {} }] }, '#')).toEqual([]);
  });

  it.each([
    [
      'a number under "not"',
      { not: 5 },
      'expected a schema (an object or a boolean) at #/p/not, received 5',
    ],
    [
      'null under "if"',
      { if: null },
      'expected a schema (an object or a boolean) at #/p/if, received null',
    ],
    [
      'a string in "anyOf"',
      { anyOf: [{}, 'x'] },
      'expected a schema (an object or a boolean) at #/p/anyOf/1, received "x"',
    ],
    [
      'a list under a property',
      { properties: { 'a/b': [1] } },
      'expected a schema (an object or a boolean) at #/p/properties/a~1b, received [1]',
    ],
    [
      'a string in dependentSchemas',
      { dependentSchemas: { a: 'b' } },
      'expected a schema (an object or a boolean) at #/p/dependentSchemas/a, received "b"',
    ],
    [
      'a string in dependencies',
      { dependencies: { a: 'b' } },
      'expected a schema (an object or a boolean) at #/p/dependencies/a, received "b"',
    ],
    [
      'a list in dependentSchemas',
      { dependentSchemas: { a: ['b'] } },
      'expected a schema (an object or a boolean) at #/p/dependentSchemas/a, received ["b"]',
    ],
    ['an empty allOf', { allOf: [] }, '"allOf" at #/p must be a non-empty array of schemas'],
    ['an empty anyOf', { anyOf: [] }, '"anyOf" at #/p must be a non-empty array of schemas'],
    ['an empty oneOf', { oneOf: [] }, '"oneOf" at #/p must be a non-empty array of schemas'],
    [
      'an object as allOf',
      { allOf: { a: {} } },
      '"allOf" at #/p must be a non-empty array of schemas',
    ],
    [
      'an object as prefixItems',
      { prefixItems: {} },
      '"prefixItems" at #/p must be a non-empty array of schemas',
    ],
    [
      'a list as properties',
      { properties: [{}] },
      '"properties" at #/p must be an object of schemas',
    ],
    ['a string as $defs', { $defs: 'x' }, '"$defs" at #/p must be an object of schemas'],
    [
      'null as dependencies',
      { dependencies: null },
      '"dependencies" at #/p must be an object of schemas',
    ],
  ])('refuses %s', (_name, node, message) => {
    const error = thrown(() => childSchemas(node, '#/p'));
    expect(error).toBeInstanceOf(SchemaProblem);
    expect(error.message).toBe(message);
  });

  it('accepts an empty prefixItems list, which has no children', () => {
    expect(childSchemas({ prefixItems: [] }, '#')).toEqual([]);
  });
});
