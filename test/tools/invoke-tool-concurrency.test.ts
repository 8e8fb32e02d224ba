import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  RollbackConflict,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  invokeTool,
  type ToolContext,
} from '../../src/index.js';

interface Notes {
  readonly items: readonly string[];
  readonly byCall: Readonly<Record<string, { readonly steps: number }>>;
  readonly shared: { readonly owner: string };
}

const NO_PARAMS = z.object({});
const INITIAL: Notes = { items: [], byCall: {}, shared: { owner: 'app' } };

function notesSession(): { session: Session } {
  const session = new Session({ sessionId: 'parallel' });
  session.slice<Notes>('notes', { initial: INITIAL });
  return { session };
}

/** A tool whose handler is any async function of the context. */
function tool(
  name: string,
  handler: (context: ToolContext) => ToolResult | Promise<ToolResult>,
): Tool<typeof NO_PARAMS> {
  return Tool.create({
    name,
    description: `test tool ${name}`,
    params: NO_PARAMS,
    handler: (_params, context) => handler(context),
  });
}

function later(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function push(context: ToolContext, text: string): void {
  context.session.slice<Notes>('notes').update((draft) => {
    draft.items.push(text);
  });
}

describe('per-call rollback under parallel calls', () => {
  it('keeps the writes of a successful call when a parallel one fails later', async () => {
    const { session } = notesSession();
    const ok = tool('ok', (context) => {
      push(context, 'from ok');
      return ToolResult.ok(null);
    });
    const failing = tool('failing', async (context) => {
      push(context, 'from failing');
      await later(50);
      return ToolResult.error('upstream failed');
    });
    const [first, second] = await Promise.all([
      invokeTool(failing, {}, { session }),
      invokeTool(ok, {}, { session }),
    ]);
    expect(first.success).toBe(false);
    expect(second.success).toBe(true);
    expect(session.slice<Notes>('notes').get().items).toEqual(['from ok']);
  });

  it('keeps what application code wrote while a failing call ran', async () => {
    const { session } = notesSession();
    const failing = tool('failing', async (context) => {
      push(context, 'from failing');
      await later(10);
      throw new Error('boom');
    });
    const call = invokeTool(failing, {}, { session });
    await later(2);
    expect(session.slice<Notes>('notes').get().items).toEqual(['from failing']);
    session.slice<Notes>('notes').update((draft) => {
      draft.items.push('from app');
      draft.byCall['app'] = { steps: 1 };
    });
    expect((await call).success).toBe(false);
    expect(session.slice<Notes>('notes').get()).toEqual({
      items: ['from app'],
      byCall: { app: { steps: 1 } },
      shared: { owner: 'app' },
    });
  });

  it('lets a later write to the same place win, and says so with RollbackConflict', async () => {
    const { session } = notesSession();
    const conflicts: RollbackConflict[] = [];
    const order: string[] = [];
    session.bus.subscribe(RollbackConflict, (event) => {
      conflicts.push(event);
      order.push('conflict');
    });
    session.bus.subscribe(ToolInvoked, () => order.push('invoked'));
    const failing = tool('failing', async (context) => {
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'failing';
        draft.items.push('own');
      });
      await later(20);
      return ToolResult.error('failed');
    });
    const call = invokeTool(failing, {}, { session });
    await later(5);
    session.slice<Notes>('notes').update((draft) => {
      draft.shared.owner = 'app, later';
    });
    await call;
    expect(session.slice<Notes>('notes').get()).toEqual({
      items: [],
      byCall: {},
      shared: { owner: 'app, later' },
    });
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({
      toolName: 'failing',
      conflicts: [{ slice: 'notes', path: ['shared', 'owner'], reason: 'overwritten' }],
    });
    expect(order).toEqual(['conflict', 'invoked']);
  });

  /** A promise to release by hand, so that a test decides the order, not timers. */
  function gate(): { readonly opened: Promise<void>; open(): void } {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { opened, open };
  }

  it.each([
    ['the overwriter fails first', ['second', 'first']],
    ['the overwritten call fails first', ['first', 'second']],
  ] as const)(
    'undoes two failed calls that wrote the same place, whichever fails first (%s)',
    async (_label, failOrder) => {
      const { session } = notesSession();
      const written = { first: gate(), second: gate() };
      const fail = { first: gate(), second: gate() };
      const writer = (name: 'first' | 'second') =>
        tool(name, async (context) => {
          if (name === 'second') await written.first.opened;
          context.session.slice<Notes>('notes').update((draft) => {
            draft.shared.owner = name;
          });
          written[name].open();
          await fail[name].opened;
          return ToolResult.error(`${name} failed`);
        });
      const calls = [
        invokeTool(writer('first'), {}, { session }),
        invokeTool(writer('second'), {}, { session }),
      ];
      await written.second.opened;
      const [firstToFail, secondToFail] = failOrder;
      fail[firstToFail].open();
      await calls[firstToFail === 'first' ? 0 : 1];
      fail[secondToFail].open();
      await Promise.all(calls);
      expect(session.slice<Notes>('notes').get().shared.owner).toBe('app');
    },
  );

  it('keeps the overwriter when it succeeds after the overwritten call failed', async () => {
    const { session } = notesSession();
    const first = tool('first', async (context) => {
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'first';
      });
      await later(20);
      return ToolResult.error('first failed');
    });
    const second = tool('second', async (context) => {
      await later(5);
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'second';
      });
      await later(40);
      return ToolResult.ok(null);
    });
    await Promise.all([invokeTool(first, {}, { session }), invokeTool(second, {}, { session })]);
    expect(session.slice<Notes>('notes').get().shared.owner).toBe('second');
  });

  it('undoes a failed write when a nested call that overwrote it committed and its caller fails too', async () => {
    // first writes, then fails while second's nested call has overwritten
    // it and committed into second; second fails later. Neither write may
    // survive: the undo of first's write passes to second, not to the
    // nested call that has already ended.
    const { session } = notesSession();
    const first = tool('first', async (context) => {
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'first';
      });
      await later(20);
      return ToolResult.error('first failed');
    });
    const nested = tool('nested', (context) => {
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'nested';
      });
      return ToolResult.ok(null);
    });
    const second = tool('second', async (context) => {
      await later(5);
      const inner = await invokeTool(nested, {}, { session: context.session });
      expect(inner.success).toBe(true);
      await later(40);
      return ToolResult.error('second failed');
    });
    const results = await Promise.all([
      invokeTool(first, {}, { session }),
      invokeTool(second, {}, { session }),
    ]);
    expect(results.map((result) => result.success)).toEqual([false, false]);
    expect(session.slice<Notes>('notes').get().shared.owner).toBe('app');
  });

  it('undoes a nested call with its parent, and only the nested one when it alone fails', async () => {
    const { session } = notesSession();
    const inner = (fail: boolean) =>
      tool('inner', (context) => {
        push(context, 'inner');
        return fail ? ToolResult.error('inner failed') : ToolResult.ok(null);
      });
    const outer = (failInner: boolean, failOuter: boolean) =>
      tool('outer', async (context) => {
        push(context, 'outer');
        await invokeTool(inner(failInner), {}, { session: context.session });
        return failOuter ? ToolResult.error('outer failed') : ToolResult.ok(null);
      });
    await invokeTool(outer(false, true), {}, { session });
    expect(session.slice<Notes>('notes').get().items).toEqual([]);
    await invokeTool(outer(true, false), {}, { session });
    expect(session.slice<Notes>('notes').get().items).toEqual(['outer']);
  });

  it('undoes what reducers wrote for events the failing call dispatched, not the ToolInvoked reducers', async () => {
    const { session } = notesSession();
    class Noted {
      constructor(readonly text: string) {}
    }
    const notes = session.slice<Notes>('notes');
    notes.on(Noted, (draft, event) => {
      draft.items.push(event.text);
    });
    notes.on(ToolInvoked, (draft, event) => {
      draft.byCall[event.toolName] = { steps: 1 };
    });
    const failing = tool('failing', async (context) => {
      context.session.dispatch(new Noted('by reducer'));
      await later(1);
      return ToolResult.error('failed');
    });
    await invokeTool(failing, {}, { session });
    expect(notes.get()).toEqual({
      items: [],
      byCall: { failing: { steps: 1 } },
      shared: { owner: 'app' },
    });
  });

  it('never lowers the sensitivity a failing call raised', async () => {
    const { session } = notesSession();
    const failing = tool('failing', (context) => {
      context.session.privateData.add('payroll', 'secret');
      push(context, 'x');
      return ToolResult.error('failed');
    });
    await invokeTool(failing, {}, { session });
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.slice<Notes>('notes').get().items).toEqual([]);
  });

  it('treats a restore inside a call as that call’s write', async () => {
    const { session } = notesSession();
    session.slice<Notes>('notes').update((draft) => {
      draft.items.push('before');
    });
    const failing = tool('failing', (context) => {
      const start = context.session.snapshot();
      push(context, 'scratch');
      context.session.restore(start);
      push(context, 'kept by nobody');
      return ToolResult.error('failed');
    });
    await invokeTool(failing, {}, { session });
    expect(session.slice<Notes>('notes').get().items).toEqual(['before']);
  });

  it('gives back the very value when nothing else wrote the slice', async () => {
    const { session } = notesSession();
    const before = session.slice<Notes>('notes').get();
    await invokeTool(
      tool('failing', (context) => {
        push(context, 'x');
        return ToolResult.error('failed');
      }),
      {},
      { session },
    );
    expect(session.slice<Notes>('notes').get()).toBe(before);
  });
});

