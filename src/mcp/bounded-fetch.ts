/**
 * The `fetch` the HTTP transports are given: the SDK reads a JSON answer
 * whole (`response.json()`) and buffers an SSE event until it ends, so an
 * answer that never ends would grow the process until it dies, and keeps
 * growing after its call has timed out. Here each JSON body, and each SSE
 * event, is cut off with an error once it passes a size no real message
 * reaches.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The most bytes one message may take on an HTTP transport: a JSON body,
 * or one SSE event. Far above any real answer (10,000 rich tools list in
 * ≈ 27 MB); results are cut much smaller afterwards (`maxResultChars`).
 */
export const MAX_HTTP_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Statuses whose response has no body: left as they are. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** A `fetch` whose response bodies stop with an error past `limit` bytes per message. */
export function boundedFetch(limit: number = MAX_HTTP_MESSAGE_BYTES): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.body === null || NULL_BODY.has(response.status)) return response;
    const eventStream = response.headers.get('content-type')?.includes('text/event-stream');
    const counter = eventStream === true ? new EventCounter() : new BodyCounter();
    const bounded = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (counter.add(chunk) > limit) {
            controller.error(
              new Error(
                `the server's ${eventStream === true ? 'event' : 'answer'} passed ${limit} bytes, the most one message may take; the rest was not read`,
              ),
            );
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(bounded, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Bytes of a whole body. */
class BodyCounter {
  #bytes = 0;

  add(chunk: Uint8Array): number {
    this.#bytes += chunk.byteLength;
    return this.#bytes;
  }
}

/**
 * Bytes of the SSE events being received: an empty line (LF, CR or CRLF)
 * ends one. `add` gives the largest event the chunk held or added to, so
 * an event past the limit that also ends inside the chunk still counts.
 */
class EventCounter {
  #bytes = 0;
  #atLineStart = true;
  #afterCarriageReturn = false;

  add(chunk: Uint8Array): number {
    let largest = this.#bytes;
    for (const byte of chunk) {
      this.#bytes += 1;
      if (this.#bytes > largest) largest = this.#bytes;
      if (byte === 10 && this.#afterCarriageReturn) {
        this.#afterCarriageReturn = false; // the LF of a CRLF: the line ended at its CR
        continue;
      }
      this.#afterCarriageReturn = byte === 13;
      if (byte === 10 || byte === 13) {
        if (this.#atLineStart) this.#bytes = 0; // an empty line: the event ended
        this.#atLineStart = true;
      } else {
        this.#atLineStart = false;
      }
    }
    return largest;
  }
}
