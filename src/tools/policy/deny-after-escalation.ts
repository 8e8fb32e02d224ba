/**
 * `denyAfterEscalation`: once the session holds data at a given
 * sensitivity, the tools it covers are refused. It adds to the isolation
 * ratchet (which blocks network-capable MCP tools on its own); it cannot
 * take anything away from it, since the ratchet decides inside the bridged
 * tool, after every policy has allowed the call.
 */
import { PromptValidationError } from '../../core/errors.js';
import {
  DATA_SENSITIVITY_LEVELS,
  type DataSensitivity,
  atLeast,
  isDataSensitivity,
} from '../../core/sensitivity.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import { PolicyDecision } from './policy-decision.js';
import { checkPolicyName, type ToolPolicy } from './tool-policy.js';
import { type ToolSelector, toolMatcher } from './tool-selector.js';

/** Options of {@link denyAfterEscalation}. */
export interface DenyAfterEscalationOptions {
  /**
   * The tools it covers: names (offered, or an MCP tool's own name) or a
   * predicate. @default every tool the policy is attached to
   */
  readonly tools?: ToolSelector;
  /** The session sensitivity from which they are refused. @default 'internal' (any private data) */
  readonly at?: DataSensitivity;
  /** @default 'deny-after-escalation' */
  readonly name?: string;
}

/**
 * A policy that refuses the covered tools once `session.privateData`
 * reaches `at` (after merging what other processes stored for the session,
 * when it has a store). The level only rises, so once refused, always refused.
 *
 * @throws PromptValidationError for a bad name, level or tool list.
 * @example
 * denyAfterEscalation({ tools: ['send_email', 'post_webhook'], at: 'confidential' })
 */
export function denyAfterEscalation(options: DenyAfterEscalationOptions = {}): ToolPolicy {
  const name = options.name ?? 'deny-after-escalation';
  checkPolicyName(name, 'denyAfterEscalation');
  const at = options.at ?? 'internal';
  if (!isDataSensitivity(at)) {
    throw new PromptValidationError(
      `denyAfterEscalation "${name}": at ${JSON.stringify(at)} must be one of ${DATA_SENSITIVITY_LEVELS.join(', ')}`,
    );
  }
  const covers = toolMatcher(options.tools, `denyAfterEscalation "${name}": tools`);
  return Object.freeze({
    name,
    async check(tool: Tool, _params: unknown, context: ToolContext): Promise<PolicyDecision> {
      if (!covers(tool)) return PolicyDecision.allow();
      const { session } = context;
      // Escalations other processes stored for this session count too; a
      // store that cannot be read fails the check, which denies.
      if (session.store !== undefined) await session.syncFromStore({ signal: context.signal });
      const level = session.privateData.sensitivity;
      if (!atLeast(level, at)) return PolicyDecision.allow();
      return PolicyDecision.deny(
        `the session holds ${level} data (at or above "${at}"), and tool "${tool.name}" may not run after that`,
      );
    },
  });
}
