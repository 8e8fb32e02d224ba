/**
 * The read buffer of a stdio connection: what the server writes, split
 * into JSON-RPC messages at each newline. It does what the SDK's
 * `ReadBuffer` does (the same limit and message, the same verdict on each
 * line: `json-rpc-message.ts`), with work linear in what arrives: the
 * SDK's copies its whole buffer with every chunk and searches it from the
 * start, so a line of n bytes in 64 KB chunks costs O(n²). A server writing lines near the 10 MB limit held
 * the client's event loop about 200 ms per line, and every call with it.
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readJsonRpcMessage, UnreadableLineError } from './json-rpc-message.js';
import {
  ContainerCounter,
  MAX_MESSAGE_CONTAINERS,
  TooManyContainersError,
} from './message-containers.js';

const NEWLINE = 0x0a;

/** A line past the limit; its message is the SDK's `ReadBuffer` message, word for word. */
export class LineTooLongError extends Error {
  override readonly name: string = 'LineTooLongError';
  constructor(readonly limit: number) {
    super(`ReadBuffer exceeded maximum size of ${String(limit)} bytes`);
  }
}

/** What a {@link LineBuffer} tells of its reading, and asks before each line. */
export interface ReadMeter {
  /** A chunk of `bytes` arrived. */
  chunk(bytes: number): void;
  /** A line was taken, to be read as a message. */
  line(): void;
  /** Whether to leave the rest in the buffer until the transport reads again. */
  holdsBack(): boolean;
}

/** What `StdioClientTransport` asks of its read buffer. */
export interface ReadBufferLike {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/**
 * Chunks in a row that hold no newline before they are merged into one:
 * a server writing a long line in tiny pieces leaves one block per this
 * many pieces, not a Buffer each.
 */
const MERGED_RUN = 256;

/**
 * A read buffer that keeps the chunks, searches each byte for a newline
 * once, and copies each byte at most twice (into a merged block, into its
 * line), however the bytes arrive.
 */
export class LineBuffer implements ReadBufferLike {
  readonly #maxBufferSize: number;
  #chunks: Buffer[] = [];
  #length = 0;
  /** How many chunks from the start hold no newline (searched), and their bytes. */
  #searched = 0;
  #searchedBytes = 0;
  /** How many chunks from the start are merged blocks, never merged again. */
  #merged = 0;
  /** Messages found whole inside a line that was not JSON, to be read next. */
  #recovered: JSONRPCMessage[] = [];

  /** Told of what is read, and asked before each line is taken (see `read-budget.ts`). */
  meter: ReadMeter | undefined;

  constructor(maxBufferSize: number = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    this.#maxBufferSize = maxBufferSize;
  }

  /** @throws LineTooLongError, as the SDK's throws its error, past the limit (and the buffer is emptied). */
  append(chunk: Buffer): void {
    if (this.#length + chunk.length > this.#maxBufferSize) {
      this.clear();
      throw new LineTooLongError(this.#maxBufferSize);
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    this.meter?.chunk(chunk.length);
  }

  /**
   * The next message, or null until a whole line has arrived (or while
   * the {@link meter} holds reading back). The line is
   * taken before it is parsed: one that does not parse, or that holds more
   * objects and arrays than one message may (`message-containers.ts`),
   * throws, and the next call goes on after it.
   */
  readMessage(): JSONRPCMessage | null {
    if (this.meter?.holdsBack() === true) return null;
    const recovered = this.#recovered.shift();
    if (recovered !== undefined) return recovered;
    let start = this.#searchedBytes;
    for (let index = this.#searched; index < this.#chunks.length; index += 1) {
      const chunk = this.#chunks[index]!;
      const at = chunk.indexOf(NEWLINE);
      if (at !== -1) {
        this.meter?.line(); // whether it holds a message or not
        return this.#read(this.#take(index, at, start + at));
      }
      start += chunk.length;
      this.#searched = index + 1;
      this.#searchedBytes = start;
    }
    if (this.#searched - this.#merged >= MERGED_RUN) this.#mergeSearched();
    return null;
  }

  /**
   * The message on `line`. A line that starts a message but is not JSON
   * may be a message the server never ended with a newline, followed by
   * the next ones whole: those (each starting at `{"jsonrpc"`, as servers
   * write them, and read whole up to the next or the end) are kept for the
   * next calls, after the error for the line; dropped, the next one left
   * its call waiting for its whole timeout. Only such a line: a message
   * inside a log line a server wrote to stdout could be anyone's text.
   */
  #read(line: string): JSONRPCMessage {
    try {
      return readJsonRpcMessage(line);
    } catch (error) {
      if (
        error instanceof UnreadableLineError &&
        error.kind === 'not JSON' &&
        line.startsWith(MESSAGE_START)
      ) {
        for (const message of messagesWithin(line)) this.#recovered.push(message);
      }
      throw error;
    }
  }

  clear(): void {
    this.#recovered = [];
    this.#chunks = [];
    this.#length = 0;
    this.#searched = 0;
    this.#searchedBytes = 0;
    this.#merged = 0;
  }

  /** The searched chunks after the merged blocks, as one more block. */
  #mergeSearched(): void {
    const run = this.#chunks.slice(this.#merged, this.#searched);
    this.#chunks.splice(this.#merged, run.length, Buffer.concat(run));
    this.#merged += 1;
    this.#searched = this.#merged;
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
    this.#searchedBytes = 0;
    this.#merged = 0;
    // Shorter lines cannot hold that many: every object or array takes a byte.
    if (total > MAX_MESSAGE_CONTAINERS) {
      if (new ContainerCounter().add(bytes) > MAX_MESSAGE_CONTAINERS) {
        throw new TooManyContainersError('line');
      }
    }
    // A CR before the newline is dropped, as the SDK's `replace(/\r$/, '')` drops it.
    const line = bytes.toString('utf8');
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}

/** Where a message starts, as servers write them (`JSON.stringify` of an object whose first member is `jsonrpc`). */
const MESSAGE_START = '{"jsonrpc"';

/**
 * Most pieces of one line read for messages: a cut message is followed by
 * one or two whole ones, and each failed read costs an error; a line of
 * thousands of pieces held the event loop for seconds.
 */
const MAX_PIECES_READ = 8;

/** The messages that start within `line` (past its start) and read whole up to the next start or its end. */
function messagesWithin(line: string): JSONRPCMessage[] {
  const messages: JSONRPCMessage[] = [];
  let at = line.indexOf(MESSAGE_START, 1);
  for (let pieces = 0; at !== -1 && pieces < MAX_PIECES_READ; pieces += 1) {
    const next = line.indexOf(MESSAGE_START, at + 1);
    try {
      messages.push(readJsonRpcMessage(line.slice(at, next === -1 ? undefined : next)));
    } catch {
      // Not a whole message either: that piece is lost with the line.
    }
    at = next;
  }
  return messages;
}
