import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpSchemaError } from '../../src/core/errors.js';
import {
  clearSchemaCache,
  createInputValidator,
  DEFAULT_SCHEMA_CACHE_SIZE,
  schemaCacheStats,
  type InputValidator,
} from '../../src/mcp/schema/index.js';
import { canonicalJsonText } from '../../src/core/json.js';

const ids = { serverName: 'shop', toolName: 'place_order' };

function issuesOf(
  validator: InputValidator,
  value: unknown,
): { path: PropertyKey[]; message: string }[] {
  const result = validator.safeParse(value);
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

beforeEach(() => {
  clearSchemaCache();
});

interface KeywordCase {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  readonly valid: readonly Record<string, unknown>[];
  /** An invalid value, the path of its first issue, and words its message must hold. */
  readonly invalid: readonly {
    value: Record<string, unknown>;
    path: PropertyKey[];
    says: string[];
  }[];
}

const keywordCases: readonly KeywordCase[] = [
  {
    name: '$defs + $ref',
    schema: {
      type: 'object',
      $defs: {
        Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
      properties: { ship: { $ref: '#/$defs/Address' } },
    },
    valid: [{ ship: { city: 'Oslo' } }, {}],
    invalid: [
      {
        value: { ship: { city: 7 } },
        path: ['ship', 'city'],
        says: ['"ship.city"', 'string', '7'],
      },
    ],
  },
  {
    name: 'recursive $ref',
    schema: {
      type: 'object',
      $defs: {
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
          required: ['name'],
        },
      },
      properties: { tree: { $ref: '#/$defs/Node' } },
    },
    valid: [{ tree: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } }],
    invalid: [
      {
        value: { tree: { name: 'a', children: [{ name: 'b', children: [{}] }] } },
        path: ['tree', 'children', 0, 'children', 0, 'name'],
        says: ['"tree.children[0].children[0].name"', 'required'],
      },
    ],
  },
  {
    name: 'recursion through the root ($ref "#")',
    schema: { type: 'object', properties: { label: { type: 'string' }, next: { $ref: '#' } } },
    valid: [{ label: 'a', next: { label: 'b', next: {} } }],
    invalid: [
      {
        value: { next: { next: { label: 1 } } },
        path: ['next', 'next', 'label'],
        says: ['"next.next.label"', 'string'],
      },
    ],
  },
  {
    name: 'anyOf',
    schema: {
      type: 'object',
      properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
    },
    valid: [{ id: 'x' }, { id: 3 }],
    invalid: [
      { value: { id: 1.5 }, path: ['id'], says: ['"id"', 'a string or an integer', '1.5'] },
    ],
  },
  {
    name: 'nullable via a type list',
    schema: {
      type: 'object',
      properties: { note: { type: ['string', 'null'] } },
      required: ['note'],
    },
    valid: [{ note: 'x' }, { note: null }],
    invalid: [{ value: { note: 3 }, path: ['note'], says: ['"note"', 'a string or null'] }],
  },
  {
    name: 'nullable via anyOf with null',
    schema: {
      type: 'object',
      properties: { note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
    },
    valid: [{ note: 'x' }, { note: null }, {}],
    invalid: [
      { value: { note: false }, path: ['note'], says: ['"note"', 'a string or null', 'false'] },
    ],
  },
  {
    name: 'enum',
    schema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } } },
    valid: [{ size: 'M' }],
    invalid: [{ value: { size: 'XL' }, path: ['size'], says: ['"size"', '"S", "M", "L"', '"XL"'] }],
  },
  {
    name: 'enum values of another type never match',
    schema: { type: 'object', properties: { n: { type: 'string', enum: ['1', 1] } } },
    valid: [{ n: '1' }],
    invalid: [{ value: { n: 1 }, path: ['n'], says: ['"n"'] }],
  },
  {
    name: 'const',
    schema: { type: 'object', properties: { v: { const: 2 } } },
    valid: [{ v: 2 }],
    invalid: [{ value: { v: 3 }, path: ['v'], says: ['"v"', 'must be 2', '3'] }],
  },
  {
    name: 'default (not filled in; a required property with a default is still required)',
    schema: {
      type: 'object',
      properties: {
        mode: { type: 'string', default: 'fast' },
        level: { type: 'integer', default: 1 },
      },
      required: ['level'],
    },
    valid: [{ level: 2 }],
    invalid: [
      { value: {}, path: ['level'], says: ['"level"', 'required'] },
      { value: { level: 1, mode: 5 }, path: ['mode'], says: ['"mode"', 'string'] },
    ],
  },
  {
    name: 'additionalProperties: false',
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    valid: [{ a: 'x' }, {}],
    invalid: [
      {
        value: { a: 'x', sneaky: 1 },
        path: ['sneaky'],
        says: ['"sneaky"', 'not an allowed property'],
      },
    ],
  },
  {
    name: 'additionalProperties as a schema',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: { type: 'number' },
    },
    valid: [{ a: 'x', b: 1 }],
    invalid: [{ value: { a: 'x', b: 'y' }, path: ['b'], says: ['"b"', 'a number'] }],
  },
  {
    name: 'required',
    schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q', 'unlisted'] },
    valid: [{ q: 'x', unlisted: null }],
    invalid: [{ value: { q: 'x' }, path: ['unlisted'], says: ['"unlisted"', 'is required'] }],
  },
  {
    name: 'integer versus number',
    schema: { type: 'object', properties: { n: { type: 'integer' }, x: { type: 'number' } } },
    valid: [{ n: 3, x: 3.5 }, { n: 3.0 }],
    invalid: [{ value: { n: 3.5 }, path: ['n'], says: ['"n"', 'an integer', '3.5'] }],
  },
  {
    name: 'minimum, exclusiveMaximum, pattern, minItems',
    schema: {
      type: 'object',
      properties: {
        qty: { type: 'integer', minimum: 1, exclusiveMaximum: 100 },
        zip: { type: 'string', pattern: '^[0-9]{5}$' },
        tags: { type: 'array', minItems: 1 },
      },
    },
    valid: [{ qty: 1, zip: '12345', tags: ['a'] }],
    invalid: [
      { value: { qty: 0 }, path: ['qty'], says: ['"qty"', '>= 1', '0'] },
      { value: { qty: 100 }, path: ['qty'], says: ['"qty"', '< 100'] },
      { value: { zip: '1234' }, path: ['zip'], says: ['"zip"', '^[0-9]{5}$', '"1234"'] },
      { value: { tags: [] }, path: ['tags'], says: ['"tags"', 'at least 1 item'] },
    ],
  },
  {
    name: 'maxLength counts code points, not UTF-16 units',
    schema: { type: 'object', properties: { emoji: { type: 'string', maxLength: 1 } } },
    valid: [{ emoji: '😀' }],
    invalid: [
      { value: { emoji: '😀😀' }, path: ['emoji'], says: ['"emoji"', 'at most 1 character'] },
    ],
  },
  {
    name: 'formats are annotations, never false rejections',
    schema: {
      type: 'object',
      properties: {
        link: { type: 'string', format: 'uri-reference' },
        mail: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
      },
    },
    valid: [
      {
        link: '../relative/path',
        mail: '"quoted local"@example.com',
        when: '2024-01-01T00:00:00+05:30',
      },
    ],
    invalid: [{ value: { link: 5 }, path: ['link'], says: ['"link"', 'a string'] }],
  },
  {
    name: 'oneOf',
    schema: { type: 'object', oneOf: [{ required: ['byId'] }, { required: ['byName'] }] },
    valid: [{ byId: 1 }, { byName: 'x' }],
    invalid: [
      { value: { byId: 1, byName: 'x' }, path: [], says: ['arguments', 'exactly one'] },
      { value: {}, path: [], says: ['arguments', '"byId" is required', '"byName" is required'] },
    ],
  },
  {
    name: 'allOf',
    schema: {
      type: 'object',
      allOf: [
        { properties: { a: { type: 'string' } }, required: ['a'] },
        { properties: { b: { type: 'number' } }, required: ['b'] },
      ],
    },
    valid: [{ a: 'x', b: 1, extra: true }],
    invalid: [{ value: { a: 'x', b: 'y' }, path: ['b'], says: ['"b"', 'a number'] }],
  },
  {
    name: 'additionalProperties: false inside allOf (strict in JSON Schema, lenient in zod)',
    schema: {
      type: 'object',
      allOf: [{ properties: { a: {} }, additionalProperties: false }, { properties: { b: {} } }],
    },
    valid: [{ a: 1 }],
    invalid: [{ value: { a: 1, b: 2 }, path: ['b'], says: ['"b"', 'not an allowed property'] }],
  },
  {
    name: 'if / then / else',
    schema: {
      type: 'object',
      properties: { kind: { enum: ['card', 'bank'] } },
      if: { properties: { kind: { const: 'card' } }, required: ['kind'] },
      then: { required: ['cardNumber'] },
      else: { required: ['iban'] },
    },
    valid: [{ kind: 'card', cardNumber: '4111' }, { kind: 'bank', iban: 'DE00' }, { iban: 'DE00' }],
    invalid: [
      { value: { kind: 'card' }, path: ['cardNumber'], says: ['"cardNumber"', 'required'] },
      { value: { kind: 'bank' }, path: ['iban'], says: ['"iban"', 'required'] },
    ],
  },
  {
    name: 'not',
    schema: { type: 'object', properties: { name: { type: 'string', not: { const: 'admin' } } } },
    valid: [{ name: 'alice' }],
    invalid: [{ value: { name: 'admin' }, path: ['name'], says: ['"name"', 'must not match'] }],
  },
  {
    name: 'dependentRequired',
    schema: { type: 'object', dependentRequired: { creditCard: ['billingAddress'] } },
    valid: [{ creditCard: '4111', billingAddress: 'x' }, {}],
    invalid: [
      {
        value: { creditCard: '4111' },
        path: ['billingAddress'],
        says: ['"billingAddress"', 'required when "creditCard" is present'],
      },
    ],
  },
  {
    name: 'patternProperties and propertyNames',
    schema: {
      type: 'object',
      patternProperties: { '^n_': { type: 'number' } },
      propertyNames: { pattern: '^[a-z_]+$' },
    },
    valid: [{ n_a: 1, other: 'x' }],
    invalid: [
      { value: { n_a: 'x' }, path: ['n_a'], says: ['"n_a"', 'a number'] },
      { value: { Bad: 1 }, path: ['Bad'], says: ['"Bad"', 'property name', '^[a-z_]+$'] },
    ],
  },
];