interface Plan {
  /** How many append steps the call makes, each after a scheduled pause. */
  readonly appends: number;
  /** How the call ends. */
  readonly outcome: 'ok' | 'error' | 'throw';
  /** Whether it also sets a key of its own (a nested object write). */
  readonly ownKey: boolean;
}

/**
 * Calls `inner` at the top level, or (`nested`) from a caller tool that
 * then ends with `outerOk`, after a scheduled pause.
 */
function invokeMaybeNested(
  inner: Tool<typeof NO_PARAMS>,
  how: { readonly nested: boolean; readonly outerOk: boolean },
  session: Session,
  scheduler: fc.Scheduler,
): Promise<ToolResult> {
  if (!how.nested) return invokeTool(inner, {}, { session });
  const caller = tool(`caller_${inner.name}`, async (context) => {
    await invokeTool(inner, {}, { session: context.session });
    await scheduler.schedule(Promise.resolve(), `${caller.name} end`);
    return how.outerOk ? ToolResult.ok(null) : ToolResult.error('caller failed');
  });
  return invokeTool(caller, {}, { session });
}

const plan: fc.Arbitrary<Plan> = fc.record({
  appends: fc.integer({ min: 0, max: 3 }),
  outcome: fc.constantFrom('ok' as const, 'error' as const, 'throw' as const),
  ownKey: fc.boolean(),
});

