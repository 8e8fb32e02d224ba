/**
 * How invokeTool runs a call under policies: after argument validation,
 * in order, the first deny ends it, asks go to one approval request,
 * onResult after a success only, all inside the call's rollback scope,
 * and ToolInvoked says which policy refused.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PolicyDecision,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  invokeTool,
  type ApprovalRequest,
  type Slice,
  type ToolPolicy,
} from '../../../src/index.js';

interface Log {
  readonly lines: readonly string[];
}

interface Fixture {
  readonly session: Session;
  readonly log: Slice<Log>;
  readonly events: ToolInvoked[];
  /** Parsed params of every handler run, in order. */
  readonly runs: unknown[];
  readonly tool: Tool;
}

/** A tool `append` that writes its text to the `log` slice and fails when told to. */
function fixture(): Fixture {
  const session = new Session({ sessionId: 'policy-session' });
  const log = session.slice<Log>('log', { initial: { lines: [] } });
  const events: ToolInvoked[] = [];
  session.bus.subscribe(ToolInvoked, (event) => events.push(event));
  const runs: unknown[] = [];
  const tool = Tool.create({
    name: 'append',
    description: 'Appends a line',
    params: z.object({ text: z.string(), fail: z.boolean().default(false) }),
    handler: (params, context) => {
      runs.push(params);
      context.session.slice<Log>('log').update((draft) => {
        draft.lines.push(params.text);
      });
      return params.fail ? ToolResult.error('append failed') : ToolResult.ok(params.text);
    },
  });
  return { session, log, events, runs, tool };
}

/** A policy that records its calls and answers `decide(params)`. */
function recording(
  name: string,
  decide: (params: unknown) => PolicyDecision | Promise<PolicyDecision>,
  seen: string[],
): ToolPolicy {
  return {
    name,
    check: (_tool, params) => {
      seen.push(`${name}.check`);
      return decide(params);
    },
    onResult: () => {
      seen.push(`${name}.onResult`);
    },
  };
}

