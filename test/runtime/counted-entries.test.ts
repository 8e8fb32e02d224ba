import { describe, expect, it } from 'vitest';
import {
  countedEntriesSlice,
  entryCount,
  recordEntries,
} from '../../src/runtime/counted-entries.js';
import { Session } from '../../src/index.js';

describe('counted entries', () => {
  it('creates the slice persistent and empty once, then shares it', () => {
    const session = new Session();
    const slice = countedEntriesSlice(session, 'seen');
    expect(slice.get()).toEqual({});
    expect(countedEntriesSlice(session, 'seen')).toBe(slice);
  });

  it('writes every entry it records, even one recorded before, and counts them', () => {
    const slice = countedEntriesSlice(new Session(), 'seen');
    recordEntries(slice, ['a', 'b']);
    const before = slice.get();
    recordEntries(slice, ['a']);
    expect(slice.get()).not.toBe(before); // a write, so a later call's record wins a rollback
    expect(slice.get()).toEqual({ a: 2, b: 1 });
    expect(entryCount(slice.get(), 'a')).toBe(2);
    expect(entryCount(slice.get(), 'c')).toBe(0);
  });

  it('reads a stored value that is not a count as nothing recorded', () => {
    expect(entryCount({ a: 'yes', b: -1 }, 'a')).toBe(0);
    expect(entryCount({ a: 'yes', b: -1 }, 'b')).toBe(0);
    expect(entryCount(null, 'a')).toBe(0);
    expect(entryCount(JSON.parse('{"__proto__": 3}'), '__proto__')).toBe(3);
  });
});
