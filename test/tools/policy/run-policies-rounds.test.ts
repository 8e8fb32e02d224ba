/**
 * The rounds of checks of a call under policies: a round that asked, or
 * during which the session escalated, is followed by another, and an `ask`
 * counts as approved only when the approver said yes to that policy asking
 * for that reason. The handler starts only after a round that asked nothing
 * new and saw no escalation.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  PolicyDecision,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  denyAfterEscalation,
  invokeTool,
  requireApproval,
  type ApprovalRequest,
  type DataSensitivity,
  type ToolPolicy,
} from '../../../src/index.js';

/** A tool `transfer` that notes each run and the session's level when it started. */
function transferTool(runs: string[]): Tool {
  return Tool.create({
    name: 'transfer',
    description: 'Sends money',
    params: z.object({ amount: z.number() }),
    handler: (_params, context) => {
      runs.push(context.session.privateData.sensitivity);
      return ToolResult.ok('sent');
    },
  });
}

/** A check that counts its rounds and answers `decide(round)`, round 1 first. */
function byRound(
  name: string,
  decide: (round: number) => PolicyDecision | Promise<PolicyDecision>,
): ToolPolicy {
  let round = 0;
  return { name, check: () => decide(++round) };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('invokeTool: rounds of checks', () => {
  it('denies an ask that first appears after the session escalated during the first round, when there is no approval handler', async () => {
    const session = new Session();
    const runs: string[] = [];
    const events: ToolInvoked[] = [];
    session.bus.subscribe(ToolInvoked, (event) => events.push(event));
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          requireApproval({
            when: (_params, _tool, context) => context.session.privateData.hasPrivateData,
            reason: 'a transfer after customer data was read needs a person',
          }),
          // A slow check (a rate-limit lookup); meanwhile a parallel call reads customer data.
          {
            name: 'rate-limit',
            check: async () => {
              await tick();
              session.privateData.add('customers', 'confidential');
              return PolicyDecision.allow();
            },
          },
        ],
      },
    );
    expect(result.message).toMatch(
      /^tool "transfer" was denied by policy "require-approval": approval is needed \(a transfer after customer data was read needs a person\) but the call was made without an approval handler/,
    );
    expect(runs).toEqual([]);
    expect(events[0]!.denial?.policy).toBe('require-approval');
  });

  it('sends an ask that first appears in a later round to the approver, and denies when it refuses', async () => {
    const session = new Session();
    const runs: string[] = [];
    const asked: ApprovalRequest[] = [];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          byRound('limits', () => PolicyDecision.ask('over the daily limit')),
          byRound('fraud', (round) =>
            round === 1 ? PolicyDecision.allow() : PolicyDecision.ask('the payee is new'),
          ),
        ],
        approval: (request) => {
          asked.push(request);
          return asked.length === 1 ? 'approve' : { deny: 'not to a new payee' };
        },
      },
    );
    expect(asked.map((request) => request.reasons)).toEqual([
      [{ policy: 'limits', reason: 'over the daily limit' }],
      // The approved ask is not asked again; only the new one is.
      [{ policy: 'fraud', reason: 'the payee is new' }],
    ]);
    expect(result.message).toBe(
      'tool "transfer" was denied by policy "fraud": approval was refused: not to a new payee',
    );
    expect(runs).toEqual([]);
  });

  it('tracks approvals per policy, not by how many asked: a different policy asking is asked about', async () => {
    const session = new Session();
    const runs: string[] = [];
    const asked: ApprovalRequest[] = [];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          byRound('first', (round) =>
            round === 1 ? PolicyDecision.ask('needs a look') : PolicyDecision.allow(),
          ),
          // Same name and reason as the first, but another policy: its ask is its own.
          byRound('first', (round) =>
            round === 1 ? PolicyDecision.allow() : PolicyDecision.ask('needs a look'),
          ),
        ],
        approval: (request) => {
          asked.push(request);
          return asked.length === 1 ? 'approve' : 'deny';
        },
      },
    );
    expect(asked).toHaveLength(2);
    expect(result.message).toBe(
      'tool "transfer" was denied by policy "first": approval was refused',
    );
    expect(runs).toEqual([]);
  });

  it('asks again when a policy that was approved asks for another reason', async () => {
    const session = new Session();
    const runs: string[] = [];
    const asked: string[] = [];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          byRound('limits', (round) =>
            PolicyDecision.ask(round === 1 ? 'over 100 EUR' : 'over 10 000 EUR'),
          ),
        ],
        approval: (request) => {
          asked.push(request.reason);
          return 'approve';
        },
      },
    );
    expect(asked).toEqual(['over 100 EUR', 'over 10 000 EUR']);
    expect(result.success).toBe(true);
    expect(runs).toEqual(['public']);
  });

  it('does not ask twice about an ask it approved', async () => {
    const session = new Session();
    const runs: string[] = [];
    let asked = 0;
    const checks: number[] = [];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          byRound('limits', (round) => {
            checks.push(round);
            return PolicyDecision.ask('over 100 EUR');
          }),
        ],
        approval: () => {
          asked += 1;
          return 'approve';
        },
      },
    );
    expect(result.success).toBe(true);
    expect(asked).toBe(1);
    expect(checks).toEqual([1, 2]);
  });

  it('refuses a call whose session escalated during the second round (an async `when` waited)', async () => {
    const session = new Session();
    const runs: string[] = [];
    let whens = 0;
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          denyAfterEscalation({ at: 'internal' }),
          requireApproval({
            when: async () => {
              whens += 1;
              await tick();
              // A parallel call reads customer data while the second round's lookup waits.
              if (whens === 2) session.privateData.add('customers', 'confidential');
              return true;
            },
          }),
        ],
        approval: () => 'approve',
      },
    );
    expect(result.message).toMatch(
      /^tool "transfer" was denied by policy "deny-after-escalation": the session holds confidential data/,
    );
    expect(runs).toEqual([]);
  });

  it('checks again after every round the session escalated in, until a round sees none', async () => {
    const session = new Session();
    const runs: string[] = [];
    const levels: DataSensitivity[] = ['internal', 'confidential', 'secret'];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          denyAfterEscalation({ at: 'secret' }),
          // Each round waits, and meanwhile the session rises one more level.
          byRound('slow', async (round) => {
            await tick();
            const level = levels[round - 1];
            if (level !== undefined) session.privateData.add(`data-${round}`, level);
            return PolicyDecision.allow();
          }),
        ],
      },
    );
    expect(result.message).toMatch(
      /^tool "transfer" was denied by policy "deny-after-escalation": the session holds secret data/,
    );
    expect(runs).toEqual([]);
  });

  it('runs the handler at the level its last round checked', async () => {
    const session = new Session();
    const runs: string[] = [];
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [
          denyAfterEscalation({ at: 'confidential' }),
          byRound('slow', async (round) => {
            await tick();
            if (round === 1) session.privateData.add('staff', 'internal');
            return PolicyDecision.allow();
          }),
        ],
      },
    );
    expect(result.success).toBe(true);
    expect(runs).toEqual(['internal']);
  });

  it('denies, not runs, a call whose policies keep asking anew', async () => {
    const session = new Session();
    const runs: string[] = [];
    let asked = 0;
    const result = await invokeTool(
      transferTool(runs),
      { amount: 500 },
      {
        session,
        policies: [byRound('clock', (round) => PolicyDecision.ask(`asked at tick ${round}`))],
        approval: () => {
          asked += 1;
          return 'approve';
        },
      },
    );
    expect(result.message).toBe(
      `tool "transfer" was denied by policy "clock": the policies' decisions kept changing over 8 rounds of checks (new asks, or the session's sensitivity rising), so the call was not run`,
    );
    expect(asked).toBe(7);
    expect(runs).toEqual([]);
  });
});
