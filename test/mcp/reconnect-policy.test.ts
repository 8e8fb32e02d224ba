/**
 * Pins `reconnectDelayMs` and `DEFAULT_RECONNECT`: with `Math.random`
 * stubbed, the delay is exactly half the ceiling at 0 and approaches the
 * ceiling at 1; the ceiling doubles from `baseDelayMs` per attempt, stops at
 * `maxDelayMs` (5,000 when unset) and never overflows for huge attempts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RECONNECT, reconnectDelayMs } from '../../src/mcp/reconnect-policy.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function withRandom(value: number): void {
  vi.spyOn(Math, 'random').mockReturnValue(value);
}

describe('DEFAULT_RECONNECT', () => {
  it('tries three times from 250 ms, capped at 5 s, and cannot be changed', () => {
    expect(DEFAULT_RECONNECT).toEqual({ attempts: 3, baseDelayMs: 250, maxDelayMs: 5_000 });
    expect(Object.isFrozen(DEFAULT_RECONNECT)).toBe(true);
  });
});

describe('reconnectDelayMs', () => {
  it('waits half the ceiling when the jitter is 0', () => {
    withRandom(0);
    expect([0, 1, 2, 3].map((attempt) => reconnectDelayMs(DEFAULT_RECONNECT, attempt))).toEqual([
      125, 250, 500, 1_000,
    ]);
  });

  it('waits up to the whole ceiling as the jitter approaches 1', () => {
    withRandom(0.5);
    expect(reconnectDelayMs({ attempts: 3, baseDelayMs: 100 }, 2)).toBe(300);
    withRandom(0.999);
    expect(reconnectDelayMs({ attempts: 3, baseDelayMs: 100 }, 0)).toBeCloseTo(99.95, 10);
  });

  it('stops doubling at maxDelayMs', () => {
    withRandom(0);
    const policy = { attempts: 10, baseDelayMs: 100, maxDelayMs: 700 };
    expect([2, 3, 4, 9].map((attempt) => reconnectDelayMs(policy, attempt))).toEqual([
      200, 350, 350, 350,
    ]);
  });

  it('caps at 5,000 ms when the policy sets no maximum', () => {
    withRandom(0);
    expect(reconnectDelayMs({ attempts: 3, baseDelayMs: 1_000 }, 2)).toBe(2_000);
    expect(reconnectDelayMs({ attempts: 3, baseDelayMs: 1_000 }, 3)).toBe(2_500);
  });

  it('stays finite and capped for attempts far past 30', () => {
    withRandom(0);
    const policy = { attempts: 3, baseDelayMs: 1, maxDelayMs: Number.MAX_SAFE_INTEGER };
    expect(reconnectDelayMs(policy, 1_000)).toBe(2 ** 29);
    expect(reconnectDelayMs(policy, 31)).toBe(reconnectDelayMs(policy, 30));
  });
});
