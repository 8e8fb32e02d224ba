/**
 * `requireApproval`: the calls it covers go to the approval handler
 * before they run.
 */
import { PromptValidationError } from '../../core/errors.js';
import type { Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';
import { PolicyDecision } from './policy-decision.js';
import { checkPolicyName, type ToolPolicy } from './tool-policy.js';
import { type ToolSelector, toolMatcher } from './tool-selector.js';

/** Options of {@link requireApproval}. */
export interface RequireApprovalOptions<P = Readonly<Record<string, unknown>>> {
  /**
   * The tools it covers: names (offered, or an MCP tool's own name) or a
   * predicate. @default every tool the policy is attached to
   */
  readonly tools?: ToolSelector;
  /**
   * Asks only when this returns true, given the parsed params (typed `P`
   * by the caller's word: a policy on several tools sees each one's).
   * @default always
   */
  readonly when?: (params: P, tool: Tool, context: ToolContext) => boolean | Promise<boolean>;
  /** What the approver is told. @default `tool "<name>" needs approval before it runs` */
  readonly reason?: string | ((tool: Tool, params: P) => string);
  /** @default 'require-approval' */
  readonly name?: string;
}

/**
 * A policy that asks the approval handler about every call of `tools`
 * (for which `when` holds). Without a handler, or without an answer in
 * time, the call is denied.
 *
 * @throws PromptValidationError for a bad name or tool list.
 * @example
 * requireApproval({ tools: ['delete_file'], when: (params) => params['path'] !== '/tmp/scratch' })
 */
export function requireApproval<P = Readonly<Record<string, unknown>>>(
  options: RequireApprovalOptions<P> = {},
): ToolPolicy {
  const name = options.name ?? 'require-approval';
  checkPolicyName(name, 'requireApproval');
  const covers = toolMatcher(options.tools, `requireApproval "${name}": tools`);
  const { when, reason } = options;
  if (when !== undefined && typeof when !== 'function') {
    throw new PromptValidationError(
      `requireApproval "${name}": when must be a function of the params, received ${typeof when}`,
    );
  }
  if (
    reason !== undefined &&
    typeof reason !== 'function' &&
    (typeof reason !== 'string' || reason.trim() === '')
  ) {
    throw new PromptValidationError(
      `requireApproval "${name}": reason must be a non-empty string or a function, received ${JSON.stringify(reason)}`,
    );
  }
  return Object.freeze({
    name,
    async check(tool: Tool, params: unknown, context: ToolContext): Promise<PolicyDecision> {
      if (!covers(tool)) return PolicyDecision.allow();
      if (when !== undefined && !(await when(params as P, tool, context))) {
        return PolicyDecision.allow();
      }
      const text =
        reason === undefined
          ? `tool "${tool.name}" needs approval before it runs`
          : typeof reason === 'string'
            ? reason
            : reason(tool, params as P);
      return PolicyDecision.ask(text);
    },
  });
}
