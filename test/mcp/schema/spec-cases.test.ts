/**
 * Cases where the check of arguments once gave another verdict than the
 * JSON Schema specification (found by differential testing against the
 * spec and a reference validator), each end to end: the schema as a server
 * lists it, the arguments as a model sends them.
 */
import { describe, expect, it } from 'vitest';
import { createInputValidator, inputSchemaRefusal } from '../../../src/mcp/schema/index.js';

const ids = { serverName: 's', toolName: 't' };

function accepts(schema: Record<string, unknown>, value: unknown): boolean {
  return createInputValidator(schema, ids).safeParse(value).success;
}

describe('argument checks that follow the specification', () => {
  it('ignores additionalItems where items is no tuple (draft-07 §6.4.2), its pattern too', () => {
    const draft7 = 'http://json-schema.org/draft-07/schema#';
    for (const items of [undefined, true, { type: 'string' }]) {
      const v = {
        type: 'array',
        ...(items === undefined ? {} : { items }),
        additionalItems: { type: 'string', pattern: '^x' },
      };
      const schema = { $schema: draft7, type: 'object', properties: { v } };
      expect(accepts(schema, { v: ['y'] }), JSON.stringify(items)).toBe(true);
    }
    // Beside a tuple it applies to the items after it.
    const tuple = {
      $schema: draft7,
      type: 'object',
      properties: {
        v: { type: 'array', items: [{ type: 'number' }], additionalItems: { pattern: '^x' } },
      },
    };
    expect(accepts(tuple, { v: [1, 'xa'] })).toBe(true);
    expect(accepts(tuple, { v: [1, 'ya'] })).toBe(false);
  });

  it('applies both patternProperties schemas when one key is written two ways (`\\_` is `_`)', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^_a': { type: 'number' }, '^\\_a': { type: 'string' } },
    };
    expect(accepts(schema, { _a: 's' })).toBe(false);
    expect(accepts(schema, { _a: 1 })).toBe(false);
    expect(accepts(schema, { b: 's' })).toBe(true);
  });

  it('checks a pattern with a long category name, and refuses one RE2 cannot read rather than skip it', () => {
    const named = (pattern: string): Record<string, unknown> => ({
      type: 'object',
      properties: { name: { type: 'string', pattern } },
    });
    expect(accepts(named('^\\p{Letter}+$'), { name: 'abc' })).toBe(true);
    expect(accepts(named('^\\p{Letter}+$'), { name: '123' })).toBe(false);
    expect(accepts(named('^\\p{General_Category=Decimal_Number}+$'), { name: '٣4' })).toBe(true);
    expect(accepts(named('^\\p{ASCII}+$'), { name: 'é' })).toBe(false);
    for (const pattern of ['^\\p{Script=Grek}+$', '^\\p{ID_Start}', '^\\p{scx=Greek}']) {
      expect(inputSchemaRefusal(named(pattern)), pattern).toMatch(
        /uses what the linear-time engine \(RE2\) cannot read/,
      );
    }
    // What no linear engine has stays unchecked where that only accepts more, as documented.
    expect(inputSchemaRefusal(named('^(a)\\1$'))).toBeUndefined();
    expect(accepts(named('^(a)\\1$'), { name: 'zz' })).toBe(true);
  });
});

describe('keywords a dialect does not have', () => {
  const draft = (version: string): string => `http://json-schema.org/draft-${version}/schema#`;

  it('are ignored, as the specification ignores unknown keywords', () => {
    const cases: [string, Record<string, unknown>, unknown][] = [
      [draft('07'), { maxContains: 1, contains: { type: 'number' } }, [1, 2]],
      [draft('07'), { dependentRequired: { a: ['b'] } }, { a: 1 }],
      [draft('07'), { dependentSchemas: { a: { required: ['b'] } } }, { a: 1 }],
      [draft('07'), { prefixItems: [{ type: 'string' }] }, [1]],
      [draft('07'), { unevaluatedProperties: false }, { a: 1 }],
      [draft('06'), { if: { type: 'object' }, then: { required: ['b'] } }, { a: 1 }],
      [draft('04'), { const: 1 }, 2],
      [draft('04'), { propertyNames: { maxLength: 1 } }, { long: 1 }],
      ['https://json-schema.org/draft/2019-09/schema', { prefixItems: [{ type: 'string' }] }, [1]],
      // References of another dialect: 2020-12 replaced $recursiveRef with $dynamicRef.
      ['https://json-schema.org/draft/2020-12/schema', { $recursiveRef: '#' }, 5],
      [draft('07'), { $dynamicRef: '#/definitions/n' }, 'x'],
      ['https://json-schema.org/draft/2019-09/schema', { $dynamicRef: '#/$defs/n' }, 'x'],
    ];
    for (const [$schema, keyword, value] of cases) {
      const n = { type: 'number' };
      const schema = {
        $schema,
        type: 'object',
        properties: { v: keyword },
        definitions: { n },
        $defs: { n },
      };
      expect(accepts(schema, { v: value }), `${$schema} ${JSON.stringify(keyword)}`).toBe(true);
    }
  });

  it('are applied in the dialect that has them', () => {
    const v = { dependentRequired: { a: ['b'] }, prefixItems: [{ type: 'string' }] };
    const schema = { type: 'object', properties: { v } };
    expect(accepts(schema, { v: { a: 1 } })).toBe(false);
    expect(accepts(schema, { v: [1] })).toBe(false);
    const seven = {
      $schema: draft('07'),
      type: 'object',
      properties: { v: { if: { type: 'object' }, then: { required: ['b'] } } },
    };
    expect(accepts(seven, { v: { a: 1 } })).toBe(false);
  });
});

