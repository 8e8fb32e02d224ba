import { withDeadline } from '../../core/deadline.js';
import { SessionStoreError } from './errors.js';

/**
 * Waits for `operation` at most `timeoutMs` and until `signal` aborts. A
 * store that hangs must not hang the tool call waiting on it: the escalation
 * stays pending and the call reports the failure instead.
 *
 * @throws SessionStoreError `store-unavailable` on timeout; the signal's reason on abort.
 */
export function boundedCall<T>(
  operation: Promise<T>,
  what: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  // Already running: a failure after the deadline (or before, when the signal
  // is already aborted) must not surface as an unhandled rejection.
  operation.catch(() => undefined);
  return withDeadline(() => operation, {
    timeoutMs,
    signal,
    onTimeout: () =>
      new SessionStoreError('store-unavailable', `${what} did not answer within ${timeoutMs} ms`),
  });
}
