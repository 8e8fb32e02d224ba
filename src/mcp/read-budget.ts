/**
 * How fast a server's messages are read when it sends what nobody asked
 * for.
 *
 * A server may send notifications (logs, progress, list changes) and
 * requests of its own as fast as it can write them. Publishing them is
 * rate-limited (`event-rate.ts`), but each one is still read, parsed and
 * handled: a server flooding 200-byte log notifications kept the
 * client's process at 130% CPU, and over streamable HTTP the reading ran
 * from one microtask to the next, so the event loop turned about every
 * 250 ms, for every timer and socket of the process.
 *
 * Each connection over stdio or HTTP has a {@link ReadBudget}: a token
 * bucket of the server's messages that are not an answer to one of the
 * client's own requests. Once it is spent, reading waits for a refill
 * (a timer: the event loop turns in between) and the server is held back
 * where it writes: its pipe or socket fills and its writes block. Nothing
 * is dropped; a flooding server only slows itself. Answers to the
 * client's requests cost nothing, so calls at any rate are never held;
 * an answer to a request nobody made counts as unasked.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Most unasked messages a server's connection reads per second, once its burst is spent. */
export const MAX_UNASKED_MESSAGES_PER_SECOND = 1_000;

/** Unasked messages a connection reads at once before the rate applies: a server's burst at start-up. */
export const UNASKED_MESSAGE_BURST = 2_000;

/** A refill wakes reading once this many messages may be read: some twenty wakes a second, not one per message. */
const RESUME_AFTER_SECONDS = 0.05;

/**
 * Requests of the client remembered as waiting for their answer; past it
 * the oldest is forgotten (a request the server never answered), and its
 * answer, if it ever comes, counts as unasked.
 */
const MAX_ASKED = 10_000;

/** A token bucket of the unasked messages one connection reads (see the module's note). */
export class ReadBudget {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;
  /** Ids of the client's requests sent and not answered yet. */
  readonly #asked = new Set<string | number>();
  /** The wait for a refill under way, shared by every reader. */
  #wait:
    | { promise: Promise<void>; resolve: () => void; timer: ReturnType<typeof setTimeout> }
    | undefined;
  #closed = false;

  constructor(
    perSecond: number = MAX_UNASKED_MESSAGES_PER_SECOND,
    burst: number = UNASKED_MESSAGE_BURST,
    now: () => number = () => performance.now(),
  ) {
    this.#perSecond = perSecond;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Whether reading must wait for {@link refilled}; never once the budget is closed. */
  get spent(): boolean {
    // A refill only adds: with a token left, no clock is read (every stdio read asks).
    if (this.#closed || this.#tokens >= 1) return false;
    this.#update();
    return this.#tokens < 1;
  }

  /** Counts one unasked message; the count may go below zero (what was read past the budget). */
  spend(): void {
    this.#update();
    this.#tokens -= 1;
  }

  /**
   * Resolves once messages may be read again (a twentieth of a second's
   * worth), on a timer: a macrotask, so the event loop turns between two
   * reads. Resolves at once when it is not {@link spent}, and when the
   * budget is closed.
   */
  refilled(): Promise<void> {
    if (this.#wait !== undefined) return this.#wait.promise;
    if (!this.spent) return Promise.resolve();
    const resumeAt = Math.max(1, Math.min(this.#burst, this.#perSecond * RESUME_AFTER_SECONDS));
    const waitMs = Math.ceil(((resumeAt - this.#tokens) * 1_000) / this.#perSecond);
    let resolve!: () => void;
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    this.#wait = { promise, resolve, timer: setTimeout(() => this.#endWait(), waitMs) };
    return promise;
  }

  /** Ends every wait: the connection is closing and reads no more. */
  close(): void {
    this.#closed = true;
    this.#endWait();
  }

  /**
   * Counts what `transport` receives: wraps its `onmessage` (set by the
   * SDK's client: call it right after `client.connect(transport)` has
   * started) and its `send`, which tells the client's own requests.
   */
  count(transport: Transport): void {
    const deliver = transport.onmessage;
    if (deliver === undefined) return;
    const send = transport.send.bind(transport);
    const asked = this.#asked;
    transport.send = (message, options) => {
      if ('method' in message && 'id' in message) {
        if (asked.size >= MAX_ASKED) {
          const oldest = asked.values().next();
          if (oldest.done !== true) asked.delete(oldest.value);
        }
        asked.add(message.id);
      }
      return send(message, options);
    };
    transport.onmessage = (message, extra) => {
      const answer = !('method' in message) && 'id' in message;
      if (!answer || !asked.delete(message.id as string | number)) this.spend();
      deliver(message, extra);
    };
  }

  #endWait(): void {
    const wait = this.#wait;
    this.#wait = undefined;
    if (wait === undefined) return;
    clearTimeout(wait.timer);
    wait.resolve();
  }

  #update(): void {
    const now = this.#now();
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + ((now - this.#last) * this.#perSecond) / 1_000,
    );
    this.#last = now;
  }
}
