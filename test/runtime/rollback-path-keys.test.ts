/**
 * Per-call rollback tells paths apart by every key, whatever it holds: a
 * symbol-keyed member (a slice's own), and two paths whose keys joined
 * with a separator would read the same (`["a\u0000b"]` and `["a", "b"]`).
 * A symbol in a path made every other write to the slice throw while the
 * call ran; two such paths were taken for one array, and the second's
 * undo was lost.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

describe('rollback and the keys of a path', () => {
  it('undoes a failed call’s push into a symbol-keyed array, keeping another writer’s', () => {
    const log = Symbol('log');
    const session = new Session();
    const slice = session.slice<Record<PropertyKey, unknown>>('s', { initial: { other: 0 } });
    const call = session.beginCall({ callId: 'A', toolName: 'A' });
    call.run(() => slice.update((draft) => void (draft[log] = [])));
    call.run(() => slice.update((draft) => void (draft[log] as string[]).push('call')));
    expect(() =>
      slice.update((draft) => void (draft[log] as string[]).push('application')),
    ).not.toThrow();
    expect(() => slice.update((draft) => void (draft.other = 1))).not.toThrow();
    call.rollback();
    expect(slice.get().other).toBe(1);
  });

  it('undoes writes into two arrays whose keys joined would read the same', () => {
    const session = new Session();
    const slice = session.slice<{ a: { b: number[] }; 'a\u0000b': number[] }>('s', {
      initial: { a: { b: [0, 0, 0] }, 'a\u0000b': [0, 0, 0] },
    });
    const call = session.beginCall({ callId: 'A', toolName: 'A' });
    call.run(() =>
      slice.update((draft) => {
        draft['a\u0000b'].splice(1, 0, 1);
        draft.a.b.splice(1, 0, 2);
      }),
    );
    // Another writer's change in each, at other places: the undo goes element by element.
    slice.update((draft) => {
      draft['a\u0000b'].unshift(-1);
      draft.a.b.push(-2);
    });
    expect(call.rollback()).toEqual([]);
    expect(slice.get()).toEqual({ a: { b: [0, 0, 0, -2] }, 'a\u0000b': [-1, 0, 0, 0] });
  });
});

describe('an undo’s copy of an object', () => {
  it('keeps its symbol-keyed members', () => {
    const tag = Symbol('tag');
    const session = new Session();
    const slice = session.slice<{ doc: Record<PropertyKey, unknown> }>('s', {
      initial: { doc: { n: 0, m: 0 } },
    });
    slice.update((draft) => void (draft.doc[tag] = 'kept'));
    const call = session.beginCall({ callId: 'A', toolName: 'A' });
    call.run(() => slice.update((draft) => void (draft.doc.n = 1)));
    slice.update((draft) => void (draft.doc.m = 2)); // the undo patches a copy
    expect(call.rollback()).toEqual([]);
    expect(slice.get().doc).toMatchObject({ n: 0, m: 2 });
    expect(slice.get().doc[tag]).toBe('kept');
  });
});
