/** How a lost connection is tried again. */

/** Reconnection after a lost connection. */
export interface ReconnectPolicy {
  /** @default 3 */
  readonly attempts: number;
  /** Delay before the first try, doubled each time (with jitter). @default 250 */
  readonly baseDelayMs: number;
  /** Longest delay between two tries. @default 5_000 */
  readonly maxDelayMs?: number;
}

/** Default {@link ReconnectPolicy}. */
export const DEFAULT_RECONNECT: ReconnectPolicy = Object.freeze({
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
});

/**
 * The wait before reconnection `attempt` (0-based): doubling from
 * `baseDelayMs`, capped at `maxDelayMs`, with "full jitter" (a random
 * point between half and all of it) so that many clients cut off together
 * do not come back together.
 */
export function reconnectDelayMs(policy: ReconnectPolicy, attempt: number): number {
  const cap = policy.maxDelayMs ?? DEFAULT_RECONNECT.maxDelayMs ?? 5_000;
  const ceiling = Math.min(cap, policy.baseDelayMs * 2 ** Math.min(attempt, 30));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}
