/**
 * Pins `describeArguments`: the argument list `inspect` prints, one entry per
 * top-level property in schema order, with the type text it derives from each
 * JSON Schema form, `required`, the description on one line and the default as JSON.
 */
import { describe, expect, it } from 'vitest';
import { describeArguments } from '../../src/cli/describe-arguments.js';

/** The type text of one property schema. */
function typeOf(schema: unknown): string | undefined {
  return describeArguments({ properties: { x: schema } })[0]?.type;
}

describe('describeArguments', () => {
  it.each([undefined, null, 'object', [], { type: 'object' }, { properties: [] }, true])(
    'returns no arguments for %j',
    (schema) => {
      expect(describeArguments(schema)).toEqual([]);
    },
  );

  it('lists properties in schema order with required, description and default', () => {
    expect(
      describeArguments({
        type: 'object',
        properties: {
          query: { type: 'string', description: '  The text\n\tto   find. ' },
          limit: { type: 'integer', default: 10 },
          mode: { enum: ['fast', 'slow'], default: 'fast' },
          tags: { type: 'array', items: { type: 'string' }, default: [] },
          extra: { default: null },
        },
        required: ['query', 'ghost'],
      }),
    ).toEqual([
      { name: 'query', type: 'string', required: true, description: 'The text to find.' },
      { name: 'limit', type: 'integer', required: false, default: '10' },
      { name: 'mode', type: '"fast" | "slow"', required: false, default: '"fast"' },
      { name: 'tags', type: 'string[]', required: false, default: '[]' },
      { name: 'extra', type: 'any', required: false, default: 'null' },
    ]);
  });

  it('ignores a "required" that is not a list, and a description that is not a string', () => {
    expect(
      describeArguments({
        properties: { a: { type: 'string', description: 42 } },
        required: 'a',
      }),
    ).toEqual([{ name: 'a', type: 'string', required: false }]);
  });

  it('shows numbers JSON cannot hold (1e400 parses as Infinity) as themselves, not null', () => {
    expect(typeOf({ enum: [Infinity, 2] })).toBe('Infinity | 2');
    expect(typeOf({ const: -Infinity })).toBe('-Infinity');
    expect(describeArguments({ properties: { n: { type: 'number', default: NaN } } })).toEqual([
      { name: 'n', type: 'number', required: false, default: 'NaN' },
    ]);
  });

  it('keeps a property named __proto__ as an argument', () => {
    const schema: unknown = JSON.parse(
      '{"properties":{"__proto__":{"type":"number"}},"required":["__proto__"]}',
    );
    expect(describeArguments(schema)).toEqual([
      { name: '__proto__', type: 'number', required: true },
    ]);
  });

  it.each<[unknown, string]>([
    [true, 'any'],
    [false, 'never'],
    [null, 'any'],
    [{}, 'any'],
    [{ const: 'on' }, '"on"'],
    [{ const: null }, 'null'],
    [{ type: 'string', const: 3 }, '3'],
    [{ enum: ['a', 1, null] }, '"a" | 1 | null'],
    [{ $ref: '#/$defs/Point' }, 'Point'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [{ oneOf: [{ const: 1 }, { type: 'boolean' }] }, '1 | boolean'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ type: 'array' }, 'any[]'],
    [
      { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      '(string | number)[]',
    ],
    [{ type: ['array', 'null'], items: { type: 'integer' } }, 'integer[] | null'],
    [{ type: 'array', items: { type: 'array', items: { enum: ['x'] } } }, '"x"[][]'],
    [{ properties: { a: { type: 'string' } } }, 'object'],
    [{ type: 'object', properties: {} }, 'object'],
  ])('types %j as %s', (schema, type) => {
    expect(typeOf(schema)).toBe(type);
  });

  it('stops describing nested types below depth 4', () => {
    let schema: unknown = { type: 'string' };
    for (let level = 0; level < 6; level += 1) schema = { type: 'array', items: schema };
    // Six arrays around a string: the sixth level is past the limit and reads as `any`.
    expect(typeOf(schema)).toBe('any[][][][][]');
  });
});
