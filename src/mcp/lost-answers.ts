/**
 * Requests whose answer never comes, failed at once.
 *
 * Over streamable HTTP a server answers a request on the event stream of
 * its POST, or in a JSON body. When that stream ends or breaks before the
 * answer (the server crashed mid-call, or the stream passed a bound of
 * `boundedFetch`), or the body ends without it, the SDK says so only
 * through `onerror`, if at all, and the request waited for its whole
 * timeout, which then blamed the timeout.
 *
 * A stream whose events carried an id is resumed by the SDK (a GET with
 * `Last-Event-ID`), and the answer may still come that way: its request
 * fails only once the resumption has failed as often as the SDK tries it.
 * The SDK also resumes a stream whose answer was an error (it counts only
 * results as answers): that resumption is refused here, as nobody waits
 * for it, so that a server replaying the stream does not hold a connection
 * per failed call.
 *
 * The failure is the SDK's own kind of error for a lost connection
 * (`ConnectionClosed`, "Connection closed"), so a call is re-sent only as
 * any call lost in flight is; its `data` says why ({@link lostAnswerReason}).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Marks the `data` of an error response that stands in for a lost answer. */
const LOST_ANSWER = 'mcp-sections/lost-answer';

/** Requests watched at once; past it the oldest is forgotten (its call then waits its timeout). */
const MAX_WATCHED = 10_000;

/**
 * How many times in a row the SDK tries to resume a stream (its
 * `maxRetries`, given to the transport by `transport-factory.ts`): after
 * as many failures the request's answer is lost.
 */
export const RESUME_ATTEMPTS = 2;

/** What a resumption (a GET with `Last-Event-ID`) picks up. */
export type Resumption =
  /** The answer stream of a request still waiting: watched as the first was. */
  | { readonly waiting: string | number }
  /** The stream of a request already answered (with an error): refuse it. */
  | 'answered'
  /** Not an answer stream this transport watches (the server's own event stream). */
  | undefined;

/** One request whose answer is watched. */
interface Watched {
  /** Its id as sent (the SDK matches answers by number). */
  readonly id: string | number;
  /** An error answered it: the SDK may still resume its stream, which nobody waits for. */
  answeredWithError: boolean;
  /** The last event id its stream carried, once it ended resumable. */
  lastEventId?: string;
  /** Resumptions that failed since the last one that opened. */
  failures: number;
}

/** The answers of one streamable-HTTP transport's requests. */
export class AnswerStreams {
  /** Requests whose answer has not come as a result, by their id as text. */
  readonly #watched = new Map<string, Watched>();
  /** The request of each resumable stream that ended, by its last event id. */
  readonly #byEvent = new Map<string, string>();
  #deliver: ((message: JSONRPCMessage) => void) | undefined;

  /**
   * Wraps `transport`'s `onmessage` (set by the SDK's client: call it right
   * after `client.connect(transport)` has started and the other wrappers are
   * in place), to see answers arrive and to hand lost ones to the client.
   */
  watch(transport: Transport): void {
    const deliver = transport.onmessage;
    if (deliver === undefined) return;
    this.#deliver = (message) => deliver(message);
    // A closed client has failed every request it had open: nothing is lost after it.
    const closed = transport.onclose;
    transport.onclose = () => {
      this.#deliver = undefined;
      this.#watched.clear();
      this.#byEvent.clear();
      closed?.();
    };
    transport.onmessage = (message, extra) => {
      if (!('method' in message)) this.#answered(message);
      deliver(message, extra);
    };
  }

