import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DATA_SENSITIVITY_LEVELS,
  Session,
  maxSensitivity,
  sensitivityRank,
  type DataSensitivity,
  type SessionSnapshot,
} from '../../src/index.js';

interface Counter {
  readonly n: number;
  readonly log: readonly number[];
}

const SLICES = ['a', 'b', 'c'] as const;

type Step =
  | { readonly kind: 'update'; readonly slice: number; readonly value: number }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'restore'; readonly which: number }
  | { readonly kind: 'add'; readonly dataset: string; readonly level: DataSensitivity };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('update' as const),
    slice: fc.nat({ max: SLICES.length - 1 }),
    value: fc.integer(),
  }),
  fc.constant({ kind: 'snapshot' as const }),
  fc.record({ kind: fc.constant('restore' as const), which: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    dataset: fc.constantFrom('crm', 'payroll', 'wiki', 'mail'),
    level: fc.constantFrom(...DATA_SENSITIVITY_LEVELS),
  }),
);

interface Taken {
  readonly snapshot: SessionSnapshot;
  /** The slice values at snapshot time, by reference and as a deep copy. */
  readonly values: readonly Counter[];
  readonly copies: readonly Counter[];
}

describe('session state under random steps', () => {
  it('never lowers sensitivity, and restore brings back exactly the snapshotted values', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const session = new Session();
        const slices = SLICES.map((name) =>
          session.slice<Counter>(name, { initial: { n: 0, log: [] } }),
        );
        const taken: Taken[] = [];
        let highest: DataSensitivity = 'public';

        for (const s of steps) {
          const levelBefore = session.privateData.sensitivity;
          switch (s.kind) {
            case 'update':
              slices[s.slice]!.update((draft) => {
                draft.n = s.value;
                draft.log.push(s.value);
              });
              break;
            case 'snapshot': {
              const values = slices.map((slice) => slice.get());
              taken.push({
                snapshot: session.snapshot(),
                values,
                copies: structuredClone(values),
              });
              break;
            }
            case 'restore': {
              const chosen = taken[s.which % Math.max(taken.length, 1)];
              if (chosen === undefined) break;
              session.restore(chosen.snapshot);
              slices.forEach((slice, i) => {
                expect(slice.get()).toBe(chosen.values[i]);
                expect(slice.get()).toEqual(chosen.copies[i]);
              });
              break;
            }
            case 'add':
              session.privateData.add(s.dataset, s.level);
              highest = maxSensitivity(highest, s.level);
              break;
          }
          expect(sensitivityRank(session.privateData.sensitivity)).toBeGreaterThanOrEqual(
            sensitivityRank(levelBefore),
          );
          expect(session.privateData.sensitivity).toBe(highest);
        }
      }),
      { numRuns: 200 },
    );
  });
});