describe('createInputValidator: keywords', () => {
  for (const testCase of keywordCases) {
    it(testCase.name, () => {
      const validator = createInputValidator(testCase.schema, ids);
      for (const value of testCase.valid) {
        expect(issuesOf(validator, value), JSON.stringify(value)).toEqual([]);
      }
      for (const { value, path, says } of testCase.invalid) {
        const [first] = issuesOf(validator, value);
        expect(first, JSON.stringify(value)).toBeDefined();
        expect(first?.path).toEqual(path);
        for (const words of says) expect(first?.message).toContain(words);
      }
    });
  }

  it('keeps extra properties by default and returns the arguments unchanged', () => {
    const validator = createInputValidator(
      { type: 'object', properties: { a: { type: 'string', default: 'd' } } },
      ids,
    );
    const args = { extra: { nested: [1, 2] }, other: null };
    const result = validator.safeParse(args);
    expect(result.success).toBe(true);
    // Not a stripped copy, and no default filled in: the arguments as the model wrote them.
    expect(result.data).toBe(args);
    expect(result.data).toEqual({ extra: { nested: [1, 2] }, other: null });
  });

  it('returns the arguments unchanged on the JSON Schema path too', () => {
    const validator = createInputValidator(
      { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } },
      ids,
    );
    const args = { a: 'abc', extra: 1 };
    expect(validator.parse(args)).toBe(args);
  });

  it('accepts a schema without "type" and still requires an object of arguments', () => {
    const validator = createInputValidator({ properties: { a: { type: 'string' } } }, ids);
    expect(issuesOf(validator, { a: 'x' })).toEqual([]);
    const [issue] = issuesOf(validator, ['x']);
    expect(issue?.path).toEqual([]);
    expect(issue?.message).toContain('the arguments must be an object');
    expect(issue?.message).toContain('an array');
  });

  it('reads draft-07 definitions and draft-04 boolean exclusive bounds', () => {
    const draft7 = createInputValidator(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { Id: { type: 'string' } },
        properties: { id: { $ref: '#/definitions/Id' } },
      },
      ids,
    );
    expect(issuesOf(draft7, { id: 'x' })).toEqual([]);
    expect(issuesOf(draft7, { id: 1 })[0]?.path).toEqual(['id']);
    const draft4 = createInputValidator(
      {
        $schema: 'http://json-schema.org/draft-04/schema#',
        type: 'object',
        properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
      },
      ids,
    );
    expect(issuesOf(draft4, { n: 0 })[0]?.message).toContain('> 0');
    expect(issuesOf(draft4, { n: 0.1 })).toEqual([]);
  });

  it('follows a JSON Pointer $ref deeper than one $defs entry', () => {
    // zod's own resolver reads "#/$defs/a/properties/b" as "#/$defs/a".
    const validator = createInputValidator(
      {
        type: 'object',
        $defs: { a: { type: 'object', properties: { b: { type: 'string' } } } },
        properties: { x: { $ref: '#/$defs/a/properties/b' } },
      },
      ids,
    );
    expect(issuesOf(validator, { x: 'ok' })).toEqual([]);
    expect(issuesOf(validator, { x: {} })[0]?.message).toContain('a string');
  });
});

