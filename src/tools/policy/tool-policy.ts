/**
 * The `ToolPolicy` contract, and the check that a list of policies given to
 * a section or a template is one.
 */
import { PromptValidationError } from '../../core/errors.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import type { ToolResult } from '../tool-result.js';
import type { PolicyDecision } from './policy-decision.js';

/** Policy names: the rule of section keys, `^[a-z0-9][a-z0-9._-]{0,63}$`. */
export const POLICY_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * A rule about tool calls, declared on a section (for its tools) or a
 * template (for every tool), enforced by `invokeTool` after the arguments
 * are validated and before the handler runs. See docs/policies.md.
 *
 * @example
 * const noFriday: ToolPolicy = {
 *   name: 'no-friday-deploys',
 *   check: (tool) => tool.name === 'deploy' && new Date().getDay() === 5
 *     ? PolicyDecision.deny('no deploys on Friday') : PolicyDecision.allow(),
 * };
 */
export interface ToolPolicy {
  /** Names the policy in denials, approval requests and `ToolInvoked.denial`; `^[a-z0-9][a-z0-9._-]{0,63}$`. */
  readonly name: string;
  /**
   * Decides about one call, given the parsed params. It runs inside the
   * call's scope: slice writes it makes are undone when the call is denied
   * or fails. A throw or a value that is not a `PolicyDecision` denies the
   * call (fail closed). It runs a second time after an approval, or when the
   * session escalated while the checks ran, so it should be free of effects
   * that must not happen twice.
   */
  check(
    tool: Tool,
    params: unknown,
    context: ToolContext,
  ): PolicyDecision | Promise<PolicyDecision>;
  /**
   * Runs after the handler succeeded, before the call is committed: its
   * slice writes are the call's own (kept with it, undone if a later policy
   * fails it). It cannot veto or change the result; a throw turns the call
   * into a failure naming the policy, and the session is rolled back.
   */
  onResult?(
    tool: Tool,
    params: unknown,
    result: ToolResult,
    context: ToolContext,
  ): void | Promise<void>;
}

/** Which policy refused a call, and why (also `ToolInvoked.denial`). */
export interface PolicyDenial {
  /** The refusing policy's name; for a refused approval, the names of the policies that asked. */
  readonly policy: string;
  readonly reason: string;
}

/**
 * A frozen copy of `value` after checking that it is a list of policies.
 * @throws PromptValidationError naming `owner` and the bad entry.
 */
export function checkToolPolicies(value: unknown, owner: string): readonly ToolPolicy[] {
  if (value === undefined) return NO_POLICIES;
  if (!Array.isArray(value)) {
    throw new PromptValidationError(
      `${owner}: policies must be an array of ToolPolicy, received ${describe(value)}`,
    );
  }
  value.forEach((policy: unknown, index) => {
    const where = `${owner}: policies[${index}]`;
    if (typeof policy !== 'object' || policy === null) {
      throw new PromptValidationError(
        `${where} must be a ToolPolicy object, received ${describe(policy)}`,
      );
    }
    const { name, check, onResult } = policy as Partial<Record<keyof ToolPolicy, unknown>>;
    checkPolicyName(name, where);
    if (typeof check !== 'function') {
      throw new PromptValidationError(
        `${where} ("${name}"): check must be a function, received ${describe(check)}`,
      );
    }
    if (onResult !== undefined && typeof onResult !== 'function') {
      throw new PromptValidationError(
        `${where} ("${name}"): onResult must be a function when given, received ${describe(onResult)}`,
      );
    }
  });
  return value.length === 0 ? NO_POLICIES : Object.freeze([...(value as ToolPolicy[])]);
}

/**
 * @internal Checks a policy's name against {@link POLICY_NAME_PATTERN}.
 * @throws PromptValidationError naming `owner` and the bad name.
 */
export function checkPolicyName(name: unknown, owner: string): asserts name is string {
  if (typeof name !== 'string' || !POLICY_NAME_PATTERN.test(name)) {
    throw new PromptValidationError(
      `${owner}: name ${JSON.stringify(name)} must match ${POLICY_NAME_PATTERN.source}`,
    );
  }
}

/** @internal The empty policy list, shared. */
export const NO_POLICIES: readonly ToolPolicy[] = Object.freeze([]);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
