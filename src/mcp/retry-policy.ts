import { McpConnectionError } from '../core/errors.js';
import { classifyError, wasNeverDelivered } from '../executor/classify-error.js';
import type { ToolAnnotations } from '../tools/tool.js';

/** When and how a failed call is tried again. */
export interface RetryOptions {
  /** @default true */
  readonly enabled?: boolean;
  /** Shortest wait before the retry. @default 250 */
  readonly minDelayMs?: number;
  /** Longest wait before the retry. @default 750 */
  readonly maxDelayMs?: number;
}

/** Default {@link RetryOptions}. */
export const DEFAULT_RETRY: Required<RetryOptions> = Object.freeze({
  enabled: true,
  minDelayMs: 250,
  maxDelayMs: 750,
});

/** What to do with a call that threw. */
export type RetryDecision =
  | { readonly retry: false; readonly note?: string }
  | { readonly retry: true; readonly newSession: boolean };

/**
 * Decides whether a call that threw is sent once more.
 *
 * - Timeouts, cancellations and JSON-RPC protocol errors are never retried.
 * - A call that cannot have reached the server (refused connection, not
 *   connected) is always safe to send again.
 * - A call that may already have taken effect (reset, broken pipe, closed
 *   connection while in flight) is re-sent only when the tool says repeating
 *   it is harmless: `idempotentHint` or `readOnlyHint`.
 */
export function decideRetry(error: unknown, annotations: ToolAnnotations): RetryDecision {
  const neverSent = error instanceof McpConnectionError || wasNeverDelivered(error);
  const kind = error instanceof McpConnectionError ? 'retry-new-session' : classifyError(error);
  if (kind === 'no-retry') return { retry: false };
  const repeatable = annotations.idempotentHint === true || annotations.readOnlyHint === true;
  if (!neverSent && !repeatable) {
    return {
      retry: false,
      note:
        'it was not re-sent because the connection failed while the call was in flight, ' +
        'the tool may already have taken effect, and it is not marked idempotent or read-only',
    };
  }
  return { retry: true, newSession: kind === 'retry-new-session' };
}

/** A wait drawn uniformly from [minDelayMs, maxDelayMs], so many clients do not retry in step. */
export function retryDelayMs(options: Required<RetryOptions>): number {
  return options.minDelayMs + Math.random() * Math.max(0, options.maxDelayMs - options.minDelayMs);
}
