/**
 * `core/sensitivity.ts` read directly: the order of the four levels, the
 * ratchet helpers (`maxSensitivity`, `atLeast`), reading the private-data
 * marker (missing, well-formed, malformed with the reason), and the
 * prototype-free dataset record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  atLeast,
  DATA_SENSITIVITY_LEVELS,
  datasetRecord,
  isDataSensitivity,
  MALFORMED_MARKER_SENSITIVITY,
  maxSensitivity,
  PRIVATE_DATA_META_KEY,
  readPrivateDataMarker,
  sensitivityRank,
  type DataSensitivity,
} from '../../src/core/sensitivity.js';

const level = fc.constantFrom(...DATA_SENSITIVITY_LEVELS);

describe('levels', () => {
  it('are public < internal < confidential < secret, frozen', () => {
    expect(DATA_SENSITIVITY_LEVELS).toEqual(['public', 'internal', 'confidential', 'secret']);
    expect(DATA_SENSITIVITY_LEVELS.map(sensitivityRank)).toEqual([0, 1, 2, 3]);
    expect(Object.isFrozen(DATA_SENSITIVITY_LEVELS)).toBe(true);
  });

  it.each([
    ['public', true],
    ['secret', true],
    ['Secret', false],
    ['', false],
    ['restricted', false],
    [' public', false],
    [2, false],
    [null, false],
    [undefined, false],
    [['public'], false],
    [{ toString: () => 'public' }, false],
  ])('isDataSensitivity(%j) is %s', (value, expected) => {
    expect(isDataSensitivity(value)).toBe(expected);
  });

  it('raises confidential for a malformed marker', () => {
    expect(MALFORMED_MARKER_SENSITIVITY).toBe('confidential');
  });
});

describe('ratchet helpers', () => {
  it('maxSensitivity is the higher level, whatever the order', () => {
    expect(maxSensitivity('public', 'secret')).toBe('secret');
    expect(maxSensitivity('confidential', 'internal')).toBe('confidential');
    expect(maxSensitivity('internal', 'internal')).toBe('internal');
    fc.assert(
      fc.property(level, level, (a, b) => {
        const high = maxSensitivity(a, b);
        expect(high).toBe(maxSensitivity(b, a));
        expect(sensitivityRank(high)).toBe(Math.max(sensitivityRank(a), sensitivityRank(b)));
      }),
    );
  });

  it('folding maxSensitivity over any sequence never goes down', () => {
    fc.assert(
      fc.property(fc.array(level), (levels) => {
        let reached: DataSensitivity = 'public';
        for (const next of levels) {
          const raised = maxSensitivity(reached, next);
          expect(atLeast(raised, reached)).toBe(true);
          expect(atLeast(raised, next)).toBe(true);
          reached = raised;
        }
        const top = Math.max(0, ...levels.map(sensitivityRank));
        expect(sensitivityRank(reached)).toBe(top);
      }),
    );
  });

  it.each([
    ['public', 'public', true],
    ['internal', 'public', true],
    ['public', 'internal', false],
    ['confidential', 'confidential', true],
    ['confidential', 'secret', false],
    ['secret', 'confidential', true],
  ] as const)('atLeast(%s, %s) is %s', (a, threshold, expected) => {
    expect(atLeast(a, threshold)).toBe(expected);
  });
});

describe('readPrivateDataMarker', () => {
  const meta = (marker: unknown): Record<string, unknown> => ({ [PRIVATE_DATA_META_KEY]: marker });

  it('uses the key mcp-sections/private-data', () => {
    expect(PRIVATE_DATA_META_KEY).toBe('mcp-sections/private-data');
  });

  it.each([
    ['no _meta', undefined],
    ['null', null],
    ['a string', 'mcp-sections/private-data'],
    ['other keys only', { other: { dataset: 'x' } }],
    ['an inherited marker', Object.create(meta({ dataset: 'x' })) as unknown],
  ])('reads none from %s', (_name, value) => {
    const reading = readPrivateDataMarker(value);
    expect(reading).toEqual({ kind: 'none' });
    expect(Object.isFrozen(reading)).toBe(true);
  });

  it('reads a well-formed marker, with its level', () => {
    expect(readPrivateDataMarker(meta({ dataset: 'hr', sensitivity: 'secret', extra: 1 }))).toEqual(
      { kind: 'marker', marker: { dataset: 'hr', sensitivity: 'secret' } },
    );
  });

  it('reads a marker without a level as confidential', () => {
    expect(readPrivateDataMarker(meta({ dataset: 'hr' }))).toEqual({
      kind: 'marker',
      marker: { dataset: 'hr', sensitivity: 'confidential' },
    });
  });

  it.each([
    ['null', null, 'the marker is null, not an object'],
    ['a string', 'hr', 'the marker is "hr", not an object'],
    ['a number', 3, 'the marker is 3, not an object'],
    ['an array', [{ dataset: 'hr' }], 'the marker is an array, not an object'],
    ['missing (undefined)', undefined, 'the marker is missing, not an object'],
    [
      'without a dataset',
      { sensitivity: 'secret' },
      'its dataset is missing, not a non-empty string',
    ],
    ['with an empty dataset', { dataset: '' }, 'its dataset is "", not a non-empty string'],
    [
      'with a blank dataset',
      { dataset: '  \t' },
      'its dataset is a string of 3 characters, not a non-empty string',
    ],
    ['with a numeric dataset', { dataset: 7 }, 'its dataset is 7, not a non-empty string'],
    [
      'with a list as dataset',
      { dataset: ['a'] },
      'its dataset is an array, not a non-empty string',
    ],
    [
      'with an unknown level',
      { dataset: 'hr', sensitivity: 'top-secret' },
      'its sensitivity is "top-secret", not one of public, internal, confidential, secret',
    ],
    [
      'with a null level',
      { dataset: 'hr', sensitivity: null },
      'its sensitivity is null, not one of public, internal, confidential, secret',
    ],
  ])('reads a malformed marker %s, with the reason', (_name, marker, reason) => {
    expect(readPrivateDataMarker(meta(marker))).toEqual({ kind: 'malformed', reason });
  });

  it('shows a long or escaped value by its length, never cut or escaped (masking must still find a secret in it)', () => {
    for (const value of ['y'.repeat(100), 'pa"ss']) {
      expect(readPrivateDataMarker(meta({ dataset: 'hr', sensitivity: value }))).toEqual({
        kind: 'malformed',
        reason: `its sensitivity is a string of ${value.length} characters, not one of public, internal, confidential, secret`,
      });
    }
  });

  it('does not read a dataset or level inherited by the marker', () => {
    const marker = Object.create({ dataset: 'hr', sensitivity: 'public' }) as object;
    expect(readPrivateDataMarker(meta(marker))).toEqual({
      kind: 'malformed',
      reason: 'its dataset is missing, not a non-empty string',
    });
    const own = Object.assign(Object.create({ sensitivity: 'public' }) as object, {
      dataset: 'hr',
    });
    expect(readPrivateDataMarker(meta(own))).toEqual({
      kind: 'marker',
      marker: { dataset: 'hr', sensitivity: 'confidential' },
    });
  });
});

describe('datasetRecord', () => {
  it('has no prototype, so any dataset name is an own key', () => {
    const record = datasetRecord([
      ['__proto__', 'secret'],
      ['constructor', 'internal'],
      ['toString', 'public'],
    ]);
    expect(Object.getPrototypeOf(record)).toBeNull();
    expect(Object.keys(record)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(record['__proto__']).toBe('secret');
    expect(record['constructor']).toBe('internal');
  });

  it('is empty without entries, and the last entry of a name wins', () => {
    expect(Object.keys(datasetRecord())).toEqual([]);
    expect({
      ...datasetRecord([
        ['a', 'public'],
        ['a', 'secret'],
      ]),
    }).toEqual({ a: 'secret' });
  });
});
