/**
 * Per-call rollback where the writes standing in an undo's way were made
 * by calls that rolled back since: they stand in no other undo's way, nor
 * do their own undos, and neither call's value is left behind. Each case
 * came from a review or the model-based property
 * (`rollback-model.property.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

interface Row {
  readonly id: string;
  readonly x?: string;
  readonly y?: string;
}

type Outcome = 'commit' | 'rollback';

/**
 * A sets `r0.x`; C sets `r0.y` twice; A reverses the rows and sets `r0.y`
 * over C's value. Then A and C end, in `order`, with `outcomes`.
 */
function run(order: 'A first' | 'C first', outcomes: { A: Outcome; C: Outcome }) {
  const session = new Session();
  const table = session.slice<{ readonly rows: readonly Row[] }>('t', {
    initial: { rows: [{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }] },
  });
  const a = session.beginCall({ callId: 'A', toolName: 'a' });
  const c = session.beginCall({ callId: 'C', toolName: 'c' });
  const setR0 = (member: 'x' | 'y', value: string) => () =>
    table.update((draft) => {
      const row = draft.rows.find((each) => each.id === 'r0') as { x?: string; y?: string };
      row[member] = value;
    });
  a.run(setR0('x', 'A1'));
  c.run(setR0('y', 'C2b'));
  c.run(setR0('y', 'C2'));
  a.run(() => table.update((draft) => void (draft.rows as Row[]).reverse()));
  a.run(setR0('y', 'A4'));
  const conflicts = [];
  for (const [name, scope] of order === 'A first'
    ? ([
        ['A', a],
        ['C', c],
      ] as const)
    : ([
        ['C', c],
        ['A', a],
      ] as const)) {
    if (outcomes[name] === 'commit') scope.commit();
    else conflicts.push(...scope.rollback());
  }
  const r0 = table.get().rows.find((row) => row.id === 'r0');
  return {
    r0,
    ids: table
      .get()
      .rows.map((row) => row.id)
      .join(),
    conflicts,
  };
}

describe("a rolled-back call's write and its undo stand in no other undo's way", () => {
  for (const order of ['A first', 'C first'] as const) {
    it(`both calls fail (${order}): every value goes`, () => {
      const { r0, ids, conflicts } = run(order, { A: 'rollback', C: 'rollback' });
      expect(r0).toEqual({ id: 'r0' });
      expect(ids).toBe('r0,r1,r2');
      // C rolling back first finds A's value over its own (a conflict), and
      // hands its undo to A, whose rollback makes it.
      if (order === 'A first') expect(conflicts).toEqual([]);
      else expect(conflicts.map((conflict) => conflict.reason)).not.toContain('gone');
    });

    it(`A fails, C commits (${order}): C's last value stays`, () => {
      const { r0, ids } = run(order, { A: 'rollback', C: 'commit' });
      expect(r0).toEqual({ id: 'r0', y: 'C2' });
      expect(ids).toBe('r0,r1,r2');
    });

    it(`A commits, C fails (${order}): A's values stay`, () => {
      const { r0, ids } = run(order, { A: 'commit', C: 'rollback' });
      expect(r0).toEqual({ id: 'r0', x: 'A1', y: 'A4' });
      expect(ids).toBe('r2,r1,r0');
    });
  }
});

describe('a member that other calls changed and then undid, left as a copy', () => {
  it("does not stand in the way of an older call's undo", () => {
    // A sets a member of the row; B and D push into its list and fail. Their
    // undos leave the list empty again, as a new array: A's undo still takes
    // its member out (it counted the copy as another change, once B and D
    // were forgotten, and left A's value with a conflict).
    const session = new Session();
    const table = session.slice<{
      rows: { id: string; f: Record<string, number>; items: string[] }[];
    }>('t', { initial: { rows: [{ id: 'r0', f: {}, items: [] }] } });
    const [a, b, d] = ['A', 'B', 'D'].map((id) => session.beginCall({ callId: id, toolName: id }));
    a!.run(() => table.update((draft) => void (draft.rows[0]!.f.A = 0)));
    b!.run(() => table.update((draft) => void draft.rows[0]!.items.unshift('B1')));
    d!.run(() => table.update((draft) => void draft.rows[0]!.items.unshift('D2')));
    const conflicts = [b!, d!, a!].flatMap((scope) => scope.rollback());
    expect(table.get().rows[0]).toEqual({ id: 'r0', f: {}, items: [] });
    expect(conflicts).toEqual([]);
  });
});
