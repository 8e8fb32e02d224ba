/**
 * Per-call rollback of two calls that both added to one array nested in an
 * array element (a conversation's `messages`, a row of a matrix, a row's
 * `meta.tags`), in every order of their outcomes: the failed calls' values
 * go, the committed ones stay, and no conflict is reported, since nobody
 * else wrote there. The undo of the call that failed first edited the
 * array; taken for a replacement of it, the second call's undo gave up
 * and left its value in place for good.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  invokeTool,
  RollbackConflict,
  Session,
  Tool,
  ToolResult,
  type CallScope,
} from '../../src/index.js';

type Outcome = 'commit' | 'rollback';

/** Ends `first`, then `second`, as `outcomes` say; returns the conflicts both reported. */
function end(
  [first, second]: readonly [CallScope, CallScope],
  outcomes: readonly [Outcome, Outcome],
): unknown[] {
  const conflicts: unknown[] = [];
  for (const [scope, outcome] of [
    [first, outcomes[0]],
    [second, outcomes[1]],
  ] as const) {
    if (outcome === 'commit') scope.commit();
    else conflicts.push(...scope.rollback());
  }
  return conflicts;
}

const ORDERS = [
  ['older', 'newer'],
  ['newer', 'older'],
] as const;
const OUTCOMES: readonly (readonly [Outcome, Outcome])[] = [
  ['rollback', 'rollback'],
  ['rollback', 'commit'],
  ['commit', 'rollback'],
];

