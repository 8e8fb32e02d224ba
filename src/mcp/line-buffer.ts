/**
 * The read buffer of a stdio connection: what the server writes, split
 * into JSON-RPC messages at each newline. It does what the SDK's
 * `ReadBuffer` does (the same limit and message, the same parsing), with
 * work linear in what arrives: the SDK's copies its whole buffer with
 * every chunk and searches it from the start, so a line of n bytes in 64
 * KB chunks costs O(n²). A server writing lines near the 10 MB limit held
 * the client's event loop about 200 ms per line, and every call with it.
 */
import {
  deserializeMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const NEWLINE = 0x0a;

/** What `StdioClientTransport` asks of its read buffer. */
export interface ReadBufferLike {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/** A read buffer that keeps the chunks and searches each byte for a newline once. */
export class LineBuffer implements ReadBufferLike {
  readonly #maxBufferSize: number;
  #chunks: Buffer[] = [];
  #length = 0;
  /** How many bytes from the start hold no newline (already searched). */
  #searched = 0;

  constructor(maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#maxBufferSize = maxBufferSize;
  }

  /** @throws Error, as the SDK's does, past the limit (and the buffer is emptied). */
  append(chunk: Buffer): void {
    if (this.#length + chunk.length > this.#maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${String(this.#maxBufferSize)} bytes`);
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  /**
   * The next message, or null until a whole line has arrived. The line is
   * taken before it is parsed: one that does not parse throws, and the
   * next call goes on after it.
   */
  readMessage(): JSONRPCMessage | null {
    let start = 0;
    for (let index = 0; index < this.#chunks.length; index += 1) {
      const chunk = this.#chunks[index]!;
      const from = Math.max(0, this.#searched - start);
      const at = from < chunk.length ? chunk.indexOf(NEWLINE, from) : -1;
      if (at !== -1) return deserializeMessage(this.#take(index, at, start + at));
      start += chunk.length;
    }
    this.#searched = this.#length;
    return null;
  }

  clear(): void {
    this.#chunks = [];
    this.#length = 0;
    this.#searched = 0;
  }

  /** The text before the newline at `at` of chunk `index` (`total` bytes in): removed with it. */
  #take(index: number, at: number, total: number): string {
    const chunk = this.#chunks[index]!;
    const bytes =
      index === 0
        ? chunk.subarray(0, at)
        : Buffer.concat([...this.#chunks.slice(0, index), chunk.subarray(0, at)], total);
    const rest = chunk.subarray(at + 1);
    this.#chunks =
      rest.length > 0 ? [rest, ...this.#chunks.slice(index + 1)] : this.#chunks.slice(index + 1);
    this.#length -= total + 1;
    this.#searched = 0;
    return bytes.toString('utf8').replace(/\r$/, '');
  }
}
