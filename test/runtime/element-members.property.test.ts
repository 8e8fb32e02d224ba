/**
 * Per-call rollback inside array elements that several writers edit in
 * place, each its own member of a shared row, while rows are added before
 * and after them and the array is reversed: a failed call's members are
 * taken out and everyone else's stay, with no conflict reported. (Before
 * the undo knew where later writers changed an element, a failed call's
 * member stayed beside another's with a `RollbackConflict`, and an element
 * changed in place was lost by the next reorder.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';
import { type CallName, RunningCalls, type WriterName } from '../support/call-scopes.js';

type Writer = WriterName;
type Call = CallName;
type Step =
  | { readonly kind: 'set' | 'replace'; readonly by: Writer; readonly row: number }
  | { readonly kind: 'push' | 'unshift'; readonly by: Writer }
  | { readonly kind: 'reverse' }
  | { readonly kind: 'end'; readonly by: Call; readonly ok: boolean };

interface Row {
  readonly id: string;
  readonly fields: Readonly<Record<string, number>>;
}

const SHARED = ['r0', 'r1', 'r2'];
const writer = fc.constantFrom<Writer>('a', 'b', 'c', 'nested', 'app');
/** Steps; with `replaces`, a writer may also put a new row of its own in a shared row's place. */
const steps = (replaces: boolean): fc.Arbitrary<Step[]> =>
  fc.array(step(replaces), { maxLength: 30 });
const step = (replaces: boolean): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: replaces
          ? fc.constantFrom('set' as const, 'replace' as const)
          : fc.constant('set' as const),
        by: writer,
        row: fc.nat(2),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constantFrom('push' as const, 'unshift' as const),
        by: writer,
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'reverse' as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('end' as const),
        by: fc.constantFrom<Call>('a', 'b', 'c', 'nested'),
        ok: fc.boolean(),
      }),
    },
  );

/** Runs `steps`, then ends every call as `ends` says; returns what is left and the conflicts. */
function run(steps: readonly Step[], ends: readonly boolean[]) {
  const session = new Session();
  const table = session.slice<{ readonly rows: readonly Row[] }>('table', {
    initial: { rows: SHARED.map((id) => ({ id, fields: {} })) },
  });
  const calls = new RunningCalls(session, ends[3]!);
  // The last value each writer set in each shared row, in the order they were set.
  const sets: { by: Writer; row: string; value: number }[] = [];
  let counter = 0;
  const write = (by: Writer, recipe: (rows: Row[]) => void): void =>
    calls.write(by, () => table.update((draft) => recipe(draft.rows)));
  for (const next of steps) {
    if (next.kind === 'end') {
      calls.end(next.by, next.ok);
      continue;
    }
    if (next.kind === 'reverse') {
      write('app', (rows) => void rows.reverse());
      continue;
    }
    if (!calls.running(next.by)) continue;
    if (next.kind === 'set' || next.kind === 'replace') {
      const id = SHARED[next.row]!;
      const value = ++counter;
      write(next.by, (rows) => {
        const at = rows.findIndex((candidate) => candidate.id === id);
        // A replacement holds every member as it is now, as its writer's own.
        if (next.kind === 'replace') {
          rows[at] = { id, fields: { ...rows[at]!.fields, [next.by]: value } };
        } else (rows[at]!.fields as Record<string, number>)[next.by] = value;
      });
      sets.push({ by: next.by, row: id, value });
      continue;
    }
    const added = { id: `new${String(++counter)}`, fields: {} };
    write(next.by, (rows) => void (next.kind === 'push' ? rows.push(added) : rows.unshift(added)));
  }
  (['a', 'b', 'c'] as const).forEach((by, index) => calls.end(by, ends[index]!));
  const lost = (by: Writer): boolean => calls.lost(by);
  const expected = new Map<string, Record<string, number>>(SHARED.map((id) => [id, {}]));
  for (const set of sets) if (!lost(set.by)) expected.get(set.row)![set.by] = set.value;
  const left = new Map(
    table
      .get()
      .rows.filter((row) => SHARED.includes(row.id))
      .map((row) => [row.id, row.fields]),
  );
  return { expected, left, conflicts: calls.conflicts, lost };
}

/** How calls a, b, c and nested end when the steps did not end them: commit or roll back. */
const endings = fc.array(fc.boolean(), { minLength: 4, maxLength: 4 });

describe('rollback inside shared rows, each writer its own member, property', () => {
  it("leaves every kept writer's members and none of a failed one's, with no conflict", () => {
    fc.assert(
      fc.property(steps(false), endings, (steps, ends) => {
        const { expected, left, conflicts } = run(steps, ends);
        expect(conflicts).toEqual([]);
        for (const id of SHARED) expect(left.get(id), id).toEqual(expected.get(id));
      }),
      { numRuns: 1_500 },
    );
  });

  it("with rows put in a shared row's place, never loses a kept writer's member, and leaves a failed one's only with a conflict", () => {
    fc.assert(
      fc.property(steps(true), endings, (steps, ends) => {
        const { expected, left, conflicts, lost } = run(steps, ends);
        for (const id of SHARED) {
          const fields = left.get(id)!;
          for (const [by, value] of Object.entries(expected.get(id)!)) {
            expect(fields[by], `${by} in ${id}`).toBe(value);
          }
          const stayed = Object.keys(fields).filter((by) => lost(by as Writer));
          if (stayed.length > 0) expect(conflicts, `${stayed.join()} in ${id}`).not.toEqual([]);
        }
      }),
      { numRuns: 1_500 },
    );
  });
});
