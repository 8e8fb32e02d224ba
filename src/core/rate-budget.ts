/**
 * A budget of work and bytes per second: two token buckets, refilled
 * continuously up to their bursts. A reader spends as it goes (a bucket
 * may go below zero: a debt, paid before the next read) and, once
 * {@link RateBudget.spent}, waits for {@link RateBudget.refilled}, a timer,
 * so that the event loop turns between two reads. Used for what a server
 * makes the client read (`mcp/read-budget.ts`) and what a sandboxed server
 * sends through its egress proxy (`isolation/egress-proxy.ts`).
 */

/** A refill wakes a reader once a twentieth of a second's worth is back, not once per token. */
const RESUME_AFTER_SECONDS = 0.05;

/**
 * Tokens spent before the event loop must turn, whatever the buckets
 * hold: a whole burst read in one turn (4,000 log notifications of a
 * server within its rate) stalled the loop for 100–250 ms every 2 s.
 */
export const TOKENS_PER_TURN = 256;

/** The rates and bursts of a {@link RateBudget}. */
export interface RateLimits {
  readonly tokensPerSecond: number;
  readonly tokenBurst: number;
  readonly bytesPerSecond: number;
  readonly byteBurst: number;
}

/** One token bucket: `level` refilled at `perSecond`, up to `burst`; it may go below zero (a debt). */
class Bucket {
  level: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
  ) {
    this.level = burst;
  }

  refill(seconds: number): void {
    this.level = Math.min(this.burst, this.level + seconds * this.perSecond);
  }

  /** Seconds until a twentieth of a second's worth is back (at least one token). */
  secondsToResume(): number {
    const resumeAt = Math.max(1, Math.min(this.burst, this.perSecond * RESUME_AFTER_SECONDS));
    return Math.max(0, (resumeAt - this.level) / this.perSecond);
  }
}

/** What a wait for a refill waits on. */
interface Timer {
  readonly timeout?: ReturnType<typeof setTimeout>;
  readonly immediate?: ReturnType<typeof setImmediate>;
}

/** Tokens and bytes per second (see the module's note). */
export class RateBudget {
  readonly #tokens: Bucket;
  readonly #bytes: Bucket;
  readonly #now: () => number;
  #last: number;
  /** Tokens spent since the readers last waited for a turn of the event loop. */
  #sinceTurn = 0;
  /** The wait for a refill under way, shared by every reader. */
  #wait:
    | {
        readonly promise: Promise<void>;
        readonly resolve: () => void;
        timer: Timer;
      }
    | undefined;

  constructor(limits: RateLimits, now: () => number = () => performance.now()) {
    this.#tokens = new Bucket(limits.tokensPerSecond, limits.tokenBurst);
    this.#bytes = new Bucket(limits.bytesPerSecond, limits.byteBurst);
    this.#now = now;
    this.#last = now();
  }

  /** Whether a reader must wait for {@link refilled}: a bucket is empty, or the turn is used up. */
  get spent(): boolean {
    return this.#sinceTurn >= TOKENS_PER_TURN || this.#empty;
  }

  /** Whether a bucket is empty. */
  get #empty(): boolean {
    // A refill only adds: with both left, no clock is read (a stdio read asks per line).
    if (this.#tokens.level >= 1 && this.#bytes.level >= 1) return false;
    this.#update();
    return this.#tokens.level < 1 || this.#bytes.level < 1;
  }

  /** Spends `count` tokens. */
  spend(count = 1): void {
    if (count === 0) return;
    this.#update();
    this.#tokens.level -= count;
    this.#sinceTurn += count;
  }

  /** Gives one token back (never past the burst). */
  refund(): void {
    this.#tokens.level = Math.min(this.#tokens.burst, this.#tokens.level + 1);
  }

  /** Counts `bytes` read. */
  read(bytes: number): void {
    this.#update();
    this.#bytes.level -= bytes;
  }

  /**
   * Resolves once reading may go on (a twentieth of a second's worth is
   * back in both buckets, or, when only the turn was used up, in the next
   * turn), on a timer or `setImmediate`: a macrotask, so the event loop
   * turns between two reads. Resolves at once when it is not
   * {@link spent}, and early at {@link release}.
   */
  refilled(): Promise<void> {
    if (this.#wait !== undefined) return this.#wait.promise;
    if (!this.spent) return Promise.resolve();
    let resolve!: () => void;
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    this.#wait = { promise, resolve, timer: this.#timer() };
    return promise;
  }

  /**
   * A timer for when reading may go on: the next turn when only the turn
   * is used up. Readers may have spent more while they waited (a shared
   * wait, several streams): then it waits again, so that a reader woken
   * by the refill finds the budget no longer spent.
   */
  #timer(): Timer {
    const wake = (): void => {
      this.#sinceTurn = 0;
      const wait = this.#wait;
      if (wait !== undefined && this.spent) wait.timer = this.#timer();
      else this.#endWait();
    };
    if (!this.#empty) return { immediate: setImmediate(wake) };
    const seconds = Math.max(this.#tokens.secondsToResume(), this.#bytes.secondsToResume());
    return { timeout: setTimeout(wake, Math.ceil(seconds * 1_000)) };
  }

  /**
   * Ends the wait under way: its readers are closing (they read on, or see
   * their stream closed). The budget holds on for whoever reads next.
   */
  release(): void {
    this.#endWait();
  }

  #endWait(): void {
    const wait = this.#wait;
    this.#wait = undefined;
    if (wait === undefined) return;
    clearTimeout(wait.timer.timeout);
    clearImmediate(wait.timer.immediate);
    wait.resolve();
  }

  #update(): void {
    const now = this.#now();
    const seconds = (now - this.#last) / 1_000;
    this.#last = now;
    this.#tokens.refill(seconds);
    this.#bytes.refill(seconds);
  }
}
