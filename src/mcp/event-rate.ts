/**
 * How often a server may make the session publish: its log messages, a
 * call's progress reports and a sandbox's refused connections are the
 * server's to make, as many and as fast as it likes. A flood of them
 * published whole would bury everything else an application records (a
 * trace that rotates pushed the first tool calls out within a minute).
 * Past the rate they are counted, not published, except the last one of a
 * burst: it is published once the rate allows, with the count of those
 * left out, so that a burst followed by silence is told in full.
 */

/** Most `McpServerLog` events a server makes the session publish per second (and at once). */
export const MAX_LOG_EVENTS_PER_SECOND = 100;

/** Most `McpToolProgress` events one call publishes per second (and at once). */
export const MAX_PROGRESS_EVENTS_PER_SECOND = 20;

/** Most `McpNetworkDenied` events a sandboxed server makes the session publish per second (and at once). */
export const MAX_DENIAL_EVENTS_PER_SECOND = 20;

/**
 * A token bucket in front of `publish`: up to `perSecond` items at once,
 * refilled at `perSecond` a second. An item that does not fit is counted
 * and held, replacing the one held before it; the one held is published
 * as soon as a token is back (an `unref`ed timer), or at {@link flush}.
 * Every item offered is either published or counted in the `dropped` of
 * the next one published.
 */
export class EventRate<T> {
  readonly #perSecond: number;
  readonly #publish: (item: T, dropped: number) => void;
  #tokens: number;
  #last: number;
  /** Items refused since the last one published, the held one among them. */
  #refused = 0;
  #held: { readonly item: T } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @param publish called with an item and how many were left out just before it. */
  constructor(perSecond: number, publish: (item: T, dropped: number) => void) {
    this.#perSecond = perSecond;
    this.#publish = publish;
    this.#tokens = perSecond;
    this.#last = performance.now();
  }

  /** Publishes `item` now if the rate allows it; holds it (the latest only) otherwise. */
  offer(item: T): void {
    this.#refill();
    if (this.#tokens < 1) {
      this.#refused += 1;
      this.#held = { item };
      this.#timer ??= this.#schedule();
      return;
    }
    this.#tokens -= 1;
    // A newer item goes out instead of the held one, which is counted with the rest.
    const dropped = this.#refused;
    this.#refused = 0;
    this.#held = undefined;
    this.#cancel();
    this.#publish(item, dropped);
  }

  /** Publishes the item held, if any, now whatever the rate: its source has ended. */
  flush(): void {
    this.#cancel();
    const held = this.#held;
    if (held === undefined) return;
    const dropped = this.#refused - 1;
    this.#refused = 0;
    this.#held = undefined;
    this.#publish(held.item, dropped);
  }

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(
      this.#perSecond,
      this.#tokens + ((now - this.#last) * this.#perSecond) / 1_000,
    );
    this.#last = now;
  }

  /** A timer for when one token is back. */
  #schedule(): ReturnType<typeof setTimeout> {
    const waitMs = Math.ceil(((1 - this.#tokens) * 1_000) / this.#perSecond);
    const timer = setTimeout(() => {
      this.#timer = undefined;
      this.#refill();
      if (this.#tokens < 1) {
        this.#timer = this.#schedule(); // the clock's rounding
        return;
      }
      this.#tokens -= 1;
      this.flush();
    }, waitMs);
    timer.unref?.();
    return timer;
  }

  #cancel(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
