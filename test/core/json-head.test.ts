/**
 * `jsonHead` writes the start of a value's JSON text, as `JSON.stringify`
 * writes it, and reads no further than that start needs: a server's log
 * data of megabytes cost a whole `JSON.stringify` for the 8 KB an event
 * keeps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonHead } from '../../src/core/json-head.js';

describe('jsonHead', () => {
  it('is the start of what JSON.stringify writes, and whole exactly when that fits (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(300), (value, maxChars) => {
        const full = JSON.stringify(value);
        const head = jsonHead(value, maxChars);
        expect(head).toEqual({ text: full.slice(0, maxChars), whole: full.length <= maxChars });
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads no further than the head needs', () => {
    let reads = 0;
    const wide: Record<string, number> = {};
    for (let index = 0; index < 100_000; index++) {
      Object.defineProperty(wide, `key${String(index)}`, {
        enumerable: true,
        get: () => {
          reads += 1;
          return index;
        },
      });
    }
    const head = jsonHead(wide, 1_000);
    expect(head?.whole).toBe(false);
    expect(head?.text).toHaveLength(1_000);
    // Some 15 characters a member.
    expect(reads).toBeLessThan(100);
  });

  it('cuts a long string before escaping it whole, and a deep nesting at 1,000 levels', () => {
    expect(jsonHead({ a: '"'.repeat(1_000_000) }, 10)).toEqual({
      text: '{"a":"\\"\\"',
      whole: false,
    });
    let deep: unknown = 0;
    for (let level = 0; level < 50_000; level++) deep = [deep];
    expect(jsonHead(deep, 100_000)).toEqual({ text: '['.repeat(1_000), whole: false });
  });

  it('leaves to JSON.stringify what is not plain data, and writes a member named toJSON that is data', () => {
    class Point {
      x = 1;
    }
    expect(jsonHead(new Point(), 100)).toBeUndefined();
    expect(jsonHead({ at: new Date(0) }, 100)).toBeUndefined();
    expect(jsonHead({ toJSON: () => 'x' }, 100)).toBeUndefined();
    expect(jsonHead([1n], 100)).toBeUndefined();
    expect(jsonHead({ f: () => 1 }, 100)).toBeUndefined();
    expect(jsonHead({ n: Number.NaN }, 100)).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = { again: cyclic };
    expect(jsonHead(cyclic, 100_000)).toBeUndefined();
    const shared = { a: 1 };
    expect(jsonHead([shared, shared], 100)).toEqual({ text: '[{"a":1},{"a":1}]', whole: true });
    expect(jsonHead({ toJSON: 'data' }, 100)).toEqual({ text: '{"toJSON":"data"}', whole: true });
    expect(jsonHead({ a: undefined, b: [undefined] }, 100)).toEqual({
      text: '{"b":[null]}',
      whole: true,
    });
  });
});