describe('createInputValidator: refusals', () => {
  const refusals: readonly [string, unknown, string][] = [
    ['a non-object schema', 'string', 'must be a JSON object'],
    ['a boolean schema', true, 'must be a JSON object'],
    ['an array schema', [], 'must be a JSON object'],
    ['a top-level array type', { type: 'array' }, 'top-level "type" must be "object"'],
    ['a nullable top level', { type: ['object', 'null'] }, 'top-level "type" must be "object"'],
    [
      'a $ref that does not resolve',
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      'does not resolve',
    ],
    ['a malformed required', { type: 'object', required: 'a' }, 'must be an array of strings'],
    [
      'an unknown type name',
      { type: 'object', properties: { a: { type: 'text' } } },
      '"type" at #/properties/a',
    ],
    [
      'an invalid pattern',
      { type: 'object', properties: { a: { type: 'string', pattern: '([a-' } } },
      'not a valid regular expression',
    ],
    [
      'a draft-03 schema',
      { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' },
      'supported dialects',
    ],
    ['a cyclic object', cyclicSchema(), 'cyclic'],
  ];
  for (const [name, schema, reason] of refusals) {
    it(`refuses ${name}`, () => {
      const attempt = (): unknown => createInputValidator(schema, ids);
      expect(attempt).toThrow(McpSchemaError);
      expect(attempt).toThrow(reason);
    });
  }

  describe('remote references', () => {
    const fetchSpy = vi.fn(() => Promise.reject(new Error('no network in tests')));
    beforeEach(() => {
      vi.stubGlobal('fetch', fetchSpy);
      fetchSpy.mockClear();
    });
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    const remote: readonly [string, Record<string, unknown>][] = [
      [
        'an https URL',
        { type: 'object', properties: { a: { $ref: 'https://schemas.example.com/a.json' } } },
      ],
      ['a relative document', { type: 'object', properties: { a: { $ref: 'other.json#/x' } } }],
      [
        'a $dynamicRef to another document',
        { type: 'object', properties: { a: { $dynamicRef: 'https://x.example/s#meta' } } },
      ],
      [
        'a remote $ref reached only through a local one',
        {
          type: 'object',
          'x-lib': { s: { $ref: 'https://evil.example/x' } },
          properties: { a: { $ref: '#/x-lib/s' } },
        },
      ],
    ];
    for (const [name, schema] of remote) {
      it(`refuses ${name} and fetches nothing`, () => {
        let error: unknown;
        try {
          createInputValidator(schema, ids);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(McpSchemaError);
        const schemaError = error as McpSchemaError;
        expect(schemaError.serverName).toBe('shop');
        expect(schemaError.toolName).toBe('place_order');
        expect(schemaError.reason).toContain('not a local reference');
        expect(schemaError.message).toContain('tool "place_order" of server "shop"');
        expect(fetchSpy).not.toHaveBeenCalled();
      });
    }

    it('ignores "$ref" text in data positions (default, annotations)', () => {
      const validator = createInputValidator(
        {
          type: 'object',
          'x-docs': { $ref: 'https://docs.example/a' },
          properties: { a: { type: 'object', default: { $ref: 'https://x.example' } } },
        },
        ids,
      );
      expect(issuesOf(validator, { a: {} })).toEqual([]);
      expect(fetchSpy).not.toHaveBeenCalled();
    });
  });
});

function cyclicSchema(): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: 'object' };
  schema['properties'] = { self: schema };
  return schema;
}

