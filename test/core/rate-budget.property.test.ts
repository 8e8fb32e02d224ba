/**
 * `RateBudget` under any order of spending, reading, waiting, releasing
 * and time passing: one timer at most, every wait ends (by the refill or
 * a release), a reader woken by the refill finds the budget no longer
 * spent, and a debt is never forgiven by a release.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateBudget } from '../../src/core/rate-budget.js';

afterEach(() => {
  vi.useRealTimers();
});

type Step =
  | { readonly spend: number }
  | { readonly read: number }
  | { readonly wait: true }
  | { readonly release: true }
  | { readonly advance: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ spend: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ read: fc.integer({ min: 0, max: 3_000 }) }),
  fc.record({ wait: fc.constant(true as const) }),
  fc.record({ release: fc.constant(true as const) }),
  fc.record({ advance: fc.integer({ min: 0, max: 400 }) }),
);

describe('RateBudget (property)', () => {
  it('keeps one timer, ends every wait, and wakes readers only once reading may go on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
        let now = 0;
        const budget = new RateBudget(
          { tokensPerSecond: 100, tokenBurst: 20, bytesPerSecond: 10_000, byteBurst: 2_000 },
          () => now,
        );
        const waits: { woken: boolean; released: boolean }[] = [];
        /** Readers woken by the refill (not a release) that found the budget still spent. */
        let wokenSpent = 0;
        for (const s of steps) {
          if ('spend' in s) budget.spend(s.spend);
          else if ('read' in s) budget.read(s.read);
          else if ('wait' in s) {
            const wait = { woken: false, released: false };
            waits.push(wait);
            void budget.refilled().then(() => {
              wait.woken = true;
              // Woken by the refill, not a release: reading may go on now.
              if (!wait.released && budget.spent) wokenSpent += 1;
            });
          } else if ('release' in s) {
            const spentBefore = budget.spent;
            for (const wait of waits) if (!wait.woken) wait.released = true;
            budget.release();
            expect(budget.spent).toBe(spentBefore); // a debt is not forgiven
          } else {
            now += s.advance;
            vi.advanceTimersByTime(s.advance);
          }
          await Promise.resolve();
          expect(vi.getTimerCount()).toBeLessThanOrEqual(1);
          expect(wokenSpent).toBe(0);
        }
        // Long enough for any debt these steps can make: every wait ends.
        now += 1_000_000;
        vi.advanceTimersByTime(1_000_000);
        for (let turn = 0; turn < 5; turn++) await Promise.resolve();
        expect(waits.every((wait) => wait.woken)).toBe(true);
        vi.useRealTimers();
      }),
      { numRuns: 500 },
    );
  });
});
