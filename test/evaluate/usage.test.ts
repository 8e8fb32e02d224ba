import { describe, expect, it } from 'vitest';
import { NO_USAGE, addUsage } from '../../src/evaluate/usage.js';

describe('addUsage', () => {
  it('sums the counts, with a missing total as input plus output', () => {
    const one = addUsage(NO_USAGE, { inputTokens: 10, outputTokens: 2 });
    const two = addUsage(one, { inputTokens: 5, outputTokens: 1, totalTokens: 7 });
    expect(two).toEqual({ inputTokens: 15, outputTokens: 3, totalTokens: 19 });
    expect(Object.isFrozen(two)).toBe(true);
  });

  it('adds nothing for counts a provider left out or got wrong', () => {
    expect(addUsage(NO_USAGE, undefined)).toBe(NO_USAGE);
    expect(
      addUsage(NO_USAGE, { inputTokens: undefined, outputTokens: Number.NaN, totalTokens: -1 }),
    ).toEqual(NO_USAGE);
    expect(addUsage(NO_USAGE, { outputTokens: 4 })).toEqual({
      inputTokens: 0,
      outputTokens: 4,
      totalTokens: 4,
    });
  });
});
