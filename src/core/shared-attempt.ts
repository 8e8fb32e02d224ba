/**
 * One piece of work that several callers wait for, each with a signal of
 * its own: a connect that a second section, a health check or a second
 * `connect()` joins while it runs.
 */
import { abortReason } from './deadline.js';

/**
 * Work started once and joined by every caller that wants its outcome. A
 * caller's signal ends only that caller's wait: the work itself is aborted
 * when the last caller still waiting gives up, and never while a caller
 * without a signal waits (nor at all when it is `pinned`: work nobody may
 * cancel, such as a reconnect). The last caller to give up gets the
 * work's own outcome, as the only caller always did.
 */
export class SharedAttempt<T> {
  /** The work's outcome. */
  readonly promise: Promise<T>;
  readonly #controller = new AbortController();
  /** Callers with a signal still waiting. */
  #waiting = 0;
  /** Whether someone waits who never gives up, so the work is never aborted. */
  #pinned: boolean;

  /** Starts `run` now, with the signal that aborts it once every caller gave up. */
  constructor(run: (signal: AbortSignal) => Promise<T>, options: { pinned?: boolean } = {}) {
    this.#pinned = options.pinned === true;
    this.promise = run(this.#controller.signal);
  }

  /**
   * Whether every caller gave up and the work was told to stop: a caller
   * that comes now waits for it to end and starts anew, rather than share
   * the others' cancellation.
   */
  get abandoned(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * The work's outcome, or, when `signal` aborts first while others still
   * wait, what `gaveUp` makes of its reason.
   */
  join(signal: AbortSignal | undefined, gaveUp: (reason: Error) => Error): Promise<T> {
    if (signal === undefined) {
      this.#pinned = true;
      return this.promise;
    }
    this.#waiting += 1;
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      const settle = (): boolean => {
        if (!waiting) return false;
        waiting = false;
        this.#waiting -= 1;
        signal.removeEventListener('abort', leave);
        return true;
      };
      const leave = (): void => {
        if (!settle()) return;
        if (this.#waiting > 0 || this.#pinned) {
          reject(gaveUp(abortReason(signal)));
          return;
        }
        this.#controller.abort(signal.reason);
        this.promise.then(resolve, reject);
      };
      if (signal.aborted) {
        leave();
        return;
      }
      signal.addEventListener('abort', leave, { once: true });
      this.promise.then(
        (value) => {
          if (settle()) resolve(value);
        },
        (error: unknown) => {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the work's own failure, passed on as it is
          if (settle()) reject(error);
        },
      );
    });
  }
}
