/**
 * Pins the config schema's building blocks: `rule` (the sentence after a
 * field's path, "is required" for a missing field), `quote` (a short
 * rendering of a bad value) and `ownRecord` (a frozen map that keeps every
 * own key, `__proto__` included, and checks each value).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ownRecord, quote, rule } from '../../src/config/schema-helpers.js';

/** The messages of a failed parse, as `path: message`. */
function messages(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('rule', () => {
  const text = z.string({ error: rule('must be a string') });
  const described = z.number({ error: rule((input) => `${quote(input)} must be a number`) });

  it('says "is required" for a missing value, whatever the text', () => {
    expect(messages(text, undefined)).toEqual([': is required']);
    expect(messages(described, undefined)).toEqual([': is required']);
  });

  it('gives the text, or the function of the bad input, for a present value', () => {
    expect(messages(text, 5)).toEqual([': must be a string']);
    expect(messages(text, null)).toEqual([': must be a string']);
    expect(messages(described, 'soon')).toEqual([': "soon" must be a number']);
    expect(messages(described, null)).toEqual([': null must be a number']);
  });

  it('applies to refinements as well as type checks', () => {
    const positive = z.number().refine((value) => value > 0, { error: rule('must be positive') });
    expect(messages(positive, -1)).toEqual([': must be positive']);
  });
});

describe('quote', () => {
  it.each<[unknown, string]>([
    [undefined, 'nothing'],
    [null, 'null'],
    ['soon', '"soon"'],
    [12, '12'],
    [false, 'false'],
    [{ a: [1] }, '{"a":[1]}'],
    [() => 1, 'function'],
    [Symbol('s'), 'symbol'],
    ['x'.repeat(78), `"${'x'.repeat(78)}"`],
  ])('renders %s as %s', (value, text) => {
    expect(quote(value)).toBe(text);
  });

  it('cuts a rendering over 80 characters to 77 and an ellipsis', () => {
    const text = quote('y'.repeat(79));
    expect(text).toBe(`"${'y'.repeat(76)}...`);
    expect(text).toHaveLength(80);
  });

  // JSON.stringify throws on these: a config error must still name the field.
  it('renders a bigint without throwing', () => {
    expect(quote(5000n)).toBe('5000n');
  });

  it('renders a circular value without throwing', () => {
    const value: Record<string, unknown> = {};
    value['self'] = value;
    expect(quote(value)).toBe('an object that is not JSON (it refers to itself)');
  });
});

describe('ownRecord', () => {
  const headers = ownRecord(
    z.string({ error: rule('must be a string') }),
    'must map names to strings',
  );

  it('keeps every own key, __proto__ and constructor included, as own data', () => {
    const input: unknown = JSON.parse('{"__proto__":"p","constructor":"c","x-key":"v"}');
    const parsed = headers.parse(input);
    expect(Object.keys(parsed)).toEqual(['__proto__', 'constructor', 'x-key']);
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe('p');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(parsed['constructor']).toBe('c');
  });

  it('returns a frozen copy with read-only values', () => {
    const input = { a: 'one' };
    const parsed = headers.parse(input);
    expect(parsed).not.toBe(input);
    expect(parsed).toEqual({ a: 'one' });
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(parsed, 'a')).toEqual({
      value: 'one',
      enumerable: true,
      configurable: false,
      writable: false,
    });
  });

  it('accepts a null-prototype object and an empty object', () => {
    const bare = Object.assign(Object.create(null) as Record<string, string>, { k: 'v' });
    expect(headers.parse(bare)).toEqual({ k: 'v' });
    expect(headers.parse({})).toEqual({});
  });

  it('reports each bad value at its key, keeping the good ones out of the error', () => {
    expect(messages(headers, { good: 'x', bad: 1, worse: null })).toEqual([
      'bad: must be a string',
      'worse: must be a string',
    ]);
  });

  it('reports the nested path of a bad value inside an object value', () => {
    const nested = ownRecord(
      z.object({ port: z.number({ error: rule('must be a number') }) }),
      'm',
    );
    expect(messages(nested, { web: { port: 'http' } })).toEqual(['web.port: must be a number']);
  });

  it('transforms values with the value schema', () => {
    const lengths = ownRecord(
      z.string().transform((text) => text.length),
      'must map',
    );
    expect(lengths.parse({ a: 'abc' })).toEqual({ a: 3 });
  });

  it.each<[string, unknown]>([
    ['an array', ['a']],
    ['null', null],
    ['a string', 'a=b'],
    ['a Map', new Map([['a', 'b']])],
    [
      'a class instance',
      new (class Headers {
        a = 'b';
      })(),
    ],
  ])('refuses %s with the map rule', (_label, input) => {
    expect(messages(headers, input)).toEqual([': must map names to strings']);
  });

  it('gives a missing map the map rule: z.custom reports no invalid_type for rule to read', () => {
    // Every use in the config schema is optional, so "is required" is never needed here.
    expect(messages(headers, undefined)).toEqual([': must map names to strings']);
  });
});
