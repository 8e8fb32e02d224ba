/**
 * Pins the pure helpers every store shares: `EMPTY_PRIVATE_DATA`,
 * `privateDataState` (frozen, level raised to cover its datasets),
 * `mergePrivateDataStates` (a pointwise maximum: commutative, associative,
 * idempotent, never lower than either side) and `coversPrivateData`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DataSensitivity } from '../../../src/core/sensitivity.js';
import {
  EMPTY_PRIVATE_DATA,
  SENSITIVITY_LEVELS,
  coversPrivateData,
  mergePrivateDataStates,
  privateDataState,
} from '../../../src/runtime/store/session-store.js';

const level = fc.constantFrom<DataSensitivity>(...SENSITIVITY_LEVELS);
const state = fc
  .tuple(level, fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor'), level))
  .map(([l, datasets]) => privateDataState(l, datasets));

describe('session-store helpers', () => {
  it('pins the levels and the empty state', () => {
    expect(SENSITIVITY_LEVELS).toEqual(['public', 'internal', 'confidential', 'secret']);
    expect(EMPTY_PRIVATE_DATA).toEqual({
      hasPrivateData: false,
      sensitivity: 'public',
      datasets: {},
    });
    expect(Object.isFrozen(EMPTY_PRIVATE_DATA)).toBe(true);
    expect(Object.isFrozen(EMPTY_PRIVATE_DATA.datasets)).toBe(true);
  });

  it('privateDataState raises the level to its highest dataset and freezes a copy', () => {
    const datasets = { hr: 'confidential', wiki: 'internal' } as const;
    const result = privateDataState('public', datasets);
    expect(result).toEqual({
      hasPrivateData: true,
      sensitivity: 'confidential',
      datasets: { hr: 'confidential', wiki: 'internal' },
    });
    expect(result.datasets).not.toBe(datasets);
    expect(Object.isFrozen(result) && Object.isFrozen(result.datasets)).toBe(true);
    expect(Object.getPrototypeOf(result.datasets)).toBeNull();
    expect(privateDataState('internal', {})).toEqual({
      hasPrivateData: true,
      sensitivity: 'internal',
      datasets: {},
    });
    expect(privateDataState('public', { docs: 'public' })).toEqual({
      hasPrivateData: false,
      sensitivity: 'public',
      datasets: { docs: 'public' },
    });
  });

  it('merges pointwise, keeping the higher level of each dataset', () => {
    const merged = mergePrivateDataStates(
      privateDataState('internal', { a: 'secret', b: 'internal' }),
      privateDataState('public', { b: 'confidential', c: 'public' }),
    );
    expect(merged).toEqual({
      hasPrivateData: true,
      sensitivity: 'secret',
      datasets: { a: 'secret', b: 'confidential', c: 'public' },
    });
  });

  it('handles a dataset named __proto__ as data', () => {
    const merged = mergePrivateDataStates(
      EMPTY_PRIVATE_DATA,
      privateDataState(
        'public',
        JSON.parse('{"__proto__":"secret"}') as Record<string, DataSensitivity>,
      ),
    );
    expect(Object.keys(merged.datasets)).toEqual(['__proto__']);
    expect(merged.sensitivity).toBe('secret');
  });

  it('coversPrivateData compares level and every dataset', () => {
    // A dataset named like an Object.prototype member is still unknown to an empty state.
    const inherited = Object.fromEntries([['toString', 'public']]) as Record<
      string,
      DataSensitivity
    >;
    const outer = privateDataState('confidential', { a: 'secret', b: 'internal' });
    expect(coversPrivateData(outer, privateDataState('internal', { a: 'confidential' }))).toBe(
      true,
    );
    expect(coversPrivateData(outer, privateDataState('public', { b: 'confidential' }))).toBe(false);
    expect(coversPrivateData(outer, privateDataState('public', { z: 'public' }))).toBe(false);
    expect(
      coversPrivateData(privateDataState('internal', {}), privateDataState('confidential', {})),
    ).toBe(false);
    expect(coversPrivateData(EMPTY_PRIVATE_DATA, EMPTY_PRIVATE_DATA)).toBe(true);
    expect(coversPrivateData(EMPTY_PRIVATE_DATA, privateDataState('public', inherited))).toBe(
      false,
    );
  });

  it('merge is a lattice join: commutative, associative, idempotent, covering both sides', () => {
    fc.assert(
      fc.property(state, state, state, (a, b, c) => {
        const ab = mergePrivateDataStates(a, b);
        expect(ab).toEqual(mergePrivateDataStates(b, a));
        expect(mergePrivateDataStates(ab, c)).toEqual(
          mergePrivateDataStates(a, mergePrivateDataStates(b, c)),
        );
        expect(mergePrivateDataStates(a, a)).toEqual(a);
        expect(coversPrivateData(ab, a) && coversPrivateData(ab, b)).toBe(true);
        expect(coversPrivateData(a, ab)).toBe(coversPrivateData(a, b));
      }),
    );
  });
});
