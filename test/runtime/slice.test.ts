/**
 * Pins `Slice` itself: that `get`, `update` and `on` go to its host under
 * the slice's own name, passing the recipe and reducer through and
 * returning the host's remover; and, through a real `Session`, that updates
 * share untouched subtrees, a removed reducer stops running, and a reducer
 * for a parent class does not run for a subclass.
 */
import type { Draft } from 'immer';
import { describe, expect, it } from 'vitest';
import { defineEvent } from '../../src/runtime/define-event.js';
import { Session } from '../../src/runtime/session.js';
import { Slice, type SliceHost } from '../../src/runtime/slice.js';

class Added extends defineEvent<{ readonly n: number }>() {}
class AddedTwice extends Added {}

describe('Slice over its host', () => {
  it('delegates under its own name and returns what the host returns', () => {
    const calls: unknown[][] = [];
    const remover = (): void => undefined;
    const host: SliceHost = {
      read: (name) => {
        calls.push(['read', name]);
        return { value: 1 };
      },
      produce: (name, recipe) => calls.push(['produce', name, recipe]),
      addReducer: (name, eventClass, reducer) => {
        calls.push(['addReducer', name, eventClass, reducer]);
        return remover;
      },
    };
    const slice = new Slice<{ value: number }>('counter', host);
    const recipe = (draft: Draft<{ value: number }>): void => {
      draft.value += 1;
    };
    const reducer = (draft: Draft<{ value: number }>, event: Added): void => {
      draft.value += event.n;
    };
    expect(slice.name).toBe('counter');
    expect(slice.get()).toEqual({ value: 1 });
    slice.update(recipe);
    expect(slice.on(Added, reducer)).toBe(remover);
    expect(calls).toEqual([
      ['read', 'counter'],
      ['produce', 'counter', recipe],
      ['addReducer', 'counter', Added, reducer],
    ]);
  });
});

describe('Slice in a Session', () => {
  it('returns the same slice object for the same name', () => {
    const session = new Session();
    const created = session.slice('s', { initial: 0 });
    expect(session.slice('s')).toBe(created);
  });

  it('shares untouched subtrees between successive values', () => {
    const session = new Session();
    const slice = session.slice('state', { initial: { a: { list: [1] }, b: { list: [2] } } });
    const before = slice.get();
    slice.update((draft) => {
      draft.a.list.push(3);
    });
    const after = slice.get();
    expect(after).toEqual({ a: { list: [1, 3] }, b: { list: [2] } });
    expect(after.b).toBe(before.b);
    expect(after.a).not.toBe(before.a);
    expect(Object.isFrozen(after.a.list)).toBe(true);
  });

  it('stops running a reducer once its remover is called', () => {
    const session = new Session();
    const total = session.slice('total', { initial: { sum: 0 } });
    const off = total.on(Added, (draft, event) => {
      draft.sum += event.n;
    });
    session.dispatch(new Added({ n: 2 }));
    off();
    session.dispatch(new Added({ n: 5 }));
    expect(total.get()).toEqual({ sum: 2 });
  });

  it('runs reducers for exactly the event class, not for its subclasses', () => {
    const session = new Session();
    const total = session.slice('total', { initial: { sum: 0 } });
    total.on(Added, (draft, event) => {
      draft.sum += event.n;
    });
    session.dispatch(new AddedTwice({ n: 7 }));
    expect(total.get()).toEqual({ sum: 0 });
  });
});
