/**
 * `createArgumentCheck` read directly: what it refuses (with the message),
 * what it changes in the validator's copy (`format`, `id`, `$dynamicRef`,
 * legacy pattern escapes), that the flat fast path gives the same verdicts
 * and words as the full path, and that a check never throws.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { JsonRecord } from '../../../src/core/json.js';
import { createArgumentCheck } from '../../../src/mcp/schema/analyze.js';
import { SchemaProblem } from '../../../src/mcp/schema/json.js';

/** The refusal `document` gets, or fails the test. */
function refusal(document: JsonRecord): string {
  try {
    createArgumentCheck(document, undefined);
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaProblem);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('createArgumentCheck: refusals', () => {
  it.each([
    [
      'a remote $ref',
      { type: 'object', properties: { a: { $ref: 'https://x.example/a.json' } } },
      '$ref "https://x.example/a.json" at #/properties/a is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched',
    ],
    [
      'a relative $ref',
      { type: 'object', $defs: { d: { items: { $ref: 'other.json#/x' } } } },
      '$ref "other.json#/x" at #/$defs/d/items is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched',
    ],
    [
      'a remote $dynamicRef',
      { type: 'object', properties: { a: { $dynamicRef: 'https://x.example/s#meta' } } },
      '$dynamicRef "https://x.example/s#meta" at #/properties/a is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched',
    ],
    [
      'a dangling $ref',
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      '"$ref" "#/$defs/missing" at #/properties/a does not resolve inside the schema',
    ],
    [
      'a $ref that a nested $id makes relative to another document',
      {
        $defs: {
          a: { $id: 'http://other.example/a', properties: { y: { $ref: '#/$defs/b' } } },
          b: {},
        },
      },
      '"$ref" "#/$defs/b" at #/$defs/a/properties/y does not resolve inside the schema',
    ],
    [
      'two resources with one URI',
      { $defs: { a: { $id: 'http://x.example/a' }, b: { $id: 'http://x.example/a' } } },
      'schema identifiers do not resolve: Duplicate schema URI "http://x.example/a".',
    ],
    [
      'a top-level array type',
      { type: 'array' },
      'top-level "type" must be "object" (MCP tools take an object of named arguments), received "array"',
    ],
    [
      'a nullable top level',
      { type: ['object', 'null'] },
      'top-level "type" must be "object" (MCP tools take an object of named arguments), received ["object","null"]',
    ],
    [
      'an empty top-level type list',
      { type: [] },
      'top-level "type" must be "object" (MCP tools take an object of named arguments), received []',
    ],
    [
      'an unknown dialect',
      { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
      '"$schema" names "http://json-schema.org/draft-03/schema#"; supported dialects are JSON Schema draft-04, -06, -07, 2019-09 and 2020-12, and OpenAPI 3.1\'s',
    ],
    [
      'a malformed keyword deep down',
      { type: 'object', properties: { a: { items: { minLength: -1 } } } },
      '"minLength" at #/properties/a/items must be a non-negative integer, received -1',
    ],
    [
      'an invalid pattern',
      { type: 'object', properties: { a: { pattern: '([a-' } } },
      '"pattern" at #/properties/a is not a valid regular expression: "([a-"',
    ],
    [
      'an invalid patternProperties key',
      { type: 'object', patternProperties: { '([': {} } },
      '"patternProperties" at # has a key that is not a valid regular expression: "(["',
    ],
  ])('refuses %s', (_name, document, message) => {
    expect(refusal(document as JsonRecord)).toBe(message);
  });

  it('accepts a top-level type of "object", alone or listed, or none', () => {
    for (const type of ['object', ['object'], undefined]) {
      const check = createArgumentCheck(type === undefined ? {} : { type }, undefined);
      expect(check({})).toEqual([]);
    }
  });

  it('walks a target reached only through a $ref under an unknown keyword, naming the way', () => {
    expect(
      refusal({
        type: 'object',
        'x-lib': { s: { $ref: 'https://evil.example/x' } },
        properties: { a: { $ref: '#/x-lib/s' } },
      }),
    ).toBe(
      '$ref "https://evil.example/x" at "#/x-lib/s" (via #/properties/a) is not a local reference; only "#..." references inside the schema are allowed and nothing is ever fetched',
    );
  });
});

describe('createArgumentCheck: $dynamicRef', () => {
  const tree = (): JsonRecord => ({
    type: 'object',
    $defs: {
      node: {
        $dynamicAnchor: 'node',
        type: 'object',
        properties: { kids: { type: 'array', items: { $dynamicRef: '#node' } } },
      },
    },
    properties: { tree: { $ref: '#/$defs/node' } },
  });

  it('is rewritten to a plain $ref where that is exact: one resource, one anchor', () => {
    const document = tree();
    const check = createArgumentCheck(document, undefined);
    expect(check({ tree: { kids: [{ kids: [] }] } })).toEqual([]);
    expect(check({ tree: { kids: [{ kids: [5] }] } })).toEqual([
      {
        path: ['tree', 'kids', 0, 'kids', 0],
        keyword: 'type',
        message: '"tree.kids[0].kids[0]" must be an object; received a number (5)',
      },
    ]);
    const items = (document['$defs'] as JsonRecord)['node'] as JsonRecord;
    expect((items['properties'] as JsonRecord)['kids']).toMatchObject({
      items: { $ref: '#/$defs/node' },
    });
    expect(JSON.stringify(document)).not.toContain('$dynamicRef');
  });

  const refused = (ref: string, at: string): string =>
    `"$dynamicRef" ${JSON.stringify(ref)} at ${at} is only supported in a single-resource schema with exactly one anchor of that name and no "$ref" beside it`;

  it.each([
    [
      'with no anchor of its name',
      { type: 'object', properties: { x: { $dynamicRef: '#nowhere' } } },
      refused('#nowhere', '#/properties/x'),
    ],
    [
      'with two anchors of its name',
      {
        type: 'object',
        $defs: { a: { $dynamicAnchor: 'n' }, b: { $anchor: 'n' } },
        properties: { x: { $dynamicRef: '#n' } },
      },
      refused('#n', '#/properties/x'),
    ],
    [
      'in a schema with a nested resource ($id)',
      {
        type: 'object',
        $defs: { other: { $id: 'http://other.example/a' }, n: { $dynamicAnchor: 'n' } },
        properties: { x: { $dynamicRef: '#n' } },
      },
      refused('#n', '#/properties/x'),
    ],
    [
      'beside a $ref',
      {
        type: 'object',
        $defs: { n: { $dynamicAnchor: 'n' } },
        properties: { x: { $dynamicRef: '#n', $ref: '#/$defs/n' } },
      },
      refused('#n', '#/properties/x'),
    ],
    [
      'reached only through a $ref',
      {
        type: 'object',
        $defs: { n: { $dynamicAnchor: 'n' } },
        'x-lib': { s: { $dynamicRef: '#n' } },
        properties: { a: { $ref: '#/x-lib/s' } },
      },
      '"$dynamicRef" at "#/x-lib/s" (via #/properties/a) sits where only a $ref leads; it is not supported there',
    ],
    [
      'whose target cannot be written as a URI (a lone surrogate in a key)',
      {
        type: 'object',
        $defs: { '\ud800': { $dynamicAnchor: 'n' } },
        properties: { x: { $dynamicRef: '#n' } },
      },
      'cannot refer to #/$defs/\ud800: URI malformed',
    ],
  ])('is refused %s', (_name, document, message) => {
    expect(refusal(document as JsonRecord)).toBe(message);
  });

  it('is allowed beside a nested fragment-only $id, which is no new resource', () => {
    const check = createArgumentCheck(
      {
        type: 'object',
        $defs: { other: { $id: '#frag' }, n: { $dynamicAnchor: 'n', type: 'string' } },
        properties: { x: { $dynamicRef: '#n' } },
      },
      undefined,
    );
    expect(check({ x: 1 })).toEqual([
      { path: ['x'], keyword: 'type', message: '"x" must be a string; received a number (1)' },
    ]);
  });
});

describe('createArgumentCheck: the validator’s copy', () => {
  it('drops string formats, so a format never rejects', () => {
    const document: JsonRecord = {
      type: 'object',
      properties: { d: { type: 'string', format: 'date' }, e: { format: 'email', maxLength: 3 } },
    };
    const check = createArgumentCheck(document, undefined);
    expect(check({ d: 'not a date', e: 'x' })).toEqual([]);
    expect(JSON.stringify(document)).not.toContain('format');
  });

  it('drops `id` outside draft-04, where it is not an identifier', () => {
    const document: JsonRecord = {
      type: 'object',
      properties: { a: { id: 'http://elsewhere.example/', $ref: '#/$defs/s' } },
      $defs: { s: { type: 'string' } },
    };
    const check = createArgumentCheck(document, undefined);
    expect(check({ a: 1 })[0]?.message).toBe('"a" must be a string; received a number (1)');
    expect((document['properties'] as JsonRecord)['a']).not.toHaveProperty('id');
  });

  it('repairs legacy escapes in patterns and patternProperties keys', () => {
    const document: JsonRecord = {
      type: 'object',
      properties: { a: { pattern: '^[a-z\\_]$' } },
      patternProperties: { '^\\_x': { type: 'string' } },
    };
    const check = createArgumentCheck(document, undefined);
    expect(check({ a: '_', _x: 's' })).toEqual([]);
    expect(check({ a: 'A', _xy: 1 })).toEqual([
      {
        path: ['a'],
        keyword: 'pattern',
        message: '"a" must match /^[a-z_]$/u; received "A"',
      },
      { path: ['_xy'], keyword: 'type', message: '"_xy" must be a string; received a number (1)' },
    ]);
    expect(document['patternProperties']).toEqual({ '^_x': { type: 'string' } });
  });

  it('follows a $ref to an $anchor', () => {
    const check = createArgumentCheck(
      {
        type: 'object',
        $defs: { a: { $anchor: 'A', type: 'string' } },
        properties: { a: { $ref: '#A' } },
      },
      undefined,
    );
    expect(check({ a: 1 })).toEqual([
      { path: ['a'], keyword: 'type', message: '"a" must be a string; received a number (1)' },
    ]);
  });
});

describe('createArgumentCheck: checks', () => {
  const check = createArgumentCheck(
    { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    undefined,
  );

  it.each([
    ['a string', 'x', 'a string ("x")'],
    ['null', null, 'null'],
    ['an array', [1, 2], 'an array of 2 items'],
    ['nothing', undefined, 'nothing'],
    ['a number', 3, 'a number (3)'],
  ])('refuses %s as the arguments', (_name, value, described) => {
    expect(check(value)).toEqual([
      {
        path: [],
        keyword: 'type',
        message: `the arguments must be an object; received ${described}`,
      },
    ]);
  });

  it('never throws: a value JSON cannot carry is refused with where and what it is', () => {
    const refusal = (path: (string | number)[], what: string): unknown[] => [
      {
        path,
        keyword: 'type',
        message: `"${path.join('.')}" is ${what}, which JSON cannot carry: the server would not receive it as checked`,
      },
    ];
    expect(check({ n: 1n })).toEqual(refusal(['n'], 'a bigint'));
    const full = createArgumentCheck(
      { type: 'object', properties: { n: { type: 'integer', minimum: 0 } } },
      undefined,
    );
    expect(full({ n: 5n })).toEqual(refusal(['n'], 'a bigint'));
    expect(full({ n: Number.NaN })).toEqual(refusal(['n'], 'NaN'));
  });

  it('never throws on the full path when reading a member throws', () => {
    const full = createArgumentCheck(
      { type: 'object', properties: { a: { type: 'string', minLength: 1 } } },
      undefined,
    );
    const hostile = Object.defineProperty({}, 'a', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(full(hostile)).toEqual([
      { path: [], keyword: 'error', message: 'the arguments could not be validated: boom' },
    ]);
  });

  // Bug: the flat fast path reads members outside the check's try, so a getter
  // that throws escapes the check, which promises never to throw.
  it('never throws on the flat fast path when reading a member throws', () => {
    const flat = createArgumentCheck(
      { type: 'object', properties: { a: { type: 'string' } } },
      undefined,
    );
    const hostile = Object.defineProperty({}, 'a', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(() => flat(hostile)).not.toThrow();
  });
});

describe('createArgumentCheck: the flat fast path', () => {
  const name = fc.constantFrom('a', 'b', 'c', 'toString', '__proto__', 'constructor');
  const property = fc.record(
    {
      type: fc.constantFrom('string', 'number', 'integer', 'boolean'),
      description: fc.string({ maxLength: 5 }),
      default: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: ['type'] },
  );
  const flat = fc.record(
    {
      type: fc.constant('object'),
      title: fc.string({ maxLength: 5 }),
      properties: fc.dictionary(name, property, { maxKeys: 4 }),
      required: fc.uniqueArray(name, { maxLength: 3 }),
      additionalProperties: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const scalar = fc.oneof(
    fc.string({ maxLength: 3 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 2 }),
    // What JSON cannot carry: refused, or (a member set to `undefined`) left out, on both paths.
    fc.constantFrom(undefined, new Date(0), 10n, () => 1, new (class Point {})()),
  );
  const dictionary = fc.dictionary(name, scalar, { maxKeys: 4 });
  const values = fc.array(
    fc.oneof(
      { weight: 9, arbitrary: dictionary },
      // Arguments that are not plain objects: of a class, or with no prototype.
      {
        weight: 2,
        arbitrary: fc
          .tuple(dictionary, fc.boolean())
          .map(([members, classed]): object =>
            Object.assign(
              classed ? new (class Args {})() : (Object.create(null) as object),
              members,
            ),
          ),
      },
      { weight: 1, arbitrary: scalar },
    ),
    { minLength: 1, maxLength: 6 },
  );

  it('gives the same problems, word for word, as the full path', () => {
    fc.assert(
      fc.property(flat, values, (schema, args) => {
        const json = JSON.parse(JSON.stringify(schema)) as JsonRecord;
        const fast = createArgumentCheck(structuredClone(json), undefined);
        // `minProperties: 0` holds for every object, and takes the schema off the fast path.
        const full = createArgumentCheck({ ...structuredClone(json), minProperties: 0 }, undefined);
        for (const value of args) expect(fast(value)).toEqual(full(value));
      }),
      { numRuns: 300 },
    );
  });

  it('words a flat schema’s problems as the full path does', () => {
    const schema = {
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer' } },
      required: ['q'],
      additionalProperties: false,
    };
    const check = createArgumentCheck(structuredClone(schema), undefined);
    expect(check({ q: 'x', n: 2 })).toEqual([]);
    expect(check({ n: 1.5, extra: true })).toEqual([
      { path: ['q'], keyword: 'required', message: '"q" is required' },
      {
        path: ['n'],
        keyword: 'type',
        message: '"n" must be an integer; received a number (1.5)',
      },
      { path: ['extra'], keyword: 'false', message: '"extra" is not an allowed property' },
    ]);
  });
});

describe('the text one check writes', () => {
  /** Counts the characters JSON.stringify writes while `run` runs. */
  function charsWrittenBy(run: () => unknown): number {
    const original = JSON.stringify;
    let chars = 0;
    const spy = vi.spyOn(JSON, 'stringify').mockImplementation((...args) => {
      const text = original(...args);
      chars += typeof text === 'string' ? text.length : 0;
      return text;
    });
    try {
      run();
    } finally {
      spy.mockRestore();
    }
    return chars;
  }

  it('stays small when a large enum or const refuses many values (the validator writes it per value)', () => {
    const values = Array.from({ length: 5_000 }, (_, i) => i); // ≈ 24 KB of JSON
    const check = createArgumentCheck(
      {
        type: 'object',
        properties: {
          a: { type: 'array', items: { enum: values } },
          b: { type: 'array', items: { const: { k: 'x'.repeat(2_000) } } },
          c: { enum: [{ k: 'y'.repeat(2_000) }, 'short'] },
        },
      },
      undefined,
    );
    let problems: ReturnType<typeof check> = [];
    const written = charsWrittenBy(() => {
      problems = check({
        a: Array.from({ length: 500 }, () => ({})),
        b: Array.from({ length: 500 }, () => 1),
        c: 'other',
      });
    });
    expect(problems.length).toBeGreaterThan(0);
    expect(written).toBeLessThan(200_000);
    // A long string, in an enum or as a const, is written as its size too.
    const long = 's'.repeat(200_000);
    const strings = createArgumentCheck(
      {
        type: 'object',
        properties: {
          a: { type: 'array', items: { const: long } },
          b: { type: 'array', items: { enum: [long] } },
        },
      },
      undefined,
    );
    let refused: ReturnType<typeof check> = [];
    const stringsWritten = charsWrittenBy(() => {
      refused = strings({
        a: Array.from({ length: 200 }, () => 'x'),
        b: Array.from({ length: 200 }, () => 'x'),
      });
    });
    expect(refused.length).toBeGreaterThan(0);
    expect(stringsWritten).toBeLessThan(200_000);
    expect(refused[0]?.message).toContain("the schema's string of 200000 characters");
    expect(strings({ a: [long], b: [long] })).toEqual([]);
    // What a problem says of such a value: its size, not its text.
    const c = problems.find(({ path }) => path[0] === 'c');
    expect(c?.message).toContain('(an object, 2008 characters of JSON)');
    expect(c?.message).toContain('"short"');
  });
});

describe('long enums', () => {
  const values = Array.from({ length: 5_000 }, (_, i) => i);
  const check = createArgumentCheck(
    { type: 'object', properties: { rows: { type: 'array', items: { enum: values } } } },
    undefined,
  );

  it('check data as ever while the comparisons stay within what the data justifies', () => {
    expect(check({ rows: [1, 4_999, 2_500] })).toEqual([]);
    const [problem] = check({ rows: [1, -1] });
    expect(problem).toMatchObject({ path: ['rows', 1], keyword: 'enum' });
  });

  it('refuse data whose check would compare it with their values without bound, saying so', () => {
    // 20,000 items, each compared with 5,000 values: 100 million comparisons.
    const problems = check({ rows: Array.from({ length: 20_000 }, () => ({})) });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: [], keyword: 'error' });
    expect(problems[0]?.message).toMatch(
      /^the arguments could not be validated: checking them would compare them with the values of the schema's long enums more than \d+ times$/,
    );
    // The same check stays usable.
    expect(check({ rows: [3] })).toEqual([]);
  });
});
