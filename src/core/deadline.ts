/** Waiting for work with a time limit and a caller's signal. */

/** The reason a signal was aborted with, as an Error. */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  try {
    if (reason instanceof Error) return reason;
  } catch {
    // A proxy whose prototype cannot be read: the abort still counts.
  }
  return new Error(typeof reason === 'string' && reason.length > 0 ? reason : 'aborted');
}

/** Options of {@link withDeadline}. */
export interface DeadlineOptions {
  readonly timeoutMs: number;
  /** The caller's signal: aborting it rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
  /** The error a timeout rejects with. */
  readonly onTimeout: () => Error;
}

/**
 * Runs `run` until it settles, `timeoutMs` passes or `signal` aborts,
 * whichever comes first. The signal `run` gets is aborted only on timeout or
 * abort, never after an answer (an MCP request aborted after its answer
 * would send a needless `notifications/cancelled`). Work still running
 * when the deadline wins is left to finish on its own; its failure is
 * ignored.
 */
export async function withDeadline<T>(
  run: (signal: AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<T> {
  const outer = options.signal;
  if (outer?.aborted === true) throw abortReason(outer);
  const inner = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      inner.abort(outer?.reason);
      reject(abortReason(outer));
    };
    outer?.addEventListener('abort', onAbort, { once: true });
    timer = setTimeout(() => {
      const error = options.onTimeout();
      inner.abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  // The loser of the race may still reject; nobody else listens to it.
  stopped.catch(() => undefined);
  try {
    // Inside the try: a `run` that throws before it returns a promise ends the timer too.
    const work = run(inner.signal);
    work.catch(() => undefined);
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) outer?.removeEventListener('abort', onAbort);
  }
}

/** `promise`, or the signal's reason if it aborts first. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return withDeadline(() => promise, {
    timeoutMs: 2_147_483_647,
    signal,
    onTimeout: () => new Error('never'),
  });
}