describe('rollback of two calls that added to one nested array', () => {
  for (const [firstEnded] of ORDERS) {
    for (const outcomes of OUTCOMES) {
      for (const op of ['push', 'unshift'] as const) {
        for (const objects of [false, true]) {
          it(`rows[i].thread, ${op} of ${objects ? 'objects' : 'strings'}: the ${firstEnded} call ends first, ${outcomes.join(' then ')}`, () => {
            const session = new Session();
            const table = session.slice<{ rows: { id: string; thread: unknown[] }[] }>('t', {
              initial: {
                rows: [
                  { id: 'r0', thread: [] },
                  { id: 'r1', thread: ['kept'] },
                ],
              },
            });
            const message = (text: string): unknown => (objects ? { text } : text);
            const older = session.beginCall({ callId: 'older', toolName: 'older' });
            const newer = session.beginCall({ callId: 'newer', toolName: 'newer' });
            older.run(() => table.update((draft) => void draft.rows[1]!.thread[op](message('o'))));
            newer.run(() => table.update((draft) => void draft.rows[1]!.thread[op](message('n'))));
            const scopes =
              firstEnded === 'older' ? ([older, newer] as const) : ([newer, older] as const);
            const conflicts = end(scopes, outcomes);
            const committed = new Set(
              [firstEnded, firstEnded === 'older' ? 'newer' : 'older'].filter(
                (_, index) => outcomes[index] === 'commit',
              ),
            );
            const left = table
              .get()
              .rows[1]!.thread.map((entry) =>
                typeof entry === 'string' ? entry : (entry as { text: string }).text,
              )
              .filter((text) => text !== 'kept')
              .sort();
            const expected = [
              ...(committed.has('older') ? ['o'] : []),
              ...(committed.has('newer') ? ['n'] : []),
            ].sort();
            expect(left).toEqual(expected);
            expect(table.get().rows[1]!.thread).toContain('kept');
            expect(conflicts).toEqual([]);
          });
        }
      }
    }
  }

  it('a row of a matrix (an array element that is itself an array) and a member of a member', () => {
    const session = new Session();
    const grid = session.slice<{ cells: string[][]; rows: { meta: { tags: string[] } }[] }>(
      'grid',
      { initial: { cells: [[], ['x']], rows: [{ meta: { tags: ['t'] } }] } },
    );
    const older = session.beginCall({ callId: 'older', toolName: 'older' });
    const newer = session.beginCall({ callId: 'newer', toolName: 'newer' });
    for (const [scope, value] of [
      [older, 'o'],
      [newer, 'n'],
    ] as const) {
      scope.run(() =>
        grid.update((draft) => {
          draft.cells[1]!.push(value);
          draft.rows[0]!.meta.tags.unshift(value);
        }),
      );
    }
    expect([...older.rollback(), ...newer.rollback()]).toEqual([]);
    expect(grid.get()).toEqual({ cells: [[], ['x']], rows: [{ meta: { tags: ['t'] } }] });
  });

  it('through invokeTool, in any interleaving of two calls that post and fail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.constantFrom(...OUTCOMES), async (s, outcomes) => {
        const session = new Session();
        const chats = session.slice<{ convs: { id: string; messages: string[] }[] }>('chats', {
          initial: {
            convs: [
              { id: 'c0', messages: [] },
              { id: 'c1', messages: ['hello'] },
            ],
          },
        });
        const conflicts: unknown[] = [];
        session.bus.subscribe(RollbackConflict, (event) => conflicts.push(event.conflicts));
        const post = Tool.create({
          name: 'post',
          description: 'Posts a message, then succeeds or fails.',
          params: z.object({ text: z.string(), fails: z.boolean() }),
          handler: async ({ text, fails }) => {
            await s.schedule(Promise.resolve(`${text} writes`));
            chats.update((draft) => void draft.convs[1]!.messages.push(text));
            await s.schedule(Promise.resolve(`${text} ends`));
            return fails ? ToolResult.error(`${text} failed`) : ToolResult.ok(null, 'posted');
          },
        });
        const calls = (['one', 'two'] as const).map((text, index) =>
          invokeTool(post, { text, fails: outcomes[index] === 'rollback' }, { session }),
        );
        await s.waitAll();
        await Promise.all(calls);
        const posted = ['one', 'two'].filter((_, index) => outcomes[index] === 'commit');
        expect(chats.get().convs[1]!.messages.slice(1).sort()).toEqual(posted);
        expect(conflicts).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('rollback of a row of a matrix that a call copied and moved', () => {
  it('leaves no second copy of the row, and a committed removal from it stands', () => {
    const session = new Session();
    const grid = session.slice<{ m: string[][] }>('grid', {
      initial: { m: [['S0'], ['S1'], ['S2']] },
    });
    const committed = session.beginCall({ callId: 'B', toolName: 'b' });
    const failed = session.beginCall({ callId: 'A', toolName: 'a' });
    committed.run(() => grid.update((draft) => void (draft.m[1] = [...draft.m[1]!, 'B0'])));
    failed.run(() =>
      grid.update((draft) => {
        draft.m[1] = [...draft.m[1]!];
        draft.m.unshift(draft.m.splice(1, 1)[0]!);
      }),
    );
    committed.run(() =>
      grid.update((draft) => void draft.m[0]!.splice(draft.m[0]!.indexOf('B0'), 1)),
    );
    failed.rollback();
    committed.commit();
    const cells = grid.get().m.flat();
    expect(cells.filter((cell) => cell === 'S1')).toEqual(['S1']);
    expect(cells).not.toContain('B0');
  });
});

describe('rollback when a failed call replaced the member array another failed call pushed into', () => {
  for (const add of [false, true]) {
    for (const application of ['none', 'reverse', 'push'] as const) {
      for (const order of ['pusher first', 'replacer first'] as const) {
        it(`takes out both calls' entries (${add ? 'the copy adds one' : 'a plain copy'}, application ${application}, ${order})`, () => {
          const session = new Session();
          const table = session.slice<{ rows: { id: string; items: string[] }[] }>('t', {
            initial: { rows: [{ id: 'r0', items: ['x'] }] },
          });
          const pusher = session.beginCall({ callId: 'C', toolName: 'c' });
          const replacer = session.beginCall({ callId: 'A', toolName: 'a' });
          pusher.run(() => table.update((draft) => void draft.rows[0]!.items.push('C0')));
          replacer.run(() =>
            table.update((draft) => {
              const row = draft.rows[0]!;
              row.items = add ? [...row.items, 'A1'] : [...row.items];
            }),
          );
          if (application === 'reverse')
            table.update((draft) => void draft.rows[0]!.items.reverse());
          if (application === 'push')
            table.update((draft) => void draft.rows[0]!.items.push('app'));
          const scopes = order === 'pusher first' ? [pusher, replacer] : [replacer, pusher];
          for (const scope of scopes) scope.rollback();
          const items = table.get().rows[0]!.items;
          expect([...items].sort()).toEqual(application === 'push' ? ['app', 'x'] : ['x']);
        });
      }
    }
  }
});