describe('createInputValidator: cache', () => {
  const schema = {
    type: 'object',
    properties: { q: { type: 'string' }, n: { type: 'integer' } },
    required: ['q'],
  };

  it('returns the same validator for the same content', () => {
    const first = createInputValidator(schema, ids);
    expect(first.safeParse({ q: 'x' }).success).toBe(true);

    // Same content, other key order, other tool: a cache hit, no new conversion.
    const reordered = {
      required: ['q'],
      properties: { n: { type: 'integer' }, q: { type: 'string' } },
      type: 'object',
    };
    const second = createInputValidator(reordered, { serverName: 'other', toolName: 'search' });
    expect(second).toBe(first);
    expect(second.safeParse({ q: 1 }).success).toBe(false);
    expect(schemaCacheStats()).toMatchObject({
      hits: 1,
      misses: 1,
      size: 1,
    });
    expect(canonicalJsonText(reordered)).toBe(canonicalJsonText(schema));
  });

  it('caches a refusal without caching the ids it was first raised for', () => {
    const bad = { type: 'object', properties: { a: { $ref: 'https://x.example/a' } } };
    expect(() => createInputValidator(bad, ids)).toThrow('tool "place_order" of server "shop"');
    let again: unknown;
    try {
      createInputValidator(bad, { serverName: 'mirror', toolName: 'copy' });
    } catch (caught) {
      again = caught;
    }
    expect(again).toBeInstanceOf(McpSchemaError);
    expect((again as McpSchemaError).serverName).toBe('mirror');
    expect((again as McpSchemaError).toolName).toBe('copy');
    expect(schemaCacheStats()).toMatchObject({ hits: 1, misses: 1, rejections: 1 });
  });

  it('keeps at most DEFAULT_SCHEMA_CACHE_SIZE entries, dropping the least recently used', () => {
    const schemaFor = (i: number): Record<string, unknown> => ({
      type: 'object',
      properties: { [`p${i}`]: { type: 'string' } },
    });
    const kept = createInputValidator(schemaFor(0), ids);
    for (let i = 1; i < DEFAULT_SCHEMA_CACHE_SIZE; i++) createInputValidator(schemaFor(i), ids);
    createInputValidator(schemaFor(0), ids); // touch: now the most recent
    createInputValidator(schemaFor(DEFAULT_SCHEMA_CACHE_SIZE), ids); // evicts p1
    expect(schemaCacheStats()).toMatchObject({ size: DEFAULT_SCHEMA_CACHE_SIZE, evictions: 1 });
    expect(createInputValidator(schemaFor(0), ids)).toBe(kept);
    const missesBefore = schemaCacheStats().misses;
    createInputValidator(schemaFor(1), ids);
    expect(schemaCacheStats().misses).toBe(missesBefore + 1);
  });

  it('clearSchemaCache() forgets validators and zeroes the counters', () => {
    const first = createInputValidator(schema, ids);
    clearSchemaCache();
    expect(schemaCacheStats()).toMatchObject({ size: 0, hits: 0, misses: 0 });
    expect(createInputValidator(schema, ids)).not.toBe(first);
  });
});

