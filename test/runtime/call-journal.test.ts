import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

interface Items {
  readonly items: readonly string[];
  readonly meta: Readonly<Record<string, number>>;
}

function itemsSession(): { session: Session; items: ReturnType<typeof slice> } {
  const session = new Session();
  return { session, items: slice(session) };
}

function slice(session: Session) {
  return session.slice<Items>('items', { initial: { items: [], meta: {} } });
}

describe('Session call scopes (the journal behind per-call rollback)', () => {
  it('undoes each failed call’s own append when undos shift the array', () => {
    const { session, items } = itemsSession();
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    const c = session.beginCall({ callId: 'c', toolName: 'c' });
    a.run(() => items.update((d) => void d.items.push('a')));
    b.run(() => items.update((d) => void d.items.push('b')));
    c.run(() => items.update((d) => void d.items.push('c')));
    expect(a.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['b', 'c']);
    c.commit();
    expect(b.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['c']);
  });

  it('records writes made in work the call awaits, not writes made outside it', async () => {
    const { session, items } = itemsSession();
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    const running = call.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      items.update((d) => void d.items.push('inside'));
    });
    items.update((d) => {
      d.meta['outside'] = 1;
    });
    await running;
    call.rollback();
    expect(items.get()).toEqual({ items: [], meta: { outside: 1 } });
  });

  it('is a no-op to commit or roll back twice, and writes after the end belong to nobody', () => {
    const { session, items } = itemsSession();
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() => items.update((d) => void d.items.push('one')));
    call.commit();
    call.run(() => items.update((d) => void d.items.push('late')));
    expect(call.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['one', 'late']);
  });

  it('reports an undo whose place another writer removed as overwritten', () => {
    const { session, items } = itemsSession();
    items.update((d) => {
      d.meta['n'] = 0;
    });
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() =>
      items.update((d) => {
        d.meta['n'] = 1;
      }),
    );
    items.update((d) => {
      d.meta = {};
    });
    expect(call.rollback()).toEqual([
      { slice: 'items', path: ['meta', 'n'], reason: 'overwritten' },
    ]);
    expect(items.get().meta).toEqual({});
  });

  it('takes out the element a failed call added, wherever other calls moved it', () => {
    // The shape of a failure an index-based undo had: a removal by one call
    // and an undo by another moved a third call's element under a stale index.
    const { session, items } = itemsSession();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => session.beginCall({ callId: id, toolName: id }));
    a!.run(() => items.update((d) => void d.items.push('a1')));
    b!.run(() => items.update((d) => void d.items.push('b1')));
    a!.run(() => items.update((d) => void d.items.splice(d.items.indexOf('a1'), 1)));
    a!.run(() => items.update((d) => void d.items.push('a2')));
    c!.run(() => items.update((d) => void d.items.push('c1')));
    expect(a!.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['b1', 'c1']);
    c!.commit();
    expect(b!.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['c1']);
  });

  it('puts back what a failed call removed, so that an earlier failed call can take it out', () => {
    const { session, items } = itemsSession();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => session.beginCall({ callId: id, toolName: id }));
    a!.run(() => items.update((d) => void d.items.push('a1')));
    b!.run(() => items.update((d) => void d.items.pop()));
    c!.run(() =>
      items.update((d) => {
        d.meta['c'] = 1;
      }),
    );
    expect(b!.rollback()).toEqual([]);
    expect(items.get().items).toEqual(['a1']);
    expect(a!.rollback()).toEqual([]);
    c!.commit();
    expect(items.get()).toEqual({ items: [], meta: { c: 1 } });
  });

  it('puts back what a failed call removed even when someone appended since', () => {
    const { session, items } = itemsSession();
    const keeper = session.beginCall({ callId: 'keeper', toolName: 'keeper' });
    keeper.run(() => items.update((d) => void d.items.push('kept')));
    const remover = session.beginCall({ callId: 'remover', toolName: 'remover' });
    remover.run(() => items.update((d) => void d.items.pop()));
    items.update((d) => void d.items.push('app'));
    expect(remover.rollback()).toEqual([]);
    keeper.commit();
    expect(items.get().items).toEqual(['kept', 'app']);
  });

  it('hands the undo of an element another running call removed to that call', () => {
    const { session, items } = itemsSession();
    const adder = session.beginCall({ callId: 'adder', toolName: 'adder' });
    adder.run(() => items.update((d) => void d.items.push('added')));
    const remover = session.beginCall({ callId: 'remover', toolName: 'remover' });
    remover.run(() => items.update((d) => void d.items.pop()));
    // The adder fails first: its element is gone for now, the remover's doing.
    expect(adder.rollback()).toEqual([
      { slice: 'items', path: ['items', 0], reason: 'overwritten' },
    ]);
    // The remover fails too: its undo puts the element back, and the adder's takes it out.
    expect(remover.rollback()).toEqual([]);
    expect(items.get().items).toEqual([]);
  });

  it('swaps back an element a failed call changed, unless someone changed it since', () => {
    const session = new Session();
    const rows = session.slice<{ rows: readonly { readonly n: number }[] }>('rows', {
      initial: { rows: [{ n: 0 }, { n: 10 }] },
    });
    const first = session.beginCall({ callId: 'first', toolName: 'first' });
    first.run(() =>
      rows.update((d) => {
        d.rows[1]!.n = 11;
      }),
    );
    rows.update((d) => void d.rows.unshift({ n: -1 }));
    expect(first.rollback()).toEqual([]);
    expect(rows.get().rows).toEqual([{ n: -1 }, { n: 0 }, { n: 10 }]);

    const second = session.beginCall({ callId: 'second', toolName: 'second' });
    second.run(() =>
      rows.update((d) => {
        d.rows[0]!.n = -2;
      }),
    );
    rows.update((d) => {
      d.rows[0]!.n = -3;
    });
    expect(second.rollback()).toEqual([
      { slice: 'rows', path: ['rows', 0], reason: 'overwritten' },
    ]);
    expect(rows.get().rows[0]).toEqual({ n: -3 });
  });

  it('leaves an array someone replaced whole after the failed call wrote into it', () => {
    const { session, items } = itemsSession();
    items.update((d) => void d.items.push('first'));
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() => items.update((d) => void d.items.pop()));
    call.run(() => items.update((d) => void d.items.push('mine')));
    items.update((d) => {
      d.items = ['reset'];
    });
    expect(call.rollback()).toEqual([
      { slice: 'items', path: ['items'], reason: 'overwritten' },
      { slice: 'items', path: ['items'], reason: 'overwritten' },
    ]);
    expect(items.get().items).toEqual(['reset']);
  });

  it('keeps every element it does not undo the very object it was', () => {
    const session = new Session();
    const rows = session.slice<{ rows: readonly { readonly id: string }[] }>('rows', {
      initial: { rows: [] },
    });
    const kept = session.beginCall({ callId: 'kept', toolName: 'kept' });
    kept.run(() => rows.update((d) => void d.rows.push({ id: 'kept' })));
    const failed = session.beginCall({ callId: 'failed', toolName: 'failed' });
    failed.run(() => rows.update((d) => void d.rows.unshift({ id: 'failed' })));
    const keptRow = rows.get().rows[1];
    failed.rollback();
    kept.commit();
    expect(rows.get().rows).toEqual([{ id: 'kept' }]);
    expect(rows.get().rows[0]).toBe(keptRow);
    expect(Object.isFrozen(rows.get().rows)).toBe(true);
  });

  it('keeps scopes of two sessions apart', () => {
    const first = itemsSession();
    const second = itemsSession();
    const call = first.session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() => {
      first.items.update((d) => void d.items.push('first'));
      second.items.update((d) => void d.items.push('second'));
    });
    call.rollback();
    expect(first.items.get().items).toEqual([]);
    expect(second.items.get().items).toEqual(['second']);
  });
});
