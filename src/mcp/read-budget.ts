/**
 * How fast a server's messages are read when it sends what nobody asked
 * for, or more bytes than anyone reads.
 *
 * A server may send notifications (logs, progress, list changes) and
 * requests of its own as fast as it can write them. Publishing them is
 * rate-limited (`event-rate.ts`), but each one is still read, parsed and
 * handled: a server flooding 200-byte log notifications kept the
 * client's process at 130% CPU, and over streamable HTTP the reading ran
 * from one microtask to the next, so the event loop turned about every
 * 250 ms, for every timer and socket of the process. Log notifications of
 * 1 MB each kept it at 100% CPU at a tenth of that count, and lines that
 * are no message at all (`{}`, 3 bytes each) stalled it for 20 s at a time.
 *
 * Each connection over stdio or HTTP has a {@link ReadBudget}, kept
 * across its reconnections (a server that floods and exits was otherwise
 * reconnected with a fresh burst, 41 times in 15 s): two token buckets. Message tokens: every line, event or JSON body read costs one
 * (whether it holds a message, one the SDK skips, or nothing readable),
 * and every message that is not an answer to one of the client's own
 * requests one more; an answer gives its frame's token back. So a
 * notification costs two, and calls at any rate cost nothing. Bytes: every
 * byte read from the server, stdout, stderr or HTTP body, under a bound
 * far above any tool's use (a whole 64 MB HTTP message at once, 8 MB a
 * second after). Once either bucket is spent, reading waits for the refill
 * (a timer: the event loop turns in between) and the server is held back
 * where it writes: its pipe or socket fills and its writes block. Nothing
 * is dropped; a flooding server only slows itself.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RateBudget } from '../core/rate-budget.js';

/** Message tokens a connection spends per second once its burst is spent: some 1,000 notifications. */
export const MESSAGE_TOKENS_PER_SECOND = 2_000;

/** Message tokens a connection spends at once before the rate applies: a server's burst at start-up. */
export const MESSAGE_TOKEN_BURST = 4_000;

/** Most bytes a server's connection reads per second, once its burst is spent. */
export const MAX_READ_BYTES_PER_SECOND = 8 * 1024 * 1024;

/** Bytes a connection reads at once before the rate applies: one message at the HTTP bound. */
export const READ_BYTE_BURST = 64 * 1024 * 1024;

/**
 * Requests of the client remembered as waiting for their answer; past it
 * the oldest is forgotten (a request the server never answered), and its
 * answer, if it ever comes, counts as unasked.
 */
const MAX_ASKED = 10_000;

/** The rates and bursts of a {@link ReadBudget}. */
export interface ReadLimits {
  /** @default {@link MESSAGE_TOKENS_PER_SECOND} */
  readonly messageTokensPerSecond?: number;
  /** @default {@link MESSAGE_TOKEN_BURST} */
  readonly messageTokenBurst?: number;
  /** @default {@link MAX_READ_BYTES_PER_SECOND} */
  readonly bytesPerSecond?: number;
  /** @default {@link READ_BYTE_BURST} */
  readonly byteBurst?: number;
}

/** What one connection may read: message tokens and bytes (see the module's note). */
export class ReadBudget extends RateBudget {
  /** Ids of the client's requests sent and not answered yet. */
  readonly #asked = new Set<string | number>();

  constructor(limits: ReadLimits = {}, now?: () => number) {
    super(
      {
        tokensPerSecond: limits.messageTokensPerSecond ?? MESSAGE_TOKENS_PER_SECOND,
        tokenBurst: limits.messageTokenBurst ?? MESSAGE_TOKEN_BURST,
        bytesPerSecond: limits.bytesPerSecond ?? MAX_READ_BYTES_PER_SECOND,
        byteBurst: limits.byteBurst ?? READ_BYTE_BURST,
      },
      now,
    );
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
    // Another transport of the connection: its client numbers its requests anew.
    asked.clear();
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
      if (answer && asked.delete(message.id as string | number)) this.refund();
      else this.spend();
      deliver(message, extra);
    };
  }
}