describe('createInputValidator: the input schema is left alone', () => {
  const schemas: readonly [string, Record<string, unknown>][] = [
    [
      'with $defs, formats and defaults',
      {
        type: 'object',
        $defs: { Tag: { type: 'string', format: 'email', default: 'a@b.c', description: 'd' } },
        properties: {
          tags: { type: 'array', items: { $ref: '#/$defs/Tag' } },
          n: { type: 'integer', default: 1 },
        },
        required: ['n'],
      },
    ],
    [
      '2020-12, with if and then',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { Name: { type: 'string', maxLength: 5, pattern: '^[a-z\\_]+$' } },
        properties: { name: { $ref: '#/$defs/Name' }, when: { type: 'string', format: 'date' } },
        if: { required: ['name'] },
        then: { required: ['when'] },
      },
    ],
  ];
  for (const [name, schema] of schemas) {
    it(`does not modify the schema (${name})`, () => {
      const before = structuredClone(schema);
      const validator = createInputValidator(schema, ids);
      validator.safeParse({ name: 'abc', tags: ['x'], n: 1 });
      validator.safeParse({ name: 123 });
      expect(schema).toEqual(before);
      // The validator library annotates schemas it is given; ours must get a copy.
      expect(Object.getOwnPropertyNames(schema)).toEqual(Object.getOwnPropertyNames(before));
    });

    it(`works with a deep-frozen schema (${name})`, () => {
      const frozen = deepFreeze(structuredClone(schema));
      const validator = createInputValidator(frozen, ids);
      expect(validator.safeParse({ n: 1, name: 'abc', when: '2024-01-01' }).success).toBe(true);
      expect(validator.safeParse({ n: 'x', name: 1 }).success).toBe(false);
    });
  }
});

