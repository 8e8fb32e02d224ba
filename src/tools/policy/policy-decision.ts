/**
 * What a tool policy says about one call: go ahead, refuse with a reason,
 * or ask someone (the approval handler) with a reason.
 */
import { PromptValidationError } from '../../core/errors.js';

/** A policy's verdict on one call. */
export type PolicyDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'ask'; readonly reason: string };

const ALLOW: PolicyDecision = Object.freeze({ kind: 'allow' });

function withReason(kind: 'deny' | 'ask', reason: string): PolicyDecision {
  if (typeof reason !== 'string' || reason.trim().length === 0) {
    throw new PromptValidationError(
      `PolicyDecision.${kind} needs a reason the model can read, a non-empty string; received ${JSON.stringify(reason)}`,
    );
  }
  return Object.freeze({ kind, reason: reason.trim() });
}

/**
 * Builds the decisions a `ToolPolicy`'s `check` returns.
 *
 * @example
 * check: (tool) => tool.name === 'deploy' ? PolicyDecision.ask('deploys need a person') : PolicyDecision.allow()
 */
export const PolicyDecision = Object.freeze({
  /** Let the call go on (to the next policy, then the handler). */
  allow: (): PolicyDecision => ALLOW,
  /**
   * Refuse the call; the model reads `reason`.
   * @throws PromptValidationError when `reason` is empty.
   */
  deny: (reason: string): PolicyDecision => withReason('deny', reason),
  /**
   * Let the approval handler decide; it is shown `reason`.
   * @throws PromptValidationError when `reason` is empty.
   */
  ask: (reason: string): PolicyDecision => withReason('ask', reason),
  /** True for a value a policy may return from `check`. */
  is(value: unknown): value is PolicyDecision {
    if (typeof value !== 'object' || value === null) return false;
    const { kind, reason } = value as { kind?: unknown; reason?: unknown };
    if (kind === 'allow') return true;
    return (kind === 'deny' || kind === 'ask') && typeof reason === 'string' && reason.length > 0;
  },
});