describe('what the validator would check loosely', () => {
  it('refuses contains with unevaluatedItems in 2019-09, where contains evaluates no item', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { v: { contains: { type: 'string' }, unevaluatedItems: false } },
    };
    expect(() => createInputValidator(schema, ids)).toThrow(
      /"unevaluatedItems" at #\/properties\/v and "contains" at #\/properties\/v cannot be checked together in draft 2019-09/,
    );
    // In 2020-12 contains does evaluate the items it matches: checked as written.
    const twenty = { ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' };
    expect(accepts(twenty, { v: ['a'] })).toBe(true);
    expect(accepts(twenty, { v: ['a', 1] })).toBe(false);
  });
});

describe('patterns the validator never applies', () => {
  it('take no server out at connect: annotations, vendor keywords, data', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^\\d+$', errorMessage: { pattern: 'digits only (0-9' } },
      },
      'x-ui': { patternProperties: { '^(a|b)$': {} } },
    };
    expect(inputSchemaRefusal(schema)).toBeUndefined();
    expect(accepts(schema, { id: '12' })).toBe(true);
    expect(accepts(schema, { id: 'x' })).toBe(false);
  });
});

describe('arguments that hold themselves, or nest too deep', () => {
  it('are refused by where, not blamed on the server', () => {
    const validator = createInputValidator(
      { type: 'object', properties: { text: { type: 'string' } } },
      ids,
    );
    const message = (value: Record<string, unknown>): string => {
      const result = validator.safeParse(value);
      return result.success ? 'accepted' : (result.error.issues[0]?.message ?? '');
    };
    const looped: Record<string, unknown> = { text: 'a' };
    looped['self'] = looped;
    expect(message(looped)).toBe(
      '"self" is an object that holds itself (a cycle), which JSON cannot carry: the server would not receive it as checked',
    );
    // Shared twice is not a cycle.
    const shared = { n: 1 };
    expect(message({ text: 'a', left: shared, right: shared })).toBe('accepted');
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 5_000; level += 1) deep = { inner: deep };
    expect(message({ text: 'a', deep })).toMatch(/is nested deeper than 1000 levels/);
  });
});

describe('arguments JSON cannot carry', () => {
  it('are refused, naming where and what: the server would not receive them as checked', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'number' }, r: {}, d: { type: 'object' }, list: { type: 'array' } },
      required: ['r'],
    };
    const validator = createInputValidator(schema, ids);
    const refused = (value: Record<string, unknown>): string => {
      const result = validator.safeParse(value);
      return result.success ? 'accepted' : (result.error.issues[0]?.message ?? '');
    };
    expect(refused({ r: 1, n: Number.NaN })).toBe(
      '"n" is NaN, which JSON cannot carry: the server would not receive it as checked',
    );
    expect(refused({ r: 1, n: Number.POSITIVE_INFINITY })).toContain('"n" is Infinity');
    // A member set to undefined is left out, as JSON leaves it out: present for nothing.
    expect(refused({ r: undefined })).toBe('"r" is required');
    expect(refused({ r: 1, n: undefined })).toBe('accepted');
    const nested = createInputValidator(
      { type: 'object', properties: { list: { type: 'array', items: { required: ['k'] } } } },
      ids,
    );
    expect(nested.safeParse({ list: [{ k: undefined }] }).success).toBe(false);
    expect(nested.safeParse({ list: [{ k: 1, other: undefined }] }).success).toBe(true);
    expect(refused({ r: [undefined] })).toContain('"r[0]" is undefined');
    expect(refused({ r: 1, d: new Date(0) })).toContain('"d" is a Date object');
    // eslint-disable-next-line no-sparse-arrays -- a hole is the case
    expect(refused({ r: 1, list: [1, , 3] })).toContain('"list[1]" is a hole in an array');
    expect(refused({ r: { deep: [{ x: 1n }] } })).toContain('"r.deep[0].x" is a bigint');
    expect(refused({ r: Object.assign(Object.create(null), { a: 1 }) })).toBe('accepted');
    expect(refused({ r: 1, n: 2.5, d: {}, list: [1, 'a', null] })).toBe('accepted');
  });
});

describe('anchors', () => {
  it('are refused in a nested resource, whose anchors the validator would also find from outside', () => {
    const nested = {
      $id: 'https://example.com/base.json',
      type: 'object',
      properties: { v: { $ref: '#bigint' } },
      $defs: {
        bigint: { $anchor: 'bigint', maximum: 10 },
        smallint: { $id: 'https://example.com/other/', $anchor: 'bigint', maximum: 2 },
      },
    };
    expect(() => createInputValidator(nested, ids)).toThrow(
      /"\$anchor" at #\/\$defs\/smallint lies in the nested resource at #\/\$defs\/smallint/,
    );
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { other: { $id: 'http://x.test/o', definitions: { a: { $id: '#a' } } } },
    };
    expect(() => createInputValidator(draft7, ids)).toThrow(
      /"\$id" at .* lies in the nested resource/,
    );
    // In the root resource, an anchor is read as it should be.
    const root = {
      type: 'object',
      properties: { v: { $ref: '#small' } },
      $defs: { small: { $anchor: 'small', maximum: 2 } },
    };
    expect(accepts(root, { v: 1 })).toBe(true);
    expect(accepts(root, { v: 5 })).toBe(false);
  });
});