describe('createInputValidator: no code generation', () => {
  /** Records every source text handed to the Function constructor while `run` runs. */
  function generatedCode(run: () => void): string[] {
    const RealFunction = globalThis.Function;
    const seen: string[] = [];
    const record = (args: readonly unknown[]): void => {
      const body = args[args.length - 1];
      seen.push(typeof body === 'string' ? body : '');
    };
    globalThis.Function = new Proxy(RealFunction, {
      construct(target, args: unknown[]) {
        record(args);
        return Reflect.construct(target, args) as object;
      },
      apply(target, thisArg: unknown, args: unknown[]) {
        record(args);
        return Reflect.apply(target, thisArg, args) as unknown;
      },
    });
    try {
      run();
    } finally {
      globalThis.Function = RealFunction;
    }
    // zod probes once with an empty body to learn whether eval is allowed.
    return seen.filter((source) => source.trim() !== '');
  }

  it('parses object schemas without zod compiling a parser from server keys', async () => {
    const { z } = await import('zod');
    // Control: a plain zod object in JIT mode does compile a parser here.
    const control = generatedCode(() => {
      z.object({ a: z.string() }).safeParse({ a: 'x' });
    });
    expect(control.length).toBeGreaterThan(0);

    const ours = generatedCode(() => {
      const validator = createInputValidator(
        {
          type: 'object',
          properties: {
            'key"]; globalThis.pwned = 1; //': { type: 'string' },
            b: { type: 'object', properties: { c: {} } },
          },
        },
        ids,
      );
      validator.safeParse({ b: { c: 1 } });
      validator.safeParse({ b: 2 });
    });
    expect(ours).toEqual([]);
    expect('pwned' in globalThis).toBe(false);
  });

  it('zod itself escapes keys when it does compile (checked, not relied on)', async () => {
    const { z } = await import('zod');
    const hostile = '"]; globalThis.pwnedByKey = 1; ["';
    const schema = z.fromJSONSchema({
      type: 'object',
      properties: { [hostile]: { type: 'string' } },
    });
    const code = generatedCode(() => {
      schema.safeParse({ [hostile]: 'x' });
    });
    expect(code.some((source) => source.includes(JSON.stringify(hostile)))).toBe(true);
    expect('pwnedByKey' in globalThis).toBe(false);
  });
});

describe('createInputValidator: messages', () => {
  it('names the field, what is expected, and what was received, on both paths', () => {
    for (const extra of [{}, { maxLength: 50 }]) {
      const validator = createInputValidator(
        {
          type: 'object',
          properties: {
            user: { type: 'object', properties: { age: { type: 'integer', ...extra } } },
          },
        },
        ids,
      );
      const [issue] = issuesOf(validator, { user: { age: 'ten' } });
      expect(issue?.path).toEqual(['user', 'age']);
      expect(issue?.message).toMatch(
        /^"user\.age" must be (an integer|a number); received a string \("ten"\)$/,
      );
    }
  });

  it('reports every problem, not only the first (shortCircuit off)', () => {
    const validator = createInputValidator(
      {
        type: 'object',
        properties: { a: { type: 'string', maxLength: 2 }, b: { type: 'number' } },
        required: ['a', 'b', 'c'],
      },
      ids,
    );
    const paths = issuesOf(validator, { a: 'long', b: 'x' }).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining([['a'], ['b'], ['c']]));
    expect(paths).toHaveLength(3);
  });
});
