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

  it('undoes a failed call whose later overwriter was itself rolled back', async () => {
    const { session } = notesSession();
    const first = tool('first', async (context) => {
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'first';
      });
      await later(30);
      return ToolResult.error('first failed');
    });
    const second = tool('second', async (context) => {
      await later(5);
      context.session.slice<Notes>('notes').update((draft) => {
        draft.shared.owner = 'second';
      });
      await later(5);
      return ToolResult.error('second failed');
    });
    await Promise.all([invokeTool(first, {}, { session }), invokeTool(second, {}, { session })]);
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

const plan: fc.Arbitrary<Plan> = fc.record({
  appends: fc.integer({ min: 0, max: 3 }),
  outcome: fc.constantFrom('ok' as const, 'error' as const, 'throw' as const),
  ownKey: fc.boolean(),
});

describe('per-call rollback, property', () => {
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
