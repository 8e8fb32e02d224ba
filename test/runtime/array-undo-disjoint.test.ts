/**
 * A failed call's writes inside an array element that other writers
 * changed too (found by a scheduler's review): another key of the same
 * row, and an element changed in place then moved by a reorder, are undone
 * as they are in an object keyed by id; a row put in the element's place
 * is still left alone and reported.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';

interface Row {
  readonly id: string;
  readonly fields: Readonly<Record<string, number>>;
  readonly tags: readonly string[];
}

/** A session whose slice `rows` holds rows with these ids, each with no fields and no tags. */
function rowsSession(...ids: string[]) {
  const session = new Session();
  const rows = session.slice<{ readonly rows: readonly Row[] }>('rows', {
    initial: { rows: ids.map((id) => ({ id, fields: {}, tags: [] })) },
  });
  const row = (id: string): Row | undefined => rows.get().rows.find((each) => each.id === id);
  return { session, rows, row };
}

describe('per-call rollback inside an array element that other writers changed too', () => {
  it('undoes its key of an object in a row when another call wrote a different key of it', () => {
    const { session, rows, row } = rowsSession('r0');
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() =>
      rows.update((d) => {
        d.rows[0]!.fields['a'] = 1;
      }),
    );
    b.run(() =>
      rows.update((d) => {
        d.rows[0]!.fields['b'] = 1;
      }),
    );
    expect(a.rollback()).toEqual([]);
    b.commit();
    expect(row('r0')).toEqual({ id: 'r0', fields: { b: 1 }, tags: [] });
  });

  it('puts back a key it deleted from an object in a row that another call added to', () => {
    const session = new Session();
    const rows = session.slice<{ readonly rows: readonly Row[] }>('rows', {
      initial: { rows: [{ id: 'r0', fields: { old: 0 }, tags: [] }] },
    });
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() =>
      rows.update((d) => {
        delete d.rows[0]!.fields['old'];
      }),
    );
    b.run(() =>
      rows.update((d) => {
        d.rows[0]!.fields['b'] = 1;
      }),
    );
    expect(a.rollback()).toEqual([]);
    b.commit();
    expect(rows.get().rows[0]!.fields).toEqual({ old: 0, b: 1 });
  });

  it('undoes its tag in a row when another call set a field of that row, and keeps the other call’s objects', () => {
    const { session, rows, row } = rowsSession('r0', 'r1');
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    a.run(() => rows.update((d) => void d.rows[0]!.tags.push('from a')));
    // Outside any call, as application code would.
    rows.update((d) => {
      d.rows[0]!.fields['x'] = 1;
    });
    const fields = row('r0')!.fields;
    const untouched = row('r1');
    expect(a.rollback()).toEqual([]);
    expect(row('r0')).toEqual({ id: 'r0', fields: { x: 1 }, tags: [] });
    expect(row('r0')!.fields).toBe(fields);
    expect(row('r1')).toBe(untouched);
  });

  it('undoes its key in a row another call edited, but not in a row another call put in its place', () => {
    const { session, rows, row } = rowsSession('r0', 'r1');
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() =>
      rows.update((d) => {
        for (const each of d.rows) each.fields['a'] = 1;
      }),
    );
    b.run(() =>
      rows.update((d) => {
        d.rows[0]!.fields['b'] = 1;
        d.rows[1] = { id: 'new', fields: { a: 1 }, tags: [] };
      }),
    );
    expect(a.rollback()).toEqual([{ slice: 'rows', path: ['rows', 1], reason: 'overwritten' }]);
    b.commit();
    expect(row('r0')!.fields).toEqual({ b: 1 });
    expect(row('new')).toEqual({ id: 'new', fields: { a: 1 }, tags: [] });
  });
});

describe('per-call rollback inside an array element that was changed and then moved', () => {
  type Thread = { readonly id: string; readonly messages: readonly string[] };

  /** Threads t0..t3 with no messages, and a way to append to one by id. */
  function threadsSession() {
    const session = new Session();
    const threads = session.slice<{ readonly list: readonly Thread[] }>('threads', {
      initial: { list: ['t0', 't1', 't2', 't3'].map((id) => ({ id, messages: [] })) },
    });
    const append = (id: string, message: string): void =>
      threads.update((d) => {
        const thread = d.list.find((each) => each.id === id)!;
        thread.messages.push(message);
      });
    const thread = (id: string): Thread | undefined =>
      threads.get().list.find((each) => each.id === id);
    return { session, threads, append, thread };
  }

  it('undoes its message in a thread another call also wrote to, after the threads were reversed', () => {
    const { session, threads, append, thread } = threadsSession();
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() => append('t1', 'from a'));
    b.run(() => append('t1', 'from b'));
    threads.update((d) => void d.list.reverse());
    expect(a.rollback()).toEqual([]);
    b.commit();
    expect(thread('t1')!.messages).toEqual(['from b']);
    expect(threads.get().list.map((each) => each.id)).toEqual(['t3', 't2', 't1', 't0']);
  });

  it('undoes its message after a successful call sorted the threads, and never one in a thread put in its place', () => {
    const { session, threads, append, thread } = threadsSession();
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() => {
      append('t1', 'from a');
      append('t2', 'from a');
    });
    b.run(() => {
      append('t1', 'from b');
      threads.update((d) => {
        d.list[2] = { id: 't9', messages: ['from a', 'from b'] };
      });
    });
    const sorter = session.beginCall({ callId: 'sort', toolName: 'sort' });
    sorter.run(() => threads.update((d) => void d.list.sort((p, q) => (p.id < q.id ? 1 : -1))));
    sorter.commit();
    expect(a.rollback()).toEqual([{ slice: 'threads', path: ['list', 2], reason: 'overwritten' }]);
    b.commit();
    expect(thread('t1')!.messages).toEqual(['from b']);
    expect(thread('t9')!.messages).toEqual(['from a', 'from b']);
    expect(threads.get().list.map((each) => each.id)).toEqual(['t9', 't3', 't1', 't0']);
  });
});
