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
  if (signal?.aborted === true) {
    operation.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      settle();
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      settle();
      reject(
        new SessionStoreError('store-unavailable', `${what} did not answer within ${timeoutMs} ms`),
      );
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    operation.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}
