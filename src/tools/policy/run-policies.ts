/**
 * How `invokeTool` runs a call that has policies: every `check` in order
 * (the first `deny` ends it), then one approval request for the `ask`s, then
 * the handler, then every `onResult` of a success. Everything here runs
 * inside the call's scope, so what a refused or failed call wrote is undone.
 */
import type { z } from 'zod';
import { messageOf } from '../../core/errors.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import { notStartedMessage } from '../cancellation.js';
import { ToolResult } from '../tool-result.js';
import { type PolicyReason, type Approval, requestApproval } from './approval.js';
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
  const levelBefore = context.session.privateData.sensitivity;
  const asks: PolicyReason[] = [];
  for (const policy of policies) {
    const decision = await decide(policy, anyTool, params, context);
    if (decision.kind === 'deny') return denied(anyTool, policy.name, decision.reason);
    if (decision.kind === 'ask') asks.push({ policy: policy.name, reason: decision.reason });
  }
  if (asks.length > 0) {
    const refusal = await requestApproval(approval, anyTool, params, asks, context);
    if (refusal !== undefined) {
      return denied(anyTool, asks.map((ask) => ask.policy).join(', '), refusal);
    }
  }
  // A wait for approval, or a session that escalated while the checks ran (a parallel
  // call read private data), can turn an allow into a deny: decide again, asks approved.
  if (asks.length > 0 || context.session.privateData.sensitivity !== levelBefore) {
    for (const policy of policies) {
      const decision = await decide(policy, anyTool, params, context);
      if (decision.kind === 'deny') return denied(anyTool, policy.name, decision.reason);
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
