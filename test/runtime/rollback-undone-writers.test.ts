/**
 * Per-call rollback where the writes standing in an undo's way were made
 * by calls that rolled back since: they stand in no other undo's way, nor
 * do their own undos, and neither call's value is left behind. And the
 * limits of that: a kept writer's copy (equal to what a call left, under
 * a nested array, or by a call still running when its caller rolled back)
 * is never undone through. Each case came from a review or the
 * model-based property (`rollback-model.property.test.ts`).
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
      const overwritten = { slice: 't', path: ['rows', 0], reason: 'overwritten' };
      expect(conflicts).toEqual(order === 'A first' ? [] : [overwritten, overwritten]);
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

/** An item of a row's nested list. */
interface Item {
  readonly id: string;
  readonly meta: { readonly tag: string };
  readonly x?: string;
}

describe('a copy equal to what a call left, made by a writer that is kept', () => {
  for (const writer of ['a call that commits', 'the application'] as const) {
    it(`keeps a member inside a nested array that the failed call set (${writer} copied the item)`, () => {
      // Under the outermost array, no record says who changed an element later:
      // an equal copy is another writer's element, and stays as it is.
      const session = new Session();
      const table = session.slice<{ rows: { id: string; items: Item[] }[] }>('t', {
        initial: { rows: [{ id: 'r0', items: [{ id: 'i0', meta: { tag: 'a' } }] }] },
      });
      const q = session.beginCall({ callId: 'Q', toolName: 'q' });
      const k = session.beginCall({ callId: 'K', toolName: 'k' });
      q.run(() =>
        table.update((draft) => void ((draft.rows[0]!.items[0] as { x?: string }).x = 'Q')),
      );
      const copy = () =>
        table.update((draft) => {
          draft.rows[0]!.items[0] = structuredClone(
            JSON.parse(JSON.stringify(draft.rows[0]!.items[0])) as Item,
          );
        });
      if (writer === 'the application') copy();
      else k.run(copy);
      k.commit();
      q.rollback();
      expect(table.get().rows[0]!.items[0]).toEqual({ id: 'i0', meta: { tag: 'a' }, x: 'Q' });
    });
  }

  it('lets two failed calls take out an item one of them replaced with a copy', () => {
    const session = new Session();
    const table = session.slice<{ rows: { id: string; items: Item[] }[] }>('t', {
      initial: { rows: [{ id: 'r0', items: [] }] },
    });
    const a = session.beginCall({ callId: 'A', toolName: 'a' });
    const c = session.beginCall({ callId: 'C', toolName: 'c' });
    a.run(() =>
      table.update((draft) => void draft.rows[0]!.items.unshift({ id: 'A0', meta: { tag: 'm' } })),
    );
    c.run(() =>
      table.update((draft) => void ((draft.rows[0]!.items[0] as { x?: string }).x = 'C')),
    );
    a.run(() =>
      table.update((draft) => {
        draft.rows[0]!.items[0] = JSON.parse(JSON.stringify(draft.rows[0]!.items[0])) as Item;
      }),
    );
    const conflicts = [...c.rollback(), ...a.rollback()];
    expect(table.get().rows[0]!.items).toEqual([]);
    // C finds A's copy over its member (A's undo then takes the item out whole).
    expect(conflicts).toEqual([{ slice: 't', path: ['rows', 0], reason: 'overwritten' }]);
  });
});

describe('a caller that ends before the call it started', () => {
  // The child still runs when its caller rolls back: its writes are its own, and
  // it keeps them when it commits after. No other undo goes through them.
  it("keeps the child's copy of a row holding another failed call's entry", () => {
    const session = new Session();
    const table = session.slice<{ rows: { id: string; items: string[] }[] }>('t', {
      initial: {
        rows: [
          { id: 'r0', items: [] },
          { id: 'r1', items: [] },
        ],
      },
    });
    const r = session.beginCall({ callId: 'R', toolName: 'r' });
    const d = session.beginCall({ callId: 'D', toolName: 'd' });
    const k = r.run(() => session.beginCall({ callId: 'K', toolName: 'k' }));
    d.run(() => table.update((draft) => void draft.rows[0]!.items.unshift('D0')));
    k.run(() =>
      table.update((draft) => {
        draft.rows[0] = { ...draft.rows[0]!, items: [...draft.rows[0]!.items] };
      }),
    );
    r.rollback();
    k.commit();
    d.rollback();
    expect(table.get().rows[0]!.items).toEqual(['D0']);
  });

  it("keeps the child's last write of a member, equal to another failed call's", () => {
    const session = new Session();
    const table = session.slice<{ rows: { id: string; x?: string }[] }>('t', {
      initial: { rows: [{ id: 'r0' }, { id: 'r1' }] },
    });
    const q = session.beginCall({ callId: 'Q', toolName: 'q' });
    const r = session.beginCall({ callId: 'R', toolName: 'r' });
    const k = r.run(() => session.beginCall({ callId: 'K', toolName: 'k' }));
    q.run(() => table.update((draft) => void (draft.rows[0]!.x = 'Q')));
    k.run(() => table.update((draft) => void (draft.rows[0]!.x = 'K')));
    k.run(() => table.update((draft) => void (draft.rows[0]!.x = 'Q')));
    r.rollback();
    k.commit();
    q.rollback();
    expect(table.get().rows[0]!.x).toBe('Q');
  });
});
