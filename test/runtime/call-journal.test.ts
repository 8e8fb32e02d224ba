import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';
import { RunningCalls, type WriterName } from '../support/call-scopes.js';

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

/** A session whose slice `rows` starts with `initial`. */
function rowsSession<Row>(initial: readonly Row[]) {
  const session = new Session();
  const rows = session.slice<{ rows: readonly Row[] }>('rows', { initial: { rows: initial } });
  return { session, rows };
}

/** Rows a, b, c, and a call that reversed them (not yet settled). */
function reversedByCall() {
  const { session, rows } = rowsSession<{ readonly id: string }>([
    { id: 'a' },
    { id: 'b' },
    { id: 'c' },
  ]);
  const call = session.beginCall({ callId: 'x', toolName: 'x' });
  call.run(() => rows.update((d) => void d.rows.reverse()));
  return { rows, call };
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
    const { session, rows } = rowsSession<{ readonly n: number }>([{ n: 0 }, { n: 10 }]);
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
    const { session, rows } = rowsSession<{ readonly id: string }>([]);
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

  it('undoes a reorder after someone else moved the array', () => {
    const { rows, call } = reversedByCall();
    rows.update((d) => void d.rows.unshift({ id: 'z' }));
    expect(call.rollback()).toEqual([]);
    expect(rows.get().rows.map((row) => row.id)).toEqual(['z', 'a', 'b', 'c']);
  });

  it('undoes its own place among equal values, wherever other writes moved it', () => {
    const session = new Session();
    const flags = session.slice<{ done: readonly boolean[]; tags: readonly string[] }>('flags', {
      initial: { done: [true, false, false], tags: ['a', 'b', 'a', 'c'] },
    });
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() =>
      flags.update((d) => {
        d.done[2] = true;
        d.tags.pop();
      }),
    );
    flags.update((d) => {
      d.done.unshift(false);
      d.tags.unshift('z');
    });
    expect(call.rollback()).toEqual([]);
    expect(flags.get()).toEqual({
      done: [false, true, false, false],
      tags: ['z', 'a', 'b', 'a', 'c'],
    });
  });

  it('undoes a write inside an element that another call changed elsewhere', () => {
    type Threads = { readonly threads: readonly { readonly messages: readonly string[] }[] };
    const session = new Session();
    const threads = session.slice<Threads>('threads', { initial: { threads: [{ messages: [] }] } });
    const grid = session.slice<readonly (readonly number[])[]>('grid', { initial: [[0], [1]] });
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    a.run(() => threads.update((d) => void d.threads[0]!.messages.push('from a')));
    a.run(() => grid.update((d) => void d[0]!.push(10)));
    b.run(() => threads.update((d) => void d.threads[0]!.messages.push('from b')));
    grid.update((d) => void d[0]!.push(20));
    expect(a.rollback()).toEqual([]);
    b.commit();
    expect(threads.get().threads[0]!.messages).toEqual(['from b']);
    expect(grid.get()).toEqual([[0, 20], [1]]);
  });

  describe('inside an array element another writer changed since', () => {
    type Row = { readonly id: string; readonly fields: Readonly<Record<string, number>> };
    type Draft = { id: string; fields: Record<string, number> }[];
    /** Call `a` sets `fields.a` of row 0; then `later` changes the rows (in call `b`, or outside calls), one write each. */
    function afterA(
      later: (rows: Draft) => void,
      inCall = true,
      ...more: ((rows: Draft) => void)[]
    ) {
      const { session, rows } = rowsSession<Row>([{ id: 'r0', fields: { kept: 0 } }]);
      const a = session.beginCall({ callId: 'a', toolName: 'a' });
      a.run(() => rows.update((d) => void ((d.rows as Draft)[0]!.fields['a'] = 1)));
      const change = (): void => {
        for (const write of [later, ...more]) rows.update((d) => write(d.rows));
      };
      if (inCall) {
        const b = session.beginCall({ callId: 'b', toolName: 'b' });
        b.run(change);
        b.commit();
      } else change();
      const conflicts = a.rollback();
      return { conflicts, row: rows.get().rows[0]!, rows: rows.get().rows };
    }

    it("takes out the failed call's member beside another writer's edit of another member", () => {
      for (const inCall of [true, false]) {
        const { conflicts, row } = afterA((rows) => void (rows[0]!.fields['b'] = 2), inCall);
        expect(conflicts).toEqual([]);
        expect(row).toEqual({ id: 'r0', fields: { kept: 0, b: 2 } });
        expect(Object.isFrozen(row.fields)).toBe(true);
      }
    });

    it('keeps what the other writer wrote where the failed call wrote, and says so', () => {
      const replaced = afterA((rows) => void (rows[0]!.fields = { a: 1, b: 2 }));
      expect(replaced.row.fields).toEqual({ a: 1, b: 2 });
      const same = afterA((rows) => void (rows[0]!.fields['a'] = 5));
      expect(same.row.fields).toEqual({ kept: 0, a: 5 });
      // A row of the other writer's own in its place, holding the failed call's very members.
      const row = afterA((rows) => void (rows[0] = { ...rows[0]! }));
      expect(row.row).toEqual({ id: 'r0', fields: { kept: 0, a: 1 } });
      for (const { conflicts } of [replaced, same, row]) {
        expect(conflicts).toEqual([{ slice: 'rows', path: ['rows', 0], reason: 'overwritten' }]);
      }
    });

    it('keeps a bounded record of another writer’s changes: past 256 places the row is theirs', () => {
      const few = afterA((rows) => {
        for (let key = 0; key < 200; key += 1) rows[0]!.fields[`k${String(key)}`] = key;
      });
      expect(few.conflicts).toEqual([]);
      expect(few.row.fields['a']).toBeUndefined();
      const many = afterA(
        (rows) => void (rows[0]!.fields['k0'] = 0),
        true,
        ...Array.from({ length: 300 }, (_, key) => (rows: Draft) => {
          rows[0]!.fields[`k${String(key)}`] = key;
        }),
      );
      expect(many.conflicts).toEqual([{ slice: 'rows', path: ['rows', 0], reason: 'overwritten' }]);
      expect(many.row.fields['a']).toBe(1);
    });

    it('follows an element another writer changed in place through a later reorder', () => {
      const { conflicts, rows } = afterA(
        (rows) => void (rows[0]!.fields['b'] = 2),
        true,
        (rows) => void rows.unshift({ id: 'first', fields: {} }),
        (rows) => void rows.reverse(),
      );
      expect(conflicts).toEqual([]);
      expect(rows).toEqual([
        { id: 'r0', fields: { kept: 0, b: 2 } },
        { id: 'first', fields: {} },
      ]);
    });
  });

  it('never writes its own marker into a slice whose object on the path became an array', () => {
    const session = new Session();
    const value = session.slice<Record<string, unknown>>('value', {
      initial: { g: { '0': ['a'] } },
    });
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() => value.update((d) => void (d['g'] as { '0': string[] })['0'].push('b')));
    call.run(() =>
      value.update((d) => {
        d['g'] = [['a', 'b']];
      }),
    );
    value.update((d) => void (d['g'] as string[][])[0]!.push('c'));
    call.rollback();
    expect(value.get()).toEqual({ g: [['a', 'b', 'c']] });
  });

  it('hands an unfinished undo to the one call that removed the element, once', () => {
    const { session, items } = itemsSession();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => session.beginCall({ callId: id, toolName: id }));
    a!.run(() => items.update((d) => void d.items.push('x')));
    c!.run(() => items.update((d) => void d.items.push('y')));
    b!.run(() => items.update((d) => void d.items.splice(d.items.indexOf('x'), 1)));
    expect(a!.rollback()).toEqual([{ slice: 'items', path: ['items', 0], reason: 'overwritten' }]);
    items.update((d) => void d.items.push('x')); // the application's own "x"
    expect(c!.rollback()).toEqual([]);
    b!.commit();
    expect(items.get().items).toEqual(['x']);
  });

  it('leaves a reorder that a later reorder moved again, and says so', () => {
    const { rows, call } = reversedByCall();
    rows.update((d) => void d.rows.sort((p, q) => (p.id < q.id ? -1 : 1)));
    expect(call.rollback().map((conflict) => conflict.reason)).toEqual([
      'overwritten',
      'overwritten',
    ]);
    expect(rows.get().rows.map((row) => row.id)).toEqual(['a', 'b', 'c']);
  });

  it('finds an element it added and changed, after someone reordered the array', () => {
    const { session, rows } = rowsSession<{ readonly id: string; readonly n: number }>([
      { id: 'p', n: 0 },
    ]);
    const call = session.beginCall({ callId: 'x', toolName: 'x' });
    call.run(() => rows.update((d) => void d.rows.push({ id: 'x', n: 0 })));
    call.run(() =>
      rows.update((d) => {
        d.rows[1]!.n = 1;
      }),
    );
    rows.update((d) => void d.rows.reverse());
    expect(call.rollback()).toEqual([]);
    expect(rows.get().rows).toEqual([{ id: 'p', n: 0 }]);
  });

  it('puts an element back after the one it followed, whatever happened around it meanwhile', () => {
    const { session, rows } = rowsSession<{ readonly id: string }>(
      ['a', 'b', 'x', 'c'].map((id) => ({ id })),
    );
    const ids = (): string =>
      rows
        .get()
        .rows.map((row) => row.id)
        .join(',');
    const a = session.beginCall({ callId: 'a', toolName: 'a' });
    a.run(() => rows.update((d) => void d.rows.splice(2, 1)));
    // An outside append: the undo of `a` has to work element by element.
    rows.update((d) => void d.rows.push({ id: 'y' }));
    const b = session.beginCall({ callId: 'b', toolName: 'b' });
    b.run(() => rows.update((d) => void d.rows.splice(0)));
    expect(b.rollback()).toEqual([]);
    expect(ids()).toBe('a,b,c,y');
    expect(a.rollback()).toEqual([]);
    expect(ids()).toBe('a,b,x,c,y');
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

describe('per-call rollback of array writes, property', () => {
  type Writer = WriterName;
  type Step =
    | { readonly kind: 'push' | 'unshift' | 'insert'; readonly by: Writer; readonly at: number }
    | { readonly kind: 'remove' | 'change'; readonly by: Writer; readonly pick: number }
    | { readonly kind: 'end'; readonly by: Exclude<Writer, 'app'>; readonly ok: boolean };
  const writer = fc.constantFrom<Writer>('a', 'b', 'c', 'nested', 'app');
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({
      kind: fc.constantFrom('push' as const, 'unshift' as const, 'insert' as const),
      by: writer,
      at: fc.nat(8),
    }),
    fc.record({
      kind: fc.constantFrom('remove' as const, 'change' as const),
      by: writer,
      pick: fc.nat(8),
    }),
    fc.record({
      kind: fc.constant('end' as const),
      by: fc.constantFrom('a' as const, 'b' as const, 'c' as const, 'nested' as const),
      ok: fc.boolean(),
    }),
  );

  /**
   * Writers change only elements of their own (an element is `id` with a
   * version, as an object or as a string), in any order, and end in any
   * order; `nested` is a call `a` started. The elements left are exactly
   * those of the writes that were kept, and no rollback reports a conflict.
   */
  function holds(asObjects: boolean, steps: readonly Step[], ends: readonly boolean[]): void {
    type Element = string | { readonly id: string; readonly version: number };
    const make = (id: string, version: number): Element =>
      asObjects ? { id, version } : `${id}@${String(version)}`;
    const idOf = (element: Element): string =>
      typeof element === 'string' ? element.split('@')[0]! : element.id;
    const versionOf = (element: Element): number =>
      typeof element === 'string' ? Number(element.split('@')[1]) : element.version;
    const session = new Session();
    const list = session.slice<{ readonly items: readonly Element[] }>('list', {
      initial: { items: [make('app0', 0), make('a0', 0)] },
    });
    const calls = new RunningCalls(session, ends[3]!);
    const kept: { by: Writer; apply: (model: Map<string, number>) => void }[] = [];
    let made = 0;
    for (const next of steps) {
      if (next.kind === 'end') {
        calls.end(next.by, next.ok);
        continue;
      }
      const by = next.by;
      if (!calls.running(by)) continue;
      const write = (recipe: (items: Element[]) => void): void =>
        calls.write(by, () => list.update((draft) => recipe(draft.items)));
      if ('at' in next) {
        const id = `${by}${String(++made)}`;
        write((items) => {
          if (next.kind === 'push') items.push(make(id, 0));
          else if (next.kind === 'unshift') items.unshift(make(id, 0));
          else items.splice(Math.min(next.at, items.length), 0, make(id, 0));
        });
        kept.push({ by, apply: (model) => void model.set(id, 0) });
        continue;
      }
      const own = list.get().items.filter((element) => idOf(element).replace(/\d+$/, '') === by);
      if (own.length === 0) continue;
      const id = idOf(own[next.pick % own.length]!);
      write((items) => {
        const at = items.findIndex((element) => idOf(element) === id);
        if (next.kind === 'remove') items.splice(at, 1);
        else items[at] = make(id, versionOf(items[at]!) + 1);
      });
      kept.push({
        by,
        apply: (model) =>
          next.kind === 'remove' ? void model.delete(id) : void model.set(id, model.get(id)! + 1),
      });
    }
    (['a', 'b', 'c'] as const).forEach((by, index) => calls.end(by, ends[index]!));
    const model = new Map([
      ['app0', 0],
      ['a0', 0],
    ]);
    for (const entry of kept) if (!calls.lost(entry.by)) entry.apply(model);
    const left = list
      .get()
      .items.map((element) => `${idOf(element)}@${String(versionOf(element))}`);
    expect(left.slice().sort()).toEqual(
      [...model].map(([id, version]) => `${id}@${String(version)}`).sort(),
    );
    expect(calls.conflicts).toEqual([]);
  }

  it.each([
    ['objects', true],
    ['strings', false],
  ])('leaves exactly the kept writes’ elements, with %s as elements', (_kind, asObjects) => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 25 }),
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        (steps, ends) => holds(asObjects, steps, ends),
      ),
      { numRuns: 500 },
    );
  });
});
