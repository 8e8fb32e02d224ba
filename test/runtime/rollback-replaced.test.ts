/**
 * Per-call rollback where another writer replaced, re-set or restored what
 * a failed call wrote inside an array, and where one write moved rows and
 * changed them: the other writer's value stands (with a conflict), and no
 * row is lost, doubled or given another row's member. Each case came from
 * a review that attacked the rollback.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

interface Row {
  readonly id: string;
  readonly x?: string;
  readonly y?: string;
  readonly a?: number;
}

/** A session whose slice `t` holds `rows`, and a call `A` begun on it. */
function rows(initial: readonly Row[]) {
  const session = new Session();
  const table = session.slice<{ readonly rows: readonly Row[] }>('t', {
    initial: { rows: initial },
  });
  const call = (id: string) => session.beginCall({ callId: id, toolName: id });
  const write = (recipe: (rows: Row[]) => void) => () =>
    table.update((draft) => recipe(draft.rows));
  return { session, table, call, write };
}

const ids = (list: readonly Row[]): string => list.map((row) => row.id).join();

describe('rollback leaves what another writer put in place', () => {
  it('a member another call set back to the failed call’s value', () => {
    const { table, call, write } = rows([{ id: 'r0', a: 0 }]);
    const a = call('A');
    a.run(write((list) => void ((list[0] as { a: number }).a = 1)));
    const b = call('B');
    b.run(write((list) => void ((list[0] as { a: number }).a = 2)));
    b.run(write((list) => void ((list[0] as { a: number }).a = 1)));
    b.commit();
    expect(a.rollback()).toEqual([{ slice: 't', path: ['rows', 0], reason: 'overwritten' }]);
    expect(table.get().rows[0]).toEqual({ id: 'r0', a: 1 });
  });

  it('a member array another call replaced with a copy, and an element that is an array', () => {
    const session = new Session();
    const threads = session.slice<{ rows: { thread: string[] }[] }>('threads', {
      initial: { rows: [{ thread: [] }] },
    });
    const grid = session.slice<{ m: string[][] }>('grid', { initial: { m: [['a'], ['b']] } });
    const a = session.beginCall({ callId: 'A', toolName: 'A' });
    a.run(() => threads.update((d) => void d.rows[0]!.thread.push('from A')));
    a.run(() => grid.update((d) => void d.m[0]!.push('A')));
    const b = session.beginCall({ callId: 'B', toolName: 'B' });
    b.run(() =>
      threads.update((d) => {
        d.rows[0]!.thread = [...d.rows[0]!.thread, 'from B'];
      }),
    );
    b.commit();
    grid.update((d) => {
      d.m[0] = [...d.m[0]!];
    });
    const kept = { thread: threads.get().rows[0]!.thread, element: grid.get().m[0] };
    expect(a.rollback()).toHaveLength(2);
    expect(threads.get().rows[0]!.thread).toBe(kept.thread);
    expect(grid.get().m[0]).toBe(kept.element);
    expect(grid.get().m[0]).toEqual(['a', 'A']);
  });

  it('a row the application replaced, after a third call replaced it again and failed', () => {
    const { table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }]);
    const a = call('A');
    a.run(write((list) => void ((list[0] as { x: string }).x = 'A')));
    table.update((d) => {
      d.rows[0] = { ...d.rows[0]! };
    });
    const appRow = table.get().rows[0];
    const c = call('C');
    c.run(write((list) => void (list[0] = { ...list[0]! })));
    c.rollback();
    expect(a.rollback()).toHaveLength(1);
    expect(table.get().rows[0]).toBe(appRow);
  });

  it('a snapshot the application restored, holding exactly what the failed call left', () => {
    const { session, table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }]);
    const a = call('A');
    a.run(write((list) => void ((list[0] as { x: string }).x = 'A')));
    const snapshot = session.snapshot();
    table.update((d) => {
      (d.rows[1] as { x?: string }).x = 'app';
    });
    session.restore(snapshot);
    const restored = table.get();
    expect(a.rollback()).not.toEqual([]);
    expect(table.get()).toBe(restored);
  });

  it('a snapshot a failed call restored after removing a row, then edited by the application', () => {
    const { session, table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }]);
    const snapshot = session.snapshot();
    const c = call('C');
    c.run(write((list) => void list.splice(0, 1)));
    c.run(() => session.restore(snapshot));
    table.update((d) => {
      (d.rows[0] as { x?: string }).x = 'app';
    });
    expect(c.rollback()).not.toEqual([]);
    expect(table.get().rows).toEqual([{ id: 'r0', x: 'app' }, { id: 'r1' }]);
  });
});

