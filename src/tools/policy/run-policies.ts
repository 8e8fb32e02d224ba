/**
 * How `invokeTool` runs a call that has policies: rounds of every `check` in
 * order (the first `deny` ends it), each followed by one approval request for
 * the `ask`s not approved yet, until a round asks nothing new and the session's
 * sensitivity did not change during it; then the handler, then every
 * `onResult` of a success. Everything here runs inside the call's scope, so
 * what a refused or failed call wrote is undone.
 */
import type { z } from 'zod';
import { messageOf } from '../../core/errors.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import { notStartedMessage } from '../cancellation.js';
import { ToolResult } from '../tool-result.js';
import { DATA_SENSITIVITY_LEVELS } from '../../core/sensitivity.js';
import { type Approval, requestApproval } from './approval.js';
import { PolicyDecision } from './policy-decision.js';
import type { PolicyDenial, ToolPolicy } from './tool-policy.js';

/** Which results are denials, and by whom; `ToolInvoked.denial` comes from here. */
const denials = new WeakMap<ToolResult, PolicyDenial>();

/** @internal The denial a result of {@link runWithPolicies} stands for, if it is one. */
export function denialOf(result: ToolResult): PolicyDenial | undefined {
  return denials.get(result);
}

/**
 * @internal Runs `tool.handler` under `policies`. A denial is an error
 * result naming the policy and the reason (see {@link denialOf}), and the
 * handler is not called. The handler's own throws pass through.
 */
export async function runWithPolicies<S extends z.ZodType, R>(
  tool: Tool<S, R>,
  params: z.output<S>,
  context: ToolContext,
  policies: readonly ToolPolicy[],
  approval: Approval | undefined,
): Promise<ToolResult<R | null>> {
  // Policies see every tool alike; only the handler needs its own types.
  const anyTool = tool as unknown as Tool;
  const { privateData } = context.session;
  // Per policy (by its place in the list, as two policies may share a name): the reasons
  // the approver said yes to. Only the same policy asking for the same reason is approved.
  const approved = new Map<number, Set<string>>();
  for (let round = 1; ; round++) {
    const levelAtStart = privateData.sensitivity;
    const outcome = await checkRound(anyTool, params, context, policies, approved);
    if (outcome.kind === 'denied') return outcome.result;
    if (outcome.kind === 'ask') {
      const names = outcome.asks.map((ask) => ask.policy.name).join(', ');
      if (round >= MAX_ROUNDS) return denied(anyTool, names, unsettled(round));
      const reasons = outcome.asks.map(({ policy, reason }) => ({ policy: policy.name, reason }));
      const refusal = await requestApproval(approval, anyTool, params, reasons, context);
      if (refusal !== undefined) return denied(anyTool, names, refusal);
      for (const { index, reason } of outcome.asks) {
        const yes = approved.get(index) ?? new Set<string>();
        yes.add(reason);
        approved.set(index, yes);
      }
      // The wait for an answer can turn an allow into a deny (a parallel call read private
      // data meanwhile): decide again.
      continue;
    }
    // Read with no await between it and the handler's start: a session that escalated
    // during this round (a parallel call read private data while a check or an approval
    // waited) is decided again, so no escalation slips in between the checks and the run.
    if (privateData.sensitivity === levelAtStart) break;
    if (round >= MAX_ROUNDS) {
      return denied(anyTool, policies.map((policy) => policy.name).join(', '), unsettled(round));
    }
  }

  // The checks and the approval may have waited: a call cancelled meanwhile does not start.
  if (context.signal.aborted) return ToolResult.error(notStartedMessage(tool.name, context.signal));
  const result = await tool.handler(params, context);
  if (!ToolResult.is(result) || !result.success) return result;
  for (const policy of policies) {
    if (policy.onResult === undefined) continue;
    try {
      await policy.onResult(anyTool, params, result, context);
    } catch (error) {
      return ToolResult.error(
        `tool "${tool.name}" ran, but policy "${policy.name}" failed to take note of its result: ${messageOf(error)}`,
      );
    }
  }
  return result;
}

/**
 * How many rounds of checks a call may take before it is denied. A round is
 * repeated after the approver said yes to new asks, or when the session's
 * sensitivity rose during it; with checks that depend on the level alone that
 * is at most two rounds per level (one that asks, one that confirms). Checks
 * that keep asking anew (a reason with a clock in it) are denied, not run.
 */
const MAX_ROUNDS = 2 * DATA_SENSITIVITY_LEVELS.length;

/** An `ask` the approver has not yet said yes to, and the policy's place in the list. */
interface NewAsk {
  readonly index: number;
  readonly policy: ToolPolicy;
  readonly reason: string;
}

type RoundOutcome =
  | { readonly kind: 'denied'; readonly result: ToolResult<null> }
  | { readonly kind: 'ask'; readonly asks: readonly NewAsk[] }
  | { readonly kind: 'allowed' };

/**
 * One round: every check in order, the first `deny` ending it. An `ask` the
 * approver already approved for that policy, with that reason, counts as
 * allowed; any other (a policy asking for the first time, or for a new
 * reason) must go to the approver.
 */
async function checkRound(
  tool: Tool,
  params: unknown,
  context: ToolContext,
  policies: readonly ToolPolicy[],
  approved: ReadonlyMap<number, ReadonlySet<string>>,
): Promise<RoundOutcome> {
  const asks: NewAsk[] = [];
  for (const [index, policy] of policies.entries()) {
    const decision = await decide(policy, tool, params, context);
    if (decision.kind === 'deny') {
      return { kind: 'denied', result: denied(tool, policy.name, decision.reason) };
    }
    if (decision.kind === 'ask' && approved.get(index)?.has(decision.reason) !== true) {
      asks.push({ index, policy, reason: decision.reason });
    }
  }
  return asks.length > 0 ? { kind: 'ask', asks } : { kind: 'allowed' };
}

function unsettled(rounds: number): string {
  return `the policies' decisions kept changing over ${rounds} rounds of checks (new asks, or the session's sensitivity rising), so the call was not run`;
}

/** A policy's decision; a throw or a value that is not a decision denies (fail closed). */
async function decide(
  policy: ToolPolicy,
  tool: Tool,
  params: unknown,
  context: ToolContext,
): Promise<PolicyDecision> {
  let decision: unknown;
  try {
    decision = await policy.check(tool, params, context);
  } catch (error) {
    return PolicyDecision.deny(`the policy failed: ${messageOf(error)}`);
  }
  if (PolicyDecision.is(decision)) return decision;
  return PolicyDecision.deny(
    `the policy's check returned ${decision === null ? 'null' : typeof decision}, not a PolicyDecision`,
  );
}

function denied(tool: Tool, policy: string, reason: string): ToolResult<null> {
  const result = ToolResult.error(
    `tool "${tool.name}" was denied by policy "${policy}": ${reason}`,
  );
  denials.set(result, Object.freeze({ policy, reason }));
  return result;
}
