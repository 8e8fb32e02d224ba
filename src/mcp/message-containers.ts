/**
 * The objects and arrays one message from a server holds, counted on its
 * bytes before it is parsed. Bytes alone do not bound the work of a
 * message: 60 MB of `{},` parse into 20 million objects, which took
 * `JSON.parse` 23 s and 1.4 GB of heap, with every timer of the process
 * held. A million objects and arrays parse in about a third of a second;
 * 10,000 rich tools list with about 320,000.
 */

/** The most objects and arrays one message may hold. */
export const MAX_MESSAGE_CONTAINERS = 1_000_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Counts the `{` and `[` of JSON text outside its strings, as its bytes
 * arrive in any pieces. A line break ends any string (JSON text has none
 * inside one), so a counter that reads SSE lines or broken text finds its
 * footing again at the next line.
 */
export class ContainerCounter {
  /** The objects and arrays opened so far. */
  count = 0;
  #inString = false;
  #escaped = false;

  /** Counts `bytes` (all of them, or from `start` to `end`); returns the count so far. */
  add(bytes: Uint8Array, start = 0, end = bytes.length): number {
    let count = this.count;
    let inString = this.#inString;
    let escaped = this.#escaped;
    for (let index = start; index < end; index++) {
      const byte = bytes[index]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE || byte === LINE_FEED || byte === CARRIAGE_RETURN) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) count++;
    }
    this.count = count;
    this.#inString = inString;
    this.#escaped = escaped;
    return count;
  }

  /** Starts a new message. */
  reset(): void {
    this.count = 0;
    this.#inString = false;
    this.#escaped = false;
  }
}

/** Why a message was not read: it held too many objects and arrays. */
export class TooManyContainersError extends Error {
  override readonly name: string = 'TooManyContainersError';
  constructor(
    readonly what: string,
    readonly limit: number = MAX_MESSAGE_CONTAINERS,
  ) {
    super(
      `the server's ${what} held more than ${limit} objects and arrays, the most one message may hold; it was not read`,
    );
  }
}