describe('rollback of a removal the application already undid', () => {
  it('puts no row back twice', () => {
    const { table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
    const saved = table.get().rows[1]!;
    const a = call('A');
    a.run(write((list) => void list.splice(1, 1)));
    table.update((d) => void d.rows.splice(1, 0, saved));
    expect(a.rollback()).toEqual([]);
    expect(ids(table.get().rows)).toBe('r0,r1,r2');
    expect(table.get().rows[1]).toBe(saved);
  });
});

describe('rollback of a write that moved rows and changed them', () => {
  /**
   * Rows r0, r1, r2; a call that inserts `added` at `at` and sets `x` of the
   * row then at `edited`, in one write; then the application sets `member`
   * of row `id`.
   */
  function insertedAndEdited(
    at: number,
    added: string,
    edited: number,
    id: string,
    member: 'x' | 'y',
  ) {
    const { table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
    const scope = call('C');
    scope.run(
      write((list) => {
        list.splice(at, 0, { id: added });
        (list[edited] as { x?: string }).x = 'C';
      }),
    );
    table.update((d) => {
      (d.rows.find((row) => row.id === id) as { x?: string; y?: string })[member] = 'app';
    });
    return { table, conflicts: scope.rollback() };
  }

  it('a row inserted before another that the same write edited', () => {
    const { table, conflicts } = insertedAndEdited(0, 'new', 2, 'r0', 'y');
    expect(conflicts).toEqual([]);
    expect(table.get().rows).toEqual([{ id: 'r0', y: 'app' }, { id: 'r1' }, { id: 'r2' }]);
  });

  it('a row inserted in the middle by a call whose other edit the application changed', () => {
    const { table } = insertedAndEdited(2, 'n2', 3, 'n2', 'x');
    // The application's row stays; the row the call edited comes back as it was.
    expect(ids(table.get().rows)).toBe('r0,r1,n2,r2');
    expect(table.get().rows[3]).toEqual({ id: 'r2' });
  });

  it('rows that only share a member are not taken for one: the row a call removed comes back', () => {
    const { table, call, write } = rows([{ id: 'a', y: 'open', a: 1 }]);
    const x = call('X');
    x.run(
      write(
        (list) =>
          void list.splice(0, 1, { id: 'b', y: 'open', a: 2 }, { id: 'c', y: 'open', a: 3 }),
      ),
    );
    table.update((d) => {
      (d.rows[0] as { x?: string }).x = 'app';
    });
    expect(x.rollback()).not.toEqual([]);
    expect([...table.get().rows].sort((p, q) => p.id.localeCompare(q.id))).toEqual([
      { id: 'a', y: 'open', a: 1 },
      { id: 'b', y: 'open', a: 2, x: 'app' },
    ]);
  });

  it('a row moved and edited, then edited by a call that commits: neither lost nor doubled', () => {
    const { table, call, write } = rows([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
    const b = call('B');
    b.run(
      write((list) => {
        const [row] = list.splice(1, 1);
        (row as { x?: string }).x = 'B';
        list.unshift(row!);
      }),
    );
    const a = call('A');
    a.run(write((list) => void ((list[0] as { x?: string }).x = 'A')));
    a.commit();
    expect(b.rollback()).not.toEqual([]);
    expect(table.get().rows).toEqual([{ id: 'r1', x: 'A' }, { id: 'r0' }, { id: 'r2' }]);
    // Changed in more members than it kept, the row is still known by its id.
    const most = rows([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
    const changed = most.call('B');
    changed.run(
      most.write((list) => {
        const [row] = list.splice(1, 1);
        Object.assign(row!, { x: 'B', y: 'B' });
        list.unshift(row!);
      }),
    );
    const editor = most.call('A');
    editor.run(most.write((list) => void ((list[0] as { a?: number }).a = 1)));
    editor.commit();
    expect(changed.rollback()).not.toEqual([]);
    expect(ids(most.table.get().rows)).toBe('r1,r0,r2');
    // Undone alone, the same write puts every row back where it was.
    const alone = rows([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
    const moved = alone.call('B');
    moved.run(
      alone.write((list) => {
        const [row] = list.splice(1, 1);
        (row as { x?: string }).x = 'B';
        list.unshift(row!);
      }),
    );
    expect(moved.rollback()).toEqual([]);
    expect(alone.table.get().rows).toEqual([{ id: 'r0' }, { id: 'r1' }, { id: 'r2' }]);
  });
});

describe("a nested call's step left in place reaches its caller", () => {
  /** A call `A` sets `o.a.b`; `N`, begun inside it, replaces `o.a`; the application then sets `o.a.c`. */
  function nestedReplace() {
    const session = new Session();
    const state = session.slice<{ a: { b?: number; c?: string } }>('o', { initial: { a: {} } });
    const a = session.beginCall({ callId: 'A', toolName: 'A' });
    a.run(() => state.update((draft) => void (draft.a.b = 1)));
    const n = a.run(() => session.beginCall({ callId: 'N', toolName: 'N' }));
    n.run(() => state.update((draft) => void (draft.a = { ...draft.a })));
    state.update((draft) => void (draft.a.c = 'app'));
    return { session, state, a, n };
  }

  it('when the nested call rolls back, then its caller', () => {
    const { state, a, n } = nestedReplace();
    const left = state.get().a;
    expect(n.rollback()).toEqual([{ slice: 'o', path: ['a'], reason: 'overwritten' }]);
    expect(a.rollback()).toEqual([{ slice: 'o', path: ['a', 'b'], reason: 'overwritten' }]);
    expect(state.get().a).toBe(left);
    expect(state.get().a).toEqual({ b: 1, c: 'app' });
  });

  it('when a call the nested one started rolls back, the nested one commits and its caller rolls back', () => {
    const { session, state, a, n } = nestedReplace();
    // A call N started fails after the application's write: its step is left in place, and N commits.
    const child = n.run(() => session.beginCall({ callId: 'C', toolName: 'C' }));
    child.run(() => state.update((draft) => void (draft.a = { ...draft.a })));
    state.update((draft) => void (draft.a.c = 'app again'));
    expect(child.rollback()).toEqual([{ slice: 'o', path: ['a'], reason: 'overwritten' }]);
    n.commit();
    const left = state.get().a;
    expect(a.rollback()).toContainEqual({ slice: 'o', path: ['a', 'b'], reason: 'overwritten' });
    expect(state.get().a).toBe(left);
  });
});