describe('per-call rollback, property', () => {
  it('leaves the last write of a successful call in a contested place, or the value before all of them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.record({ ok: fc.boolean(), writes: fc.integer({ min: 1, max: 2 }) }), {
          minLength: 2,
          maxLength: 8,
        }),
        async (scheduler, plans) => {
          const session = new Session({ sessionId: 'contested' });
          const notes = session.slice<Notes>('notes', { initial: INITIAL });
          const writes: { call: number; value: string }[] = [];
          const calls = plans.map((p, index) =>
            invokeTool(
              tool(`w${String(index)}`, async (context) => {
                for (let step = 0; step < p.writes; step += 1) {
                  await scheduler.schedule(
                    Promise.resolve(),
                    `w${String(index)} write ${String(step)}`,
                  );
                  const value = `w${String(index)}.${String(step)}`;
                  writes.push({ call: index, value });
                  context.session.slice<Notes>('notes').update((draft) => {
                    draft.shared.owner = value;
                  });
                }
                await scheduler.schedule(Promise.resolve(), `w${String(index)} end`);
                return p.ok ? ToolResult.ok(null) : ToolResult.error('failed');
              }),
              {},
              { session },
            ),
          );
          await scheduler.waitFor(Promise.all(calls));
          const lastKept = writes.filter((write) => plans[write.call]?.ok === true).at(-1);
          expect(notes.get().shared.owner).toBe(lastKept?.value ?? 'app');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('leaves the last kept write in a contested place when some writers are nested calls', async () => {
    // A nested write is kept only if the nested call and its caller both succeed.
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(
          fc.record({ nested: fc.boolean(), innerOk: fc.boolean(), outerOk: fc.boolean() }),
          { minLength: 2, maxLength: 6 },
        ),
        async (scheduler, plans) => {
          const session = new Session({ sessionId: 'contested-nested' });
          const notes = session.slice<Notes>('notes', { initial: INITIAL });
          const writes: { call: number; value: string }[] = [];
          const write = (index: number) =>
            tool(`w${String(index)}`, async (context) => {
              await scheduler.schedule(Promise.resolve(), `w${String(index)} write`);
              const value = `w${String(index)}`;
              writes.push({ call: index, value });
              context.session.slice<Notes>('notes').update((draft) => {
                draft.shared.owner = value;
              });
              await scheduler.schedule(Promise.resolve(), `w${String(index)} end`);
              return plans[index]!.innerOk ? ToolResult.ok(null) : ToolResult.error('failed');
            });
          const calls = plans.map((p, index) => {
            return invokeMaybeNested(write(index), p, session, scheduler);
          });
          await scheduler.waitFor(Promise.all(calls));
          const kept = (index: number): boolean => {
            const p = plans[index]!;
            return p.innerOk && (!p.nested || p.outerOk);
          };
          const lastKept = writes.filter((entry) => kept(entry.call)).at(-1);
          expect(notes.get().shared.owner).toBe(lastKept?.value ?? 'app');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps exactly the appends of calls whose callers succeeded too, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(
          fc.record({
            appends: fc.integer({ min: 1, max: 2 }),
            nested: fc.boolean(),
            innerOk: fc.boolean(),
            outerOk: fc.boolean(),
          }),
          { minLength: 2, maxLength: 8 },
        ),
        async (scheduler, plans) => {
          const session = new Session({ sessionId: 'appends-nested' });
          const notes = session.slice<Notes>('notes', { initial: INITIAL });
          const appended: string[] = [];
          const appender = (index: number) =>
            tool(`a${String(index)}`, async (context) => {
              for (let step = 0; step < plans[index]!.appends; step += 1) {
                await scheduler.schedule(Promise.resolve(), `a${String(index)} append`);
                const text = `a${String(index)}.${String(step)}`;
                appended.push(text);
                push(context, text);
              }
              await scheduler.schedule(Promise.resolve(), `a${String(index)} end`);
              return plans[index]!.innerOk ? ToolResult.ok(null) : ToolResult.error('failed');
            });
          const calls = plans.map((p, index) => {
            return invokeMaybeNested(appender(index), p, session, scheduler);
          });
          await scheduler.waitFor(Promise.all(calls));
          const kept = (text: string): boolean => {
            const p = plans[Number(text.slice(1).split('.')[0])]!;
            return p.innerOk && (!p.nested || p.outerOk);
          };
          expect(notes.get().items).toEqual(appended.filter(kept));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps an element exactly when a kept write added it and no kept write removed it, with removals too', async () => {
    // Calls (some nested) and application code append, remove their own
    // entry, pop whatever is last, or take out the first entry: removals by
    // one writer of another's elements, undone or not, in any order.
    type Step = 'push' | 'unshift' | 'removeOwn' | 'pop' | 'shift';
    const step = fc.constantFrom<Step>('push', 'unshift', 'removeOwn', 'pop', 'shift');
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(
          fc.record({
            steps: fc.array(step, { minLength: 1, maxLength: 4 }),
            nested: fc.boolean(),
            innerOk: fc.boolean(),
            outerOk: fc.boolean(),
          }),
          { minLength: 2, maxLength: 5 },
        ),
        fc.array(step, { maxLength: 3 }),
        async (scheduler, plans, outside) => {
          const session = new Session({ sessionId: 'removals' });
          const notes = session.slice<Notes>('notes', { initial: INITIAL });
          /** Who added each element, and who removed it (writers by name). */
          const addedBy = new Map<string, string>();
          const removedBy = new Map<string, string[]>();
          const write = (writer: string, what: Step, index: number): void => {
            const text = `${writer}.${String(index)}`;
            notes.update((draft) => {
              const at =
                what === 'pop'
                  ? draft.items.length - 1
                  : what === 'shift'
                    ? 0
                    : draft.items.findIndex((item) => item.startsWith(`${writer}.`));
              if (what === 'push' || what === 'unshift') {
                addedBy.set(text, writer);
                if (what === 'push') draft.items.push(text);
                else draft.items.unshift(text);
              } else if (at >= 0 && at < draft.items.length) {
                const [removed] = draft.items.splice(at, 1);
                removedBy.set(removed!, [...(removedBy.get(removed!) ?? []), writer]);
              }
            });
          };
          const writer = (index: number) =>
            tool(`w${String(index)}`, async () => {
              for (const [n, what] of plans[index]!.steps.entries()) {
                await scheduler.schedule(Promise.resolve(), `w${String(index)} ${what}`);
                write(`w${String(index)}`, what, n);
              }
              await scheduler.schedule(Promise.resolve(), `w${String(index)} end`);
              return plans[index]!.innerOk ? ToolResult.ok(null) : ToolResult.error('failed');
            });
          const calls = plans.map((p, index) =>
            invokeMaybeNested(writer(index), p, session, scheduler),
          );
          const app = outside.map(async (what, n) => {
            await scheduler.schedule(Promise.resolve(), `app ${what}`);
            write('app', what, n);
          });
          await scheduler.waitFor(Promise.all([...calls, ...app]));

          const kept = (name: string): boolean => {
            if (name === 'app') return true;
            const p = plans[Number(name.slice(1))]!;
            return p.innerOk && (!p.nested || p.outerOk);
          };
          const expected = [...addedBy]
            .filter(([text, by]) => kept(by) && !(removedBy.get(text) ?? []).some(kept))
            .map(([text]) => text)
            .sort();
          expect([...notes.get().items].sort()).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves exactly the writes of the successful calls, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(plan, { minLength: 20, maxLength: 28 }),
        async (scheduler, plans) => {
          const session = new Session({ sessionId: 'property' });
          const notes = session.slice<Notes>('notes', { initial: INITIAL });
          const appended: string[] = [];
          const calls = plans.map((p, index) => {
            const id = `c${String(index)}`;
            const handler = async (context: ToolContext): Promise<ToolResult> => {
              const slice = context.session.slice<Notes>('notes');
              for (let step = 0; step < p.appends; step += 1) {
                await scheduler.schedule(Promise.resolve(), `${id} append ${String(step)}`);
                const text = `${id}.${String(step)}`;
                appended.push(text);
                slice.update((draft) => {
                  draft.items.push(text);
                });
              }
              if (p.ownKey) {
                await scheduler.schedule(Promise.resolve(), `${id} key`);
                slice.update((draft) => {
                  draft.byCall[id] = { steps: p.appends };
                });
                slice.update((draft) => {
                  draft.byCall[id]!.steps += 1;
                });
              }
              await scheduler.schedule(Promise.resolve(), `${id} end`);
              if (p.outcome === 'throw') throw new Error(`${id} threw`);
              return p.outcome === 'ok' ? ToolResult.ok(null) : ToolResult.error(`${id} failed`);
            };
            return invokeTool(tool(`t${String(index)}`, handler), {}, { session });
          });
          await scheduler.waitFor(Promise.all(calls));

          const succeeded = new Set(
            plans.flatMap((p, index) => (p.outcome === 'ok' ? [`c${String(index)}`] : [])),
          );
          const expectedItems = appended.filter((text) => succeeded.has(text.split('.')[0]!));
          const expectedKeys = Object.fromEntries(
            plans.flatMap((p, index) =>
              p.outcome === 'ok' && p.ownKey
                ? [[`c${String(index)}`, { steps: p.appends + 1 }] as const]
                : [],
            ),
          );
          expect(notes.get()).toEqual({
            items: expectedItems,
            byCall: expectedKeys,
            shared: { owner: 'app' },
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
