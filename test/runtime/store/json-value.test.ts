/**
 * Pins `assertJsonValue` beyond event-serialization.test.ts: the exact
 * message for each kind of non-JSON member and its path, that a value
 * shared twice (no cycle) is accepted, and what it accepts round-trips
 * through JSON unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertJsonValue } from '../../../src/runtime/store/json-value.js';

function message(value: unknown): string {
  try {
    assertJsonValue(value, 'slice "s"');
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  return 'accepted';
}

class Point {
  x = 1;
}

describe('assertJsonValue', () => {
  it.each([
    [NaN, 'slice "s" is NaN; a persistent value must be JSON data'],
    [{ a: [-Infinity] }, 'slice "s".a[0] is -Infinity; a persistent value must be JSON data'],
    [{ n: 1n }, 'slice "s".n is a bigint; a persistent value must be JSON data'],
    [[Symbol('x')], 'slice "s"[0] is a symbol; a persistent value must be JSON data'],
    [
      { when: new Date(0) },
      'slice "s".when is a Date; a persistent value must be JSON data (plain objects and arrays)',
    ],
    [
      { m: new Map() },
      'slice "s".m is a Map; a persistent value must be JSON data (plain objects and arrays)',
    ],
    [
      { p: new Point() },
      'slice "s".p is a Point; a persistent value must be JSON data (plain objects and arrays)',
    ],
    [
      [{ deep: [0, { x: undefined }] }],
      'slice "s"[0].deep[1].x is undefined; a persistent value must be JSON data',
    ],
  ])('refuses case %#', (value, expected) => {
    expect(message(value)).toBe(expected);
  });

  it('names a cycle through an array', () => {
    const list: unknown[] = [1];
    list.push({ back: list });
    expect(message(list)).toBe(
      'slice "s"[1].back refers to itself; a persistent value must be JSON data',
    );
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { v: 1 };
    expect(message({ a: shared, b: [shared, shared] })).toBe('accepted');
  });

  it('accepts JSON data, which comes back unchanged from JSON', () => {
    fc.assert(
      // -0 is normalised away here; see the expected failure below.
      fc.property(
        fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown),
        (value) => {
          expect(message(value)).toBe('accepted');
          expect(JSON.parse(JSON.stringify(value))).toEqual(value);
        },
      ),
    );
  });

  // Both would come back changed from a store.
  it('refuses -0, which JSON would change to 0', () => {
    expect(message({ balance: -0 })).toBe('slice "s".balance is -0, which JSON stores as 0');
  });

  it('refuses a sparse array, which JSON would change', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(message([, 1])).toBe('slice "s"[0] is a hole, which JSON stores as null');
  });
});
