/**
 * How often a server may make the session publish: its log messages, a
 * call's progress reports and a sandbox's refused connections are the
 * server's to make, as many and as fast as it likes. A flood of them published whole would bury everything else an
 * application records (a trace that rotates pushed the first tool calls
 * out within a minute). Past the rate they are counted, not published.
 */

/** Most `McpServerLog` events a server makes the session publish per second (and at once). */
export const MAX_LOG_EVENTS_PER_SECOND = 100;

/** Most `McpToolProgress` events one call publishes per second (and at once). */
export const MAX_PROGRESS_EVENTS_PER_SECOND = 20;

/** Most `McpNetworkDenied` events a sandboxed server makes the session publish per second (and at once). */
export const MAX_DENIAL_EVENTS_PER_SECOND = 20;

/**
 * A token bucket: up to `perSecond` at once, refilled at `perSecond` a
 * second; what does not fit is counted.
 */
export class EventRate {
  readonly #perSecond: number;
  #tokens: number;
  #last: number;
  #refused = 0;

  constructor(perSecond: number) {
    this.#perSecond = perSecond;
    this.#tokens = perSecond;
    this.#last = performance.now();
  }

  /**
   * Whether one more may be published now: undefined when not (it is
   * counted); otherwise how many were refused since the last one admitted.
   */
  admit(): number | undefined {
    const now = performance.now();
    this.#tokens = Math.min(
      this.#perSecond,
      this.#tokens + ((now - this.#last) * this.#perSecond) / 1_000,
    );
    this.#last = now;
    if (this.#tokens < 1) {
      this.#refused += 1;
      return undefined;
    }
    this.#tokens -= 1;
    const refused = this.#refused;
    this.#refused = 0;
    return refused;
  }
}
