import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  InProcessEventBus,
  ResourceRegistry,
  Session,
  SessionSnapshot,
  defineEvent,
  type EventBus,
  invokeTool,
  SensitivityEscalated,
  Tool,
  ToolResult,
} from '../../src/index.js';

class Deposited extends defineEvent<{ readonly amount: number }>() {}
class Withdrawn extends defineEvent<{ readonly amount: number }>() {}

describe('Session', () => {
  it('uses the bus, id and resources it is given, or its own', () => {
    const bus: EventBus = new InProcessEventBus();
    const resources = new ResourceRegistry();
    const given = new Session({ bus, sessionId: 'fixed', resources });
    expect(given.bus).toBe(bus);
    expect(given.sessionId).toBe('fixed');
    expect(given.resources).toBe(resources);

    const fresh = new Session();
    expect(fresh.bus).toBeInstanceOf(InProcessEventBus);
    expect(fresh.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Session().sessionId).not.toBe(fresh.sessionId);
  });

  describe('slices', () => {
    it('creates a slice with its initial value and returns the same slice when asked again', () => {
      const session = new Session();
      const counter = session.slice('counter', { initial: { n: 0 } });
      expect(counter.name).toBe('counter');
      expect(counter.get()).toEqual({ n: 0 });
      expect(session.slice<{ n: number }>('counter')).toBe(counter);
    });

    it('refuses to get a slice that does not exist', () => {
      expect(() => new Session().slice('missing')).toThrow(
        'slice "missing" does not exist; pass { initial } to create it',
      );
    });

    it('refuses to create a slice twice', () => {
      const session = new Session();
      session.slice('counter', { initial: { n: 0 } });
      expect(() => session.slice('counter', { initial: { n: 5 } })).toThrow(
        'slice "counter" already exists',
      );
      expect(session.slice<{ n: number }>('counter').get()).toEqual({ n: 0 });
    });

    it('holds deeply frozen values that cannot be changed in place', () => {
      const session = new Session();
      const todo = session.slice('todo', { initial: { items: [{ title: 'a', done: false }] } });
      const value = todo.get();
      expect(Object.isFrozen(value)).toBe(true);
      expect(Object.isFrozen(value.items[0])).toBe(true);
      expect(() => {
        (value.items[0] as { done: boolean }).done = true;
      }).toThrow(TypeError);
    });

    it('applies an update as a new value, leaving earlier values untouched', () => {
      const session = new Session();
      const todo = session.slice('todo', { initial: { items: [{ title: 'a', done: false }] } });
      const before = todo.get();

      todo.update((draft) => {
        draft.items[0]!.done = true;
        draft.items.push({ title: 'b', done: false });
      });

      expect(todo.get()).toEqual({
        items: [
          { title: 'a', done: true },
          { title: 'b', done: false },
        ],
      });
      expect(before).toEqual({ items: [{ title: 'a', done: false }] });
    });

    it('holds primitive values too', () => {
      const session = new Session();
      const mode = session.slice<'plan' | 'act'>('mode', { initial: 'plan' });
      mode.update(() => 'act');
      expect(mode.get()).toBe('act');
    });
  });

  describe('dispatch and reducers', () => {
    it('runs the reducers for the event class, then the bus handlers', () => {
      const session = new Session();
      const balance = session.slice('balance', { initial: { total: 0 } });
      balance.on(Deposited, (draft, event) => {
        draft.total += event.amount;
      });
      const seenByHandler: number[] = [];
      session.bus.subscribe(Deposited, () => seenByHandler.push(balance.get().total));

      const result = session.dispatch(new Deposited({ amount: 5 }));

      expect(balance.get().total).toBe(5);
      expect(seenByHandler).toEqual([5]);
      expect(result).toEqual({ handlersInvoked: 1, errors: [], ok: true });
    });

    it('runs only the reducers of exactly that class, across slices', () => {
      const session = new Session();
      const balance = session.slice('balance', { initial: { total: 10 } });
      const log = session.slice('log', { initial: { lines: [] as string[] } });
      balance.on(Withdrawn, (draft, event) => {
        draft.total -= event.amount;
      });
      log.on(Withdrawn, (draft, event) => {
        draft.lines.push(`withdrew ${event.amount}`);
      });
      log.on(Deposited, (draft) => {
        draft.lines.push('deposit');
      });

      session.dispatch(new Withdrawn({ amount: 3 }));

      expect(balance.get().total).toBe(7);
      expect(log.get().lines).toEqual(['withdrew 3']);
    });

    it('reports a throwing reducer, leaves its slice unchanged and runs the rest', () => {
      const session = new Session();
      const balance = session.slice('balance', { initial: { total: 0, history: [] as number[] } });
      const audit = session.slice('audit', { initial: { count: 0 } });
      const failure = new Error('negative deposit');
      balance.on(Deposited, (draft, event) => {
        draft.history.push(event.amount);
        if (event.amount < 0) throw failure;
        draft.total += event.amount;
      });
      audit.on(Deposited, (draft) => {
        draft.count += 1;
      });
      let handled = 0;
      session.bus.subscribe(Deposited, () => {
        handled += 1;
      });
      const before = balance.get();

      const result = session.dispatch(new Deposited({ amount: -1 }));

      expect(balance.get()).toBe(before);
      expect(audit.get().count).toBe(1);
      expect(handled).toBe(1);
      expect(result).toEqual({ handlersInvoked: 1, errors: [failure], ok: false });
    });

    it('stops running a reducer once it is removed', () => {
      const session = new Session();
      const balance = session.slice('balance', { initial: { total: 0 } });
      const off = balance.on(Deposited, (draft, event) => {
        draft.total += event.amount;
      });
      session.dispatch(new Deposited({ amount: 1 }));
      off();
      session.dispatch(new Deposited({ amount: 1 }));
      expect(balance.get().total).toBe(1);
    });

    it('does not run reducers for events published on the bus directly', () => {
      const session = new Session();
      const balance = session.slice('balance', { initial: { total: 0 } });
      balance.on(Deposited, (draft, event) => {
        draft.total += event.amount;
      });
      session.bus.dispatch(new Deposited({ amount: 1 }));
      expect(balance.get().total).toBe(0);
    });
  });

  it('refuses to dispatch something that is not an event object, before any reducer', () => {
    const session = new Session();
    expect(() => session.dispatch(null as never)).toThrow(
      new TypeError('dispatch(event): event must be an instance of an event class, received null'),
    );
    expect(() => session.dispatch('Deposited' as never)).toThrow(TypeError);
  });

  it('runs the reducers of SensitivityEscalated, as of every event; a failed call keeps their record of the rise, as it keeps the level', async () => {
    const session = new Session();
    const rises = session.slice('rises', { initial: { levels: [] as string[] } });
    rises.on(SensitivityEscalated, (draft, event) => {
      draft.levels.push(event.sensitivity);
    });
    session.privateData.add('notes', 'internal');
    const tool = Tool.create({
      name: 'reads_records',
      description: 'Reads records, then fails',
      params: z.object({}),
      handler: (_params, { session: inCall }) => {
        inCall.privateData.add('records', 'secret');
        return ToolResult.error('failed after reading');
      },
    });
    expect((await invokeTool(tool, {}, { session })).success).toBe(false);
    expect(rises.get().levels).toEqual(['internal', 'secret']);
    expect(session.privateData.sensitivity).toBe('secret');
  });

  describe('snapshot and restore', () => {
    it('puts every slice back', () => {
      const session = new Session();
      const a = session.slice('a', { initial: { n: 1 } });
      const b = session.slice('b', { initial: { list: ['x'] } });
      const snapshot = session.snapshot();
      const [aBefore, bBefore] = [a.get(), b.get()];

      a.update((draft) => {
        draft.n = 2;
      });
      b.update((draft) => {
        draft.list.push('y');
      });
      session.restore(snapshot);

      expect(a.get()).toBe(aBefore);
      expect(b.get()).toBe(bBefore);
    });

    it('can restore the same snapshot more than once', () => {
      const session = new Session();
      const a = session.slice('a', { initial: { n: 1 } });
      const snapshot = session.snapshot();
      for (const n of [2, 3]) {
        a.update((draft) => {
          draft.n = n;
        });
        session.restore(snapshot);
        expect(a.get()).toEqual({ n: 1 });
      }
    });

    it('returns a slice created after the snapshot to its initial value', () => {
      const session = new Session();
      const snapshot = session.snapshot();
      const late = session.slice('late', { initial: { n: 0 } });
      late.update((draft) => {
        draft.n = 9;
      });
      session.restore(snapshot);
      expect(late.get()).toEqual({ n: 0 });
      late.update((draft) => {
        draft.n += 1;
      });
      expect(late.get()).toEqual({ n: 1 });
    });

    it('refuses a snapshot from another session', () => {
      const mine = new Session({ sessionId: 'mine' });
      const theirs = new Session({ sessionId: 'theirs' });
      expect(() => mine.restore(theirs.snapshot())).toThrow(
        'snapshot of session "theirs" cannot restore session "mine"',
      );
    });

    it('keeps the private-data level on restore', () => {
      const session = new Session();
      const snapshot = session.snapshot();
      session.privateData.add('medical', 'secret');
      session.restore(snapshot);
      expect(session.privateData.sensitivity).toBe('secret');
      expect(session.privateData.hasPrivateData).toBe(true);
    });

    it('is frozen and records the session and when it was taken', () => {
      const session = new Session({ sessionId: 's' });
      const snapshot = session.snapshot();
      expect(snapshot).toBeInstanceOf(SessionSnapshot);
      expect(snapshot.sessionId).toBe('s');
      expect(snapshot.createdAt).toBeInstanceOf(Date);
      expect(Object.isFrozen(snapshot)).toBe(true);
      expect(Object.isFrozen(snapshot.state)).toBe(true);
    });

    describe('structural sharing', () => {
      type Catalog = Record<string, { readonly name: string; readonly tags: readonly string[] }>;

      function largeSession(): { session: Session; catalog: () => Catalog; notes: () => unknown } {
        const session = new Session();
        const items: Record<string, { name: string; tags: string[] }> = {};
        for (let i = 0; i < 20_000; i += 1) items[`item-${i}`] = { name: `Item ${i}`, tags: ['t'] };
        const catalog = session.slice<Catalog>('catalog', { initial: items });
        const notes = session.slice('notes', { initial: { text: 'keep' } });
        return { session, catalog: () => catalog.get(), notes: () => notes.get() };
      }

      it('holds the live state itself: taking a snapshot copies nothing', () => {
        const { session, catalog, notes } = largeSession();
        const first = session.snapshot();
        const second = session.snapshot();

        expect(second.state).toBe(first.state);
        expect(first.state['catalog']).toBe(catalog());
        expect(first.state['notes']).toBe(notes());
      });

      it('shares every untouched subtree with the state after an update', () => {
        const { session, catalog, notes } = largeSession();
        const snapshot = session.snapshot();
        const before = snapshot.state['catalog'] as Catalog;

        session.slice<Catalog>('catalog').update((draft) => {
          draft['item-7'] = { name: 'Renamed', tags: ['t'] };
        });

        const after = catalog();
        expect(after).not.toBe(before);
        expect(after['item-7']!.name).toBe('Renamed');
        expect(before['item-7']!.name).toBe('Item 7');
        expect(after['item-0']).toBe(before['item-0']);
        expect(after['item-19999']).toBe(before['item-19999']);
        expect(
          Object.keys(after).every((key) => key === 'item-7' || after[key] === before[key]),
        ).toBe(true);
        expect(notes()).toBe(snapshot.state['notes']);
      });
    });
  });
});
