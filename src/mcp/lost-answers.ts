/**
 * Requests whose answer stream ended without their answer, failed at once.
 *
 * Over streamable HTTP a server answers a request on the event stream of
 * its POST. When that stream ends or breaks before the answer (the server
 * crashed mid-call, or the stream passed a bound of `boundedFetch`), the
 * SDK says so only through `onerror`, and the request waited for its whole
 * timeout, which then blamed the timeout. A stream that carried an event
 * id is resumed by the SDK (a GET with `Last-Event-ID`), and the answer may
 * still come that way: it fails only once the resumption has failed as
 * often as the SDK tries it.
 *
 * The failure is the SDK's own kind of error for a lost connection
 * (`ConnectionClosed`, "Connection closed"), so a call is re-sent only as
 * any call lost in flight is; its `data` says why ({@link lostAnswerReason}).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Marks the `data` of an error response that stands in for a lost answer. */
const LOST_ANSWER = 'mcp-sections/lost-answer';

/** Answer streams watched at once; past it the oldest is forgotten (its call then waits its timeout). */
const MAX_WATCHED = 10_000;

/**
 * How many times the SDK tries to resume a stream (its `maxRetries`, given
 * to the transport by `transport-factory.ts`): after as many failures the
 * request's answer is lost.
 */
export const RESUME_ATTEMPTS = 2;

/** The answer streams of one streamable-HTTP transport. */
export class AnswerStreams {
  /** Requests whose answer stream opened and whose answer has not come. */
  readonly #waiting = new Set<string | number>();
  /** The request each resumable stream that ended unanswered answers, by its last event id. */
  readonly #resuming = new Map<string, { readonly id: string | number; failures: number }>();
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
      this.#waiting.clear();
      this.#resuming.clear();
      closed?.();
    };
    transport.onmessage = (message, extra) => {
      const id = 'method' in message ? undefined : (message as { id?: string | number }).id;
      if (id !== undefined) this.#waiting.delete(id);
      deliver(message, extra);
    };
  }

  /** The answer stream of request `id` began. */
  opened(id: string | number): void {
    if (this.#waiting.size >= MAX_WATCHED) {
      const oldest = this.#waiting.values().next();
      if (oldest.done !== true) this.#waiting.delete(oldest.value);
    }
    this.#waiting.add(id);
  }

  /**
   * The answer stream of request `id` ended (`reason` undefined) or broke.
   * A stream that carried an event id (`lastEventId`) is left to the SDK to
   * resume; a call the client cancelled is no longer waited for. Otherwise
   * a request still unanswered once the SDK has read what the stream held
   * fails with an error response naming `reason`.
   */
  ended(
    id: string | number,
    options: { lastEventId: string | undefined; cancelled: boolean; reason?: string },
  ): void {
    if (options.cancelled) {
      this.#waiting.delete(id);
      return;
    }
    if (options.lastEventId !== undefined) {
      if (this.#resuming.size >= MAX_WATCHED) {
        const oldest = this.#resuming.keys().next();
        if (oldest.done !== true) this.#resuming.delete(oldest.value);
      }
      this.#resuming.set(options.lastEventId, { id, failures: 0 });
      return;
    }
    this.#fail(
      id,
      options.reason === undefined ? undefined : `broke before the answer: ${options.reason}`,
    );
  }

  /**
   * The request whose answer a stream resumed from `lastEventId` (a GET with
   * `Last-Event-ID`) carries, while it is still unanswered.
   */
  resumes(lastEventId: string): string | number | undefined {
    const resuming = this.#resuming.get(lastEventId);
    if (resuming === undefined) return undefined;
    if (this.#waiting.has(resuming.id)) return resuming.id;
    this.#resuming.delete(lastEventId);
    return undefined;
  }

  /** The resumption from `lastEventId` opened: its stream is watched as the first was. */
  resumed(lastEventId: string): void {
    this.#resuming.delete(lastEventId);
  }

  /**
   * A resumption from `lastEventId` failed with `reason`. After as many
   * failures as the SDK makes attempts ({@link RESUME_ATTEMPTS}), or one it
   * does not try again after (`final`: a 405), the request fails.
   */
  resumeFailed(lastEventId: string, reason: string, final: boolean): void {
    const resuming = this.#resuming.get(lastEventId);
    if (resuming === undefined) return;
    resuming.failures += 1;
    if (!final && resuming.failures < RESUME_ATTEMPTS) return;
    this.#resuming.delete(lastEventId);
    this.#fail(resuming.id, `could not be resumed: ${reason}`);
  }

  /**
   * Fails request `id` with an error response saying how its answer stream
   * went (`broke`), once the SDK has read what the stream held, unless the
   * answer came by then.
   */
  #fail(id: string | number, broke: string | undefined): void {
    // The SDK reads the stream through transforms that settle in microtasks:
    // by the next turn of the event loop every message it held is delivered.
    setImmediate(() => {
      if (!this.#waiting.delete(id)) return;
      this.#deliver?.(lostAnswer(id, broke));
    });
  }
}

/** The error response for request `id`, whose answer stream ended without it. */
function lostAnswer(id: string | number, broke: string | undefined): JSONRPCMessage {
  const reason =
    broke === undefined
      ? 'the server ended the stream of its answer without answering'
      : `the stream of its answer ${broke}`;
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.ConnectionClosed,
      message: 'Connection closed',
      data: { [LOST_ANSWER]: reason },
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
