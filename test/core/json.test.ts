import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJsonText, decodePointer, memberOf } from '../../src/core/json.js';
import { countedHoles } from '../support/json-text.js';

describe('canonicalJsonText', () => {
  it('is the same text for the same data whatever the key order, and parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJsonText(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const reversed: unknown = JSON.parse(JSON.stringify(value), (_key, item: unknown) =>
          typeof item === 'object' && item !== null && !Array.isArray(item)
            ? Object.fromEntries(Object.entries(item).reverse())
            : item,
        );
        expect(canonicalJsonText(reversed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('skips undefined members and writes undefined items and holes as null, as JSON.stringify does', () => {
    // eslint-disable-next-line no-sparse-arrays
    const value = { b: undefined, a: [undefined, , 1] };
    expect(canonicalJsonText(value)).toBe(JSON.stringify({ a: [null, null, 1] }));
  });

  it.each([
    [
      'a cycle',
      (() => {
        const node: Record<string, unknown> = {};
        node['self'] = { again: node };
        return node;
      })(),
      /the value is cyclic \(at #\/self\/again\)/,
    ],
    [
      'a non-finite number',
      { n: [Infinity] },
      /number Infinity; JSON numbers must be finite \(at #\/n\/0\)/,
    ],
    ['a function', { f: () => 1 }, /holds a function, not JSON \(at #\/f\)/],
    ['a bigint', { big: 1n }, /holds a bigint/],
    ['a class instance', { when: new Date(0) }, /non-plain object, not JSON \(at #\/when\)/],
  ])('refuses %s, naming where', (_name, value, message) => {
    expect(() => canonicalJsonText(value)).toThrow(TypeError);
    expect(() => canonicalJsonText(value)).toThrow(message);
  });

  it('stops at its limits', () => {
    expect(() => canonicalJsonText({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toThrow(
      /nests deeper than 2 levels \(at #\/a\/b\)/,
    );
    expect(() => canonicalJsonText({ text: 'x'.repeat(100) }, { maxChars: 50 })).toThrow(
      /more than 50 characters of JSON/,
    );
  });

  it('counts every character it would write: structure, and the null of each hole', () => {
    expect(() => canonicalJsonText([[], [], [], []], { maxChars: 10 })).toThrow(
      /more than 10 characters of JSON/,
    );
    expect(canonicalJsonText([[], [], []], { maxChars: 10 })).toBe('[[],[],[]]');
    expect(() => canonicalJsonText({ a: new Array(10) }, { maxChars: 40 })).toThrow(
      /more than 40 characters of JSON \(at #\/a\/\d+\)/,
    );
  });

  it('refuses a sparse array past its limit before reading any item', () => {
    const { holes, reads } = countedHoles();
    expect(() => canonicalJsonText({ items: holes }, { maxChars: 1_000 })).toThrow(
      /more than 1000 characters of JSON \(at #\/items\)/,
    );
    expect(reads()).toBe(0);
  });
});

describe('JSON Pointers', () => {
  it('decodes escaped and URI-encoded segments', () => {
    expect(decodePointer('#/a~1b/c~0d/%25x/0')).toEqual(['a/b', 'c~d', '%x', '0']);
    expect(decodePointer('#')).toEqual([]);
    expect(decodePointer('#/100%')).toEqual(['100%']); // not URI-encoded: taken as it is
  });

  it('reads own members only', () => {
    expect(memberOf({ a: 1 }, 'a')).toBe(1);
    expect(memberOf({}, 'toString')).toBeUndefined();
    expect(memberOf([5, 6], '1')).toBe(6);
    expect(memberOf('text', 'length')).toBeUndefined();
  });
});
