/**
 * Pins how the Redis store reads replies back: `asArray` and `toVersion`
 * refuse what is not the expected shape with a `store-corrupt`
 * SessionStoreError; `parsePrivateData` reads the level and `d:` datasets
 * and refuses an unknown level naming the session and field;
 * `parseSlices` parses JSON slices and refuses one that is not JSON;
 * `parseStreamEntry` skips (gives undefined for) an entry it cannot read.
 */
import { describe, expect, it } from 'vitest';
import { SessionStoreError } from '../../../src/runtime/store/errors.js';
import {
  asArray,
  parsePrivateData,
  parseSlices,
  parseStreamEntry,
  toVersion,
} from '../../../src/runtime/store/redis-replies.js';
import { EMPTY_PRIVATE_DATA } from '../../../src/runtime/store/session-store.js';

function corrupt(run: () => unknown): SessionStoreError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SessionStoreError);
    expect((error as SessionStoreError).code).toBe('store-corrupt');
    return error as SessionStoreError;
  }
  throw new Error('expected a throw');
}

describe('asArray', () => {
  it('gives back an array of at least the length asked for', () => {
    const reply = [1, 'a', null];
    expect(asArray(reply, 3)).toBe(reply);
    expect(asArray(reply, 2)).toBe(reply);
  });

  it('refuses a reply that is not an array, or too short, showing it', () => {
    const says = (what: string, length: number): string =>
      `unexpected reply from Redis: expected a list of ${length} items, received ${what}`;
    expect(corrupt(() => asArray('OK', 1)).message).toBe(says('"OK"', 1));
    expect(corrupt(() => asArray(null, 1)).message).toBe(says('nil', 1));
    expect(corrupt(() => asArray([4, 5], 3)).message).toBe(says('a list of 2 items', 3));
    // An empty list or string said nothing before.
    expect(corrupt(() => asArray([], 2)).message).toBe(says('a list of 0 items', 2));
    expect(corrupt(() => asArray('', 2)).message).toBe(says('""', 2));
  });
});

describe('toVersion', () => {
  it('reads counts given as numbers or decimal strings', () => {
    expect([0, 7, '0', '12', Number.MAX_SAFE_INTEGER].map(toVersion)).toEqual([
      0,
      7,
      0,
      12,
      Number.MAX_SAFE_INTEGER,
    ]);
  });

  it('refuses what is not a non-negative safe integer, naming the value', () => {
    for (const [value, shown] of [
      [-1, '-1'],
      [1.5, '1.5'],
      ['abc', 'abc'],
      [Number.NaN, 'NaN'],
      [2 ** 53, String(2 ** 53)],
      [undefined, 'undefined'],
      [{}, '[object Object]'],
    ] as const) {
      expect(corrupt(() => toVersion(value)).message).toBe(
        `stored version ${shown} is not a count`,
      );
    }
  });

  // `Number(value)` would read these as counts: an empty version as 0 (as if
  // nothing were ever written), hex or exponent text as another count.
  it('refuses empty, blank, hex and exponent text', () => {
    const accepted = ['', ' ', '0x10', '1e3', ' 5 '].filter((value) => {
      try {
        toVersion(value);
        return true;
      } catch {
        return false;
      }
    });
    expect(accepted).toEqual([]);
  });
});

describe('parsePrivateData', () => {
  it('reads the level and the d: datasets, ignoring other fields', () => {
    expect(
      parsePrivateData('s', [
        'level',
        'internal',
        'd:crm',
        'confidential',
        'd:hr',
        'internal',
        'note',
        'public',
      ]),
    ).toEqual({
      hasPrivateData: true,
      sensitivity: 'confidential',
      datasets: { crm: 'confidential', hr: 'internal' },
    });
  });

  it('reads an empty hash as public with no datasets', () => {
    expect(parsePrivateData('s', [])).toEqual(EMPTY_PRIVATE_DATA);
  });

  it('refuses an unknown level, naming the session, the value and the field', () => {
    expect(corrupt(() => parsePrivateData('s-1', ['d:crm', 'top-secret'])).message).toBe(
      'session "s-1": stored level "top-secret" of "d:crm" is not one of public, internal, confidential, secret',
    );
    expect(corrupt(() => parsePrivateData('s-1', ['level', 'Secret'])).message).toBe(
      'session "s-1": stored level "Secret" of "level" is not one of public, internal, confidential, secret',
    );
  });

  it('keeps a dataset named __proto__ as a dataset', () => {
    const state = parsePrivateData('s', ['d:__proto__', 'secret']);
    expect(Object.keys(state.datasets)).toEqual(['__proto__']);
    expect(state.sensitivity).toBe('secret');
  });

  // Fails closed: read as "no private data", a malformed reply would lower the session to public.
  it('refuses fields that are not a flat list of pairs', () => {
    corrupt(() => parsePrivateData('s', 'secret'));
    corrupt(() => parsePrivateData('s', ['level', 'secret', 'd:crm']));
  });
});

describe('parseSlices', () => {
  it('parses each slice as JSON and freezes the record', () => {
    const slices = parseSlices('s', ['plan', '{"steps":[1,2]}', 'note', '"hi"', 'n', 'null']);
    expect(slices).toEqual({ plan: { steps: [1, 2] }, note: 'hi', n: null });
    expect(Object.isFrozen(slices)).toBe(true);
  });

  it('refuses a slice that is not JSON, naming the session and the slice', () => {
    const error = corrupt(() => parseSlices('s-1', ['ok', '1', 'plan', '{broken']));
    expect(error.message).toBe('session "s-1": slice "plan" is not JSON');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });
});

describe('parseStreamEntry', () => {
  it('reads the type and JSON fields into a frozen event', () => {
    const event = parseStreamEntry('s-1', '1-0', ['type', 'ToolInvoked', 'data', '{"name":"t"}']);
    expect(event).toEqual({
      id: '1-0',
      sessionId: 's-1',
      type: 'ToolInvoked',
      fields: { name: 't' },
    });
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event?.fields)).toBe(true);
  });

  it('reads fields in any order and ignores extra ones', () => {
    expect(parseStreamEntry('s', '2-0', ['data', '{}', 'origin', 'x', 'type', 'T'])?.type).toBe(
      'T',
    );
  });

  it('skips an entry without a type or data, or whose data is not a JSON object', () => {
    for (const fields of [
      ['data', '{}'],
      ['type', 'T'],
      ['type', 'T', 'data', '{broken'],
      ['type', 'T', 'data', '[1]'],
      ['type', 'T', 'data', 'null'],
      ['type', 'T', 'data', '3'],
      ['type', 'T', 'data'],
    ]) {
      expect(parseStreamEntry('s', '3-0', fields)).toBeUndefined();
    }
  });
});
