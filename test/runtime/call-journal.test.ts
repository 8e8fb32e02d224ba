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
  it('moves the undo of another running call when an undo shifts an array', () => {
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
