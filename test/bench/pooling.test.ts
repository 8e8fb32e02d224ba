/**
 * The statistics that decide the stdio goal's verdict: two servers of a
 * side pooled set by set, a spread of one ratio per set, and series of
 * different lengths refused rather than paired where they do not match.
 */
import { describe, expect, it } from 'vitest';
import {
  chunkRatios,
  joinRuns,
  perCallRows,
  pooledBySet,
  type CallTimes,
} from '../../bench/interleave.js';

const times = (value: number, rounds: number): Float64Array => new Float64Array(rounds).fill(value);

/** Two sets: the raw side 1.0 ms on both servers; the bridged side's second server slower. */
const runs: CallTimes[] = [
  new Map([
    ['raw', times(1, 10)],
    ['control', times(1, 10)],
    ['bridged', times(1.02, 10)],
    ['bridged control', times(1.06, 10)],
  ]),
  new Map([
    ['raw', times(2, 10)],
    ['control', times(2, 10)],
    ['bridged', times(2.04, 10)],
    ['bridged control', times(2.12, 10)],
  ]),
];

describe('pooling both servers of a side', () => {
  it('lays each set out whole, every member of it, before the next set', () => {
    const pooled = pooledBySet(runs, ['bridged', 'bridged control']);
    expect(pooled).toHaveLength(40);
    expect([pooled[0], pooled[10], pooled[20], pooled[30]]).toEqual([1.02, 1.06, 2.04, 2.12]);
  });

  it('gives one ratio per set, both servers in it, when a chunk is a set of both', () => {
    const pooled: CallTimes = new Map([
      ['raw pair', pooledBySet(runs, ['raw', 'control'])],
      ['bridged pair', pooledBySet(runs, ['bridged', 'bridged control'])],
    ]);
    const [, bridged] = perCallRows('c', pooled, {
      baseline: 'raw pair',
      plan: { warmup: 0, rounds: 10, chunk: 20 },
      goals: { 'bridged pair': 1.05 },
    });
    // Per set: (1.02 + 1.06) / 2 and (2.04 + 2.12) / 4, a trimmed mean of each set's 20 calls.
    expect(bridged?.ratioRange).toEqual([1.04, 1.04]);
    // The figure is the trimmed mean of all 40 calls, sets of different speeds together.
    expect(bridged?.ratio).toBeCloseTo(1.038, 3);
    expect(bridged?.met).toBe(true);
  });

  it('refuses to pool a member that a set did not run', () => {
    expect(() => pooledBySet(runs, ['bridged', 'absent'])).toThrow('no calls of «absent» to pool');
  });

  it('refuses to pair series of different lengths', () => {
    expect(() => chunkRatios(times(1, 20), times(1, 10), 10)).toThrow(
      '20 calls cannot pair with a baseline of 10',
    );
  });

  it('joins a contender over the runs, and leaves out one missing from a run', () => {
    const joined = joinRuns([...runs, new Map([['raw', times(3, 10)]])]);
    expect([...joined.keys()]).toEqual(['raw']);
    expect(joined.get('raw')).toHaveLength(30);
  });
});