  /** The answer of request `id` began to arrive (an event stream, or a JSON body). */
  opened(id: string | number): void {
    const key = String(id);
    if (this.#watched.has(key)) return; // a resumed stream of a request already watched
    if (this.#watched.size >= MAX_WATCHED) {
      const oldest = this.#watched.keys().next();
      if (oldest.done !== true) this.#forget(oldest.value);
    }
    this.#watched.set(key, { id, answeredWithError: false, failures: 0 });
  }

  /**
   * The reply that should carry request `id`'s answer (its `kind`) ended, or
   * broke (`broke`: why). A stream whose events carried an id
   * (`lastEventId`) is left to the SDK to resume; a call the client
   * cancelled is no longer waited for. Otherwise a request still
   * unanswered once the SDK has read what the reply held fails.
   */
  ended(
    id: string | number,
    options: {
      readonly kind: 'event stream' | 'JSON reply';
      readonly lastEventId: string | undefined;
      readonly cancelled: boolean;
      readonly broke?: string;
    },
  ): void {
    const key = String(id);
    const watched = this.#watched.get(key);
    if (watched === undefined) return;
    if (options.cancelled) {
      this.#forget(key);
      return;
    }
    if (options.lastEventId !== undefined) {
      if (watched.lastEventId !== undefined) this.#byEvent.delete(watched.lastEventId);
      watched.lastEventId = options.lastEventId;
      this.#byEvent.set(options.lastEventId, key);
      return;
    }
    const { kind, broke } = options;
    this.#fail(
      key,
      broke === undefined
        ? `the server ended its ${kind} without it`
        : `its ${kind} broke (${broke})`,
    );
  }

  /** What a stream resumed from `lastEventId` carries. */
  resumption(lastEventId: string): Resumption {
    const key = this.#byEvent.get(lastEventId);
    const watched = key === undefined ? undefined : this.#watched.get(key);
    if (key === undefined || watched === undefined) return undefined;
    if (!watched.answeredWithError) return { waiting: watched.id };
    this.#forget(key);
    return 'answered';
  }

  /** The resumption from `lastEventId` opened: its stream is watched as the first was. */
  resumed(lastEventId: string): void {
    const key = this.#byEvent.get(lastEventId);
    const watched = key === undefined ? undefined : this.#watched.get(key);
    if (watched !== undefined) watched.failures = 0;
  }

  /**
   * A resumption from `lastEventId` failed with `reason`. After as many
   * failures in a row as the SDK makes attempts ({@link RESUME_ATTEMPTS}),
   * or one it does not try again after (`final`: a 405), the request fails.
   */
  resumeFailed(lastEventId: string, reason: string, final: boolean): void {
    const key = this.#byEvent.get(lastEventId);
    const watched = key === undefined ? undefined : this.#watched.get(key);
    if (key === undefined || watched === undefined) return;
    watched.failures += 1;
    if (!final && watched.failures < RESUME_ATTEMPTS) return;
    this.#fail(key, `its event stream could not be resumed (${reason})`);
  }

  #answered(message: JSONRPCMessage): void {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = String(id);
    const watched = this.#watched.get(key);
    if (watched === undefined) return;
    // After an error the SDK may still resume the stream (it counts only
    // results as answers): kept, so that the resumption is refused.
    if ('error' in message) watched.answeredWithError = true;
    else this.#forget(key);
  }

  /**
   * Fails request `key` with an error response saying why its answer never
   * came, once the SDK has read what the reply held, unless it came.
   */
  #fail(key: string, reason: string): void {
    // The SDK reads the stream through transforms that settle in microtasks:
    // by the next turn of the event loop every message it held is delivered.
    setImmediate(() => {
      const watched = this.#watched.get(key);
      if (watched === undefined) return;
      this.#forget(key);
      if (!watched.answeredWithError) this.#deliver?.(lostAnswer(watched.id, reason));
    });
  }

  #forget(key: string): void {
    const watched = this.#watched.get(key);
    if (watched?.lastEventId !== undefined) this.#byEvent.delete(watched.lastEventId);
    this.#watched.delete(key);
  }
}

/** The error response for request `id`, whose answer never came, for `reason`. */
function lostAnswer(id: string | number, reason: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.ConnectionClosed,
      message: 'Connection closed',
      data: { [LOST_ANSWER]: `its answer never came: ${reason}` },
    },
  };
}

/** Why the answer of a request that failed with `data` was lost, when {@link AnswerStreams} failed it. */
export function lostAnswerReason(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || !Object.hasOwn(data, LOST_ANSWER)) {
    return undefined;
  }
  const reason: unknown = (data as Record<string, unknown>)[LOST_ANSWER];
  return typeof reason === 'string' ? reason : undefined;
}