describe('invokeTool with policies', () => {
  it('checks the parsed params (defaults applied), in order, then runs the handler, then onResult', async () => {
    const { session, tool, runs } = fixture();
    const seen: string[] = [];
    const params: unknown[] = [];
    const policies = [
      recording(
        'first',
        (p) => {
          params.push(p);
          return PolicyDecision.allow();
        },
        seen,
      ),
      recording('second', () => PolicyDecision.allow(), seen),
    ];

    const result = await invokeTool(tool, { text: 'hi' }, { session, policies });

    expect(result).toMatchObject({ success: true, value: 'hi' });
    expect(params).toEqual([{ text: 'hi', fail: false }]);
    expect(runs).toEqual([{ text: 'hi', fail: false }]);
    expect(seen).toEqual(['first.check', 'second.check', 'first.onResult', 'second.onResult']);
  });

  it('never runs a policy for arguments that do not validate', async () => {
    const { session, tool } = fixture();
    const seen: string[] = [];
    const result = await invokeTool(
      tool,
      { text: 7 },
      { session, policies: [recording('p', () => PolicyDecision.deny('no'), seen)] },
    );
    expect(result.message).toMatch(/^invalid arguments for tool "append": text: /);
    expect(seen).toEqual([]);
  });

  it('a deny stops at once: later policies, the handler and onResult do not run', async () => {
    const { session, tool, runs, log, events } = fixture();
    const seen: string[] = [];
    const policies = [
      recording('allows', () => PolicyDecision.allow(), seen),
      recording('refuses', () => PolicyDecision.deny('lines are read-only today'), seen),
      recording('later', () => PolicyDecision.allow(), seen),
    ];

    const result = await invokeTool(tool, { text: 'x' }, { session, policies });

    expect(result).toMatchObject({
      success: false,
      value: null,
      message: 'tool "append" was denied by policy "refuses": lines are read-only today',
    });
    expect(seen).toEqual(['allows.check', 'refuses.check']);
    expect(runs).toEqual([]);
    expect(log.get().lines).toEqual([]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      toolName: 'append',
      params: { text: 'x', fail: false },
      result,
      denial: { policy: 'refuses', reason: 'lines are read-only today' },
    });
  });

  it('a deny wins over an ask: the approval handler is not asked', async () => {
    const { session, tool } = fixture();
    const asked: ApprovalRequest[] = [];
    const result = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [
          { name: 'asks', check: () => PolicyDecision.ask('a person should look') },
          { name: 'refuses', check: () => PolicyDecision.deny('never') },
        ],
        approval: (request) => {
          asked.push(request);
          return 'approve';
        },
      },
    );
    expect(result.message).toBe('tool "append" was denied by policy "refuses": never');
    expect(asked).toEqual([]);
  });

  it('several asks make one approval request with every reason', async () => {
    const { session, tool, runs } = fixture();
    const asked: ApprovalRequest[] = [];
    const result = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [
          { name: 'cost', check: () => PolicyDecision.ask('it costs money') },
          { name: 'audit', check: () => PolicyDecision.ask('it is audited') },
        ],
        approval: (request) => {
          asked.push(request);
          return 'approve';
        },
      },
    );
    expect(result.success).toBe(true);
    expect(runs).toHaveLength(1);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      toolName: 'append',
      reasons: [
        { policy: 'cost', reason: 'it costs money' },
        { policy: 'audit', reason: 'it is audited' },
      ],
      reason: 'it costs money; it is audited',
      sessionId: 'policy-session',
      callId: expect.any(String) as string,
    });
  });

  it('a refused approval is a denial by the asking policies', async () => {
    const { session, tool, runs, events } = fixture();
    const result = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [
          { name: 'cost', check: () => PolicyDecision.ask('it costs money') },
          { name: 'audit', check: () => PolicyDecision.ask('it is audited') },
        ],
        approval: () => ({ deny: 'over budget' }),
      },
    );
    expect(result.message).toBe(
      'tool "append" was denied by policy "cost, audit": approval was refused: over budget',
    );
    expect(runs).toEqual([]);
    expect(events[0]!.denial).toEqual({
      policy: 'cost, audit',
      reason: 'approval was refused: over budget',
    });
  });

  it('fails closed when a check throws or returns something else', async () => {
    const { session, tool, runs } = fixture();
    const throwing = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [
          {
            name: 'broken',
            check: () => {
              throw new Error('rules file missing');
            },
          },
        ],
      },
    );
    expect(throwing.message).toBe(
      'tool "append" was denied by policy "broken": the policy failed: rules file missing',
    );
    const odd = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [{ name: 'odd', check: () => true as unknown as PolicyDecision }],
      },
    );
    expect(odd.message).toBe(
      `tool "append" was denied by policy "odd": the policy's check returned boolean, not a PolicyDecision`,
    );
    const rejected = await invokeTool(
      tool,
      { text: 'x' },
      {
        session,
        policies: [{ name: 'late', check: () => Promise.reject(new Error('lookup timed out')) }],
      },
    );
    expect(rejected.message).toBe(
      'tool "append" was denied by policy "late": the policy failed: lookup timed out',
    );
    expect(runs).toEqual([]);
  });

  it('undoes what a check wrote when the call is denied, keeps it when the call succeeds', async () => {
    const { session, tool } = fixture();
    const counter = session.slice('checks', { initial: { n: 0 } });
    const counting = (decision: PolicyDecision): ToolPolicy => ({
      name: 'counting',
      check: (_tool, _params, context) => {
        context.session.slice<{ n: number }>('checks').update((draft) => {
          draft.n += 1;
        });
        return decision;
      },
    });
    await invokeTool(
      tool,
      { text: 'x' },
      { session, policies: [counting(PolicyDecision.deny('no'))] },
    );
    expect(counter.get().n).toBe(0);
    await invokeTool(
      tool,
      { text: 'x' },
      { session, policies: [counting(PolicyDecision.allow())] },
    );
    expect(counter.get().n).toBe(1);
  });

  describe('onResult', () => {
    it('runs only after a success; its writes are the call’s own', async () => {
      const { session, tool } = fixture();
      const noted = session.slice<{ texts: string[] }>('noted', { initial: { texts: [] } });
      const noting: ToolPolicy = {
        name: 'noting',
        check: () => PolicyDecision.allow(),
        onResult: (_tool, params, result, context) => {
          expect(result.success).toBe(true);
          context.session.slice<{ texts: string[] }>('noted').update((draft) => {
            draft.texts.push((params as { text: string }).text);
          });
        },
      };
      await invokeTool(tool, { text: 'kept' }, { session, policies: [noting] });
      await invokeTool(tool, { text: 'failed', fail: true }, { session, policies: [noting] });
      expect(noted.get().texts).toEqual(['kept']);
    });

    it('a throw turns the call into a failure naming the policy, and rolls the call back', async () => {
      const { session, tool, log, runs } = fixture();
      const later: string[] = [];
      const result = await invokeTool(
        tool,
        { text: 'x' },
        {
          session,
          policies: [
            {
              name: 'ledger',
              check: () => PolicyDecision.allow(),
              onResult: async () => {
                await Promise.resolve();
                throw new Error('ledger is full');
              },
            },
            {
              name: 'after',
              check: () => PolicyDecision.allow(),
              onResult: () => {
                later.push('after');
              },
            },
          ],
        },
      );
      expect(runs).toHaveLength(1);
      expect(result).toMatchObject({
        success: false,
        message:
          'tool "append" ran, but policy "ledger" failed to take note of its result: ledger is full',
      });
      expect(log.get().lines).toEqual([]);
      expect(later).toEqual([]);
    });
  });

  it('publishes no denial for a call the policies allowed, even when it failed', async () => {
    const { session, tool, events } = fixture();
    await invokeTool(
      tool,
      { text: 'x', fail: true },
      { session, policies: [{ name: 'ok', check: () => PolicyDecision.allow() }] },
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.result.message).toBe('append failed');
    expect(events[0]!.denial).toBeUndefined();
  });

  it('an empty policy list is the same as none', async () => {
    const { session, tool, runs } = fixture();
    const result = await invokeTool(tool, { text: 'x' }, { session, policies: [] });
    expect(result.success).toBe(true);
    expect(runs).toHaveLength(1);
  });
});
