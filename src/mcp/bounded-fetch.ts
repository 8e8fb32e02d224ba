/**
 * The `fetch` the HTTP transports are given. What a server answers is
 * bounded, and where the client sends is the configured endpoint's:
 * - each JSON body, and each SSE event, stops with an error once it passes
 *   a size no real message reaches (the SDK reads a JSON answer whole and
 *   buffers an SSE event until it ends, so an answer that never ends would
 *   grow the process until it dies), or once it holds more objects and
 *   arrays than one message may (`message-containers.ts`: parsing them
 *   would hold the event loop for seconds);
 * - a redirect is never followed, and nothing is sent but to the
 *   configured URL (streamable HTTP) or under its directory (an SSE server
 *   names where to post; no encoded separator or `;` there): an isolated
 *   endpoint could otherwise send a call's arguments on to the normal
 *   deployment behind the same host;
 * - the server's event stream (GET) is opened again at most four times a
 *   second, whatever `retry:` it asks for;
 * - a call's answer is closed when the client cancels the call (a timeout,
 *   an abort), an event stream or a JSON body alike: a server that keeps it
 *   open would otherwise hold a socket per call, and have the client read
 *   and keep up to a message's limit of it, until the connection ends;
 * - each request's answer stream (and a resumption of it) is reported to
 *   `AnswerStreams` when it opens and ends, so that one that ends without
 *   its answer fails its request at once (`lost-answers.ts`).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { messageOf } from '../core/errors.js';
import { pause } from '../core/pause.js';
import { TOKENS_PER_TURN } from '../core/rate-budget.js';
import type { AnswerStreams } from './lost-answers.js';
import type { ReadBudget } from './read-budget.js';
import {
  ContainerCounter,
  MAX_MESSAGE_CONTAINERS,
  TooManyContainersError,
} from './message-containers.js';

/**
 * The most bytes one message may take on an HTTP transport: a JSON body,
 * or one SSE event. Far above any real answer (10,000 rich tools list in
 * ≈ 27 MB); results are cut much smaller afterwards (`maxResultChars`).
 */
export const MAX_HTTP_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The server's event stream is opened again at most this often: a
 * server's `retry:` is respected above it (MCP's conformance suite asks
 * for 500 ms), and `retry: 0` no longer has the client reopen it some 300
 * times a second.
 */
export const MIN_STREAM_REOPEN_MS = 250;

/**
 * The most bytes read of an answer that is an HTTP error (a status of 400
 * or more): the SDK only quotes it in a message, which is cut far shorter.
 * A 60 MB error page was read whole, and masked whole, for every call.
 */
export const MAX_ERROR_BODY_BYTES = 65_536;

/** Requests read for their JSON-RPC id (to close a cancelled call's answer) up to this size. */
const MAX_READ_REQUEST_CHARS = 1_048_576;

/** Answer streams tracked at once; past it the oldest is forgotten (left to the server to end). */
const MAX_TRACKED_ANSWERS = 10_000;

/** Statuses whose response has no body: left as they are. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Options of {@link boundedFetch}. */
export interface BoundedFetchOptions {
  /** @default {@link MAX_HTTP_MESSAGE_BYTES} */
  readonly limit?: number;
  /** The configured URL: requests may go only to its origin, and to `paths` of it. */
  readonly endpoint?: URL;
  /**
   * `exact`: only the endpoint's own path (streamable HTTP sends nowhere
   * else); `directory`: under its directory, where an SSE server names the
   * path to post to. @default 'directory'
   */
  readonly paths?: 'exact' | 'directory';
  /** Told when a request's answer stream opens and ends (streamable HTTP). */
  readonly answers?: AnswerStreams;
  /** Told of every byte read; while it is spent, every answer and event stream waits before passing on what it read. */
  readonly budget?: ReadBudget;
}

/** Encoded separators and dot segments, which a proxy in front of a server may decode into another path. */
const AMBIGUOUS_PATH = /%2e|%2f|%5c|;/i;

/** A `fetch` for one endpoint's transport (see the module's note). */
export function boundedFetch(options: BoundedFetchOptions = {}): FetchLike {
  const {
    limit = MAX_HTTP_MESSAGE_BYTES,
    endpoint,
    paths = 'directory',
    answers,
    budget,
  } = options;
  const allowed =
    endpoint === undefined
      ? undefined
      : paths === 'exact'
        ? (path: string) => path === endpoint.pathname
        : (path: string) => path.startsWith(directoryOf(endpoint));
  let nextStreamAt = 0;
  /** Closes the answer stream of a request still being answered, by its JSON-RPC id. */
  const answering = new Map<string | number, () => void>();
  /** Requests cancelled before their answer began: closed when it does. */
  const cancelledEarly = new Set<string | number>();
  /**
   * The last event id of each answer stream the client closed (its call was
   * cancelled, or an event passed a bound): the SDK resumes such a stream
   * (a GET with `Last-Event-ID`), which would then stay open for a call
   * nobody waits for, or bring the same event again.
   */
  const closedEvents = new Set<string>();
  /**
   * The server's own event stream (a GET that resumes nothing) is open: the
   * SDK opens another whenever a resumption ends without an id, and each
   * stayed open for as long as the server liked, one more per call.
   */
  let ownStreamOpen = false;
  return async (url, init) => {
    const target = new URL(url instanceof URL ? url.href : url);
    if (endpoint !== undefined && allowed !== undefined) {
      const { pathname } = target;
      const mine = target.origin === endpoint.origin && allowed(pathname);
      if (!mine || (pathname !== endpoint.pathname && AMBIGUOUS_PATH.test(pathname))) {
        throw new Error(
          `the server named ${target.origin}${pathname} to send to, outside ${endpoint.origin}${
            paths === 'exact' ? endpoint.pathname : directoryOf(endpoint)
          }, where it is configured; nothing is sent there`,
        );
      }
    }
    const method = (init?.method ?? 'GET').toUpperCase();
    const resumed = method === 'GET' ? new Headers(init?.headers).get('last-event-id') : null;
    // What a resumed stream carries (see lost-answers.ts).
    const resumption = resumed === null ? undefined : answers?.resumption(resumed);
    // Kept, not taken: a server may give every stream the same first id.
    if (
      resumed !== null &&
      (resumed.length > MAX_EVENT_ID_LENGTH ||
        closedEvents.has(resumed) ||
        resumption === 'answered')
    ) {
      // What the SDK reads as "no stream here": it does not try again.
      return new Response(null, { status: 405, statusText: 'nobody waits for this stream' });
    }
    if (method === 'GET') {
      // A server that ends its stream with `retry: 0` would have it opened again without
      // pause; the slot is taken before the wait, so that streams opened together queue.
      const at = Math.max(Date.now(), nextStreamAt);
      nextStreamAt = at + MIN_STREAM_REOPEN_MS;
      if (at > Date.now()) await pause(at - Date.now(), init?.signal ?? undefined);
      if (resumed === null && ownStreamOpen) {
        return new Response(null, {
          status: 405,
          statusText: "the server's own event stream is open already",
        });
      }
    }
    const cancelled = cancelledRequest(init?.body);
    if (cancelled !== undefined) {
      const close = answering.get(cancelled);
      answering.delete(cancelled);
      if (close !== undefined) close();
      else {
        // Cancelled before its answer began (a call that timed out on a slow
        // server): the answer is closed as soon as it starts.
        remember(cancelledEarly, cancelled);
      }
    }
    // A resumption of an answer stream someone waits for: watched as the first one was.
    const waiting = typeof resumption === 'object' ? resumption.waiting : undefined;
    const resuming = waiting === undefined ? undefined : (resumed ?? undefined);
    let response: Response;
    try {
      response = await fetch(withoutCredentials(target), {
        ...init,
        ...credentialsHeader(target, init?.headers),
        redirect: 'manual',
      });
    } catch (error) {
      if (resuming !== undefined) answers?.resumeFailed(resuming, messageOf(error), false);
      throw error;
    }
    if (resuming !== undefined) {
      const { ok, status } = response;
      // The SDK tries again after any failure but a 405 ("no stream here").
      if (ok) answers?.resumed(resuming);
      else answers?.resumeFailed(resuming, `the server answered ${status}`, status === 405);
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new Error(
        `the server answered ${response.status}, a redirect${location === null ? '' : ` to ${location}`}, which is not followed: configure the URL it names`,
      );
    }
    if (response.body === null || NULL_BODY.has(response.status)) return response;
    const eventStream = isEventStream(response.headers.get('content-type'));
    const ownStream = method === 'GET' && resumed === null && response.ok && eventStream;
    if (ownStream) ownStreamOpen = true;
    const counter = eventStream ? new EventCounter() : new BodyCounter();
    // Any answer can be left open, an event stream or a JSON body that never ends.
    const id = requestId(init?.body) ?? waiting;
    const forget = (): void => {
      if (id !== undefined) answering.delete(id);
    };
    const eventIds = id === undefined || !eventStream ? undefined : new LastEventId();
    /** The bytes of an error answer passed on so far. */
    let quoted = 0;
    /** The client no longer reads the answer: its call was cancelled. */
    let callCancelled = false;
    /** An event passed a bound: the stream must not be resumed (it would bring the same again). */
    let boundCut = false;
    /** Ends the answer with `error`, at a bound. */
    const cut = (controller: TransformStreamDefaultController<Uint8Array>, error: Error): void => {
      forget();
      const last = eventIds?.last;
      if (last !== undefined) remember(closedEvents, last);
      boundCut = true;
      controller.error(error);
    };
    /**
     * Passes `chunk` on, within the bounds: all of it, or of an event
     * stream's chunk only as far as `frames` more of the budget's tokens
     * (the rest is read after a turn of the event loop). Returns the bytes
     * passed on, or `undefined` once the answer ended.
     */
    const readChunk = (
      chunk: Uint8Array,
      controller: TransformStreamDefaultController<Uint8Array>,
      frames: number,
    ): number | undefined => {
      if (response.status >= 400) {
        budget?.read(chunk.byteLength);
        // Only quoted: what is past the bound is not read.
        const room = MAX_ERROR_BODY_BYTES - quoted;
        if (chunk.byteLength <= room) {
          quoted += chunk.byteLength;
          controller.enqueue(chunk);
          return chunk.byteLength;
        }
        controller.enqueue(chunk.subarray(0, room));
        forget();
        controller.terminate();
        return undefined;
      }
      const what = eventStream ? 'event' : 'answer';
      const framesBefore = counter.frames;
      const largest = counter.add(chunk, frames);
      const part = counter.read === chunk.byteLength ? chunk : chunk.subarray(0, counter.read);
      budget?.read(part.byteLength);
      // Every event costs the budget, those the SDK skips or cannot read too, and long ones more.
      budget?.spend(counter.frames - framesBefore);
      if (largest > limit) {
        cut(
          controller,
          new Error(
            `the server's ${what} passed ${limit} bytes, the most one message may take; the rest was not read`,
          ),
        );
        return undefined;
      }
      if (counter.containers > MAX_MESSAGE_CONTAINERS) {
        cut(controller, new TooManyContainersError(what));
        return undefined;
      }
      eventIds?.add(part);
      controller.enqueue(part);
      return part.byteLength;
    };
    /**
     * Reads `chunk` on the budget: while it is spent, the stream waits (its
     * socket fills) and the event loop turns meanwhile; a turn's worth of
     * an event stream's tokens at a time, so that one chunk of short lines
     * is not all parsed in one turn (a 64 KB chunk of 2-byte lines held
     * the loop for some 340 ms).
     */
    const readOnBudget = (
      chunk: Uint8Array,
      controller: TransformStreamDefaultController<Uint8Array>,
    ): void | Promise<void> => {
      if (budget === undefined) {
        readChunk(chunk, controller, Infinity);
        return;
      }
      let rest = chunk;
      while (!budget.spent) {
        const read = readChunk(rest, controller, TOKENS_PER_TURN);
        if (read === undefined || read === rest.byteLength) return;
        rest = rest.subarray(read);
      }
      return budget.refilled().then(() => readOnBudget(rest, controller));
    };
    const bounded = new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (id === undefined) return;
        if (cancelledEarly.delete(id)) {
          callCancelled = true;
          controller.error(new Error('the call was cancelled: its answer is no longer read'));
          return;
        }
        if (answering.size >= MAX_TRACKED_ANSWERS) {
          const oldest = answering.keys().next();
          if (oldest.done !== true) answering.delete(oldest.value);
        }
        answering.set(id, () => {
          const last = eventIds?.last;
          if (last !== undefined) remember(closedEvents, last);
          callCancelled = true;
          controller.error(new Error('the call was cancelled: its answer is no longer read'));
        });
      },
      // What the server sends is read at a bounded rate (read-budget.ts).
      transform: readOnBudget,
      flush: forget,
    });
    // The answer of a request is watched from here to its end (see lost-answers.ts).
    const watched = answers !== undefined && response.ok ? id : undefined;
    if (watched !== undefined) answers?.opened(watched);
    const kind = eventStream ? 'event stream' : 'JSON reply';
    response.body.pipeTo(bounded.writable).then(
      () => {
        if (ownStream) ownStreamOpen = false;
        if (watched === undefined) return;
        answers?.ended(watched, { kind, lastEventId: eventIds?.last, cancelled: callCancelled });
      },
      (error: unknown) => {
        if (ownStream) ownStreamOpen = false;
        if (watched === undefined) return;
        answers?.ended(watched, {
          kind,
          // A JSON reply that broke fails its request in the SDK already.
          cancelled: callCancelled || !eventStream,
          lastEventId: boundCut ? undefined : eventIds?.last,
          broke: messageOf(error),
        });
      },
    );
    return new Response(bounded.readable, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Whether `contentType` names an event stream, as the SDK reads it: its
 * media type, without parameters, in any case.
 */
function isEventStream(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(';');
  const essence = semicolon < 0 ? contentType : contentType.slice(0, semicolon);
  return essence.trim().toLowerCase() === 'text/event-stream';
}

/**
 * `url` without the user and password it may carry (`https://user:pass@host/mcp`):
 * `fetch` refuses a URL with credentials, so they go in a header instead.
 */
function withoutCredentials(url: URL): URL {
  if (url.username === '' && url.password === '') return url;
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return bare;
}

/**
 * The headers of a request to `url`, with its credentials as HTTP Basic
 * authorization, unless the request names its own `Authorization`; none
 * when the URL carries no credentials.
 */
function credentialsHeader(
  url: URL,
  headers: NonNullable<Parameters<FetchLike>[1]>['headers'],
): { headers?: Headers } {
  if (url.username === '' && url.password === '') return {};
  const merged = new Headers(headers);
  if (!merged.has('authorization')) {
    const pair = `${decoded(url.username)}:${decoded(url.password)}`;
    merged.set('authorization', `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`);
  }
  return { headers: merged };
}

/** A URL's percent-encoded part as text; as it is when it does not decode. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The path up to its last `/`: where an endpoint's siblings live. */
function directoryOf(url: URL): string {
  return url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1);
}

/** The request a cancellation (`notifications/cancelled`) names, if `body` is one. */
function cancelledRequest(body: unknown): string | number | undefined {
  // Cheap first: a call's own body is not parsed again here.
  if (typeof body !== 'string' || !body.includes('"notifications/cancelled"')) return undefined;
  const message = parseMessage(body) as
    { method?: unknown; params?: { requestId?: unknown } } | undefined;
  const requestId =
    message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/**
 * A request's id as the SDK writes it, last (`{"method":…,"jsonrpc":"2.0","id":7}`):
 * read without parsing the call's arguments a second time.
 */
const LAST_ID = /^\{"method":.*,"id":(\d{1,15}|"[^"\\]{0,256}")\}$/s;

/** The JSON-RPC id `body`, a request, asks under. */
function requestId(body: unknown): string | number | undefined {
  if (typeof body === 'string') {
    const id = LAST_ID.exec(body)?.[1];
    if (id !== undefined) return id.startsWith('"') ? id.slice(1, -1) : Number(id);
  }
  const message = parseMessage(body) as { id?: unknown; method?: unknown } | undefined;
  const id = message?.id;
  return typeof message?.method === 'string' && (typeof id === 'string' || typeof id === 'number')
    ? id
    : undefined;
}

/** `body` as one JSON-RPC message object, when it is one and not too large to read. */
function parseMessage(body: unknown): object | undefined {
  if (typeof body !== 'string' || body.length > MAX_READ_REQUEST_CHARS) return undefined;
  try {
    const message: unknown = JSON.parse(body);
    return typeof message === 'object' && message !== null && !Array.isArray(message)
      ? message
      : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes of a whole body, and the objects and arrays it holds. */
class BodyCounter {
  /** Messages read, as the read budget counts them: a body is one, once it begins. */
  frames = 0;
  #bytes = 0;
  readonly #containers = new ContainerCounter();

  get containers(): number {
    return this.#containers.count;
  }

  /** Bytes of the last chunk added that were read: all of them. */
  read = 0;

  add(chunk: Uint8Array): number {
    this.read = chunk.byteLength;
    this.frames = 1;
    this.#bytes += chunk.byteLength;
    this.#containers.add(chunk);
    return this.#bytes;
  }
}

/**
 * Lines an event may have at the price of one (`event`, `id`, `data`,
 * `retry`); each further line costs as much as an event. A stream of lines
 * that never end an event cost nothing but bytes, and the SDK's parser
 * makes an error, stack and all, for each line with a field it does not
 * know: 2-byte lines of `x` held the client at 98% CPU, with its event
 * loop stalled for 8 s at a time.
 */
const LINES_PER_EVENT = 4;

/**
 * Bytes of the SSE events being received, and the objects and arrays
 * they hold: an empty line (LF, CR or CRLF) ends one. `add` gives the
 * largest event the part of the chunk it read held or added to, and
 * {@link containers} the most objects and arrays of one, so an event past
 * a limit that also ends inside the chunk still counts.
 */
class EventCounter {
  /** The most objects and arrays of one event the chunks so far held. */
  containers = 0;
  /**
   * What the read budget charges so far: each event ended, dispatched or
   * not (an empty line ends one, even an empty one), and each line of an
   * event past its {@link LINES_PER_EVENT}th.
   */
  frames = 0;
  /** Bytes of the last chunk added that were read: up to where its frames reached their bound. */
  read = 0;
  #bytes = 0;
  /** Lines of the event being read. */
  #lines = 0;
  #atLineStart = true;
  #afterCarriageReturn = false;
  readonly #opened = new ContainerCounter();

  /** Reads `chunk` until it is read or `maxFrames` more {@link frames} are charged. */
  add(chunk: Uint8Array, maxFrames = Infinity): number {
    let largest = this.#bytes;
    let eventStart = 0;
    const stopAt = this.frames + maxFrames;
    let index = 0;
    while (index < chunk.length && this.frames < stopAt) {
      const byte = chunk[index]!;
      index += 1;
      this.#bytes += 1;
      if (this.#bytes > largest) largest = this.#bytes;
      if (byte === 10 && this.#afterCarriageReturn) {
        this.#afterCarriageReturn = false; // the LF of a CRLF: the line ended at its CR
        continue;
      }
      this.#afterCarriageReturn = byte === 13;
      if (byte === 10 || byte === 13) {
        if (this.#atLineStart) {
          // An empty line: the event ended.
          this.frames += 1;
          this.#bytes = 0;
          this.#lines = 0;
          this.#countContainers(chunk, eventStart, index - 1);
          this.#opened.reset();
          eventStart = index;
        } else if (++this.#lines > LINES_PER_EVENT) {
          this.frames += 1;
        }
        this.#atLineStart = true;
      } else {
        this.#atLineStart = false;
      }
    }
    this.read = index;
    this.#countContainers(chunk, eventStart, index);
    return largest;
  }

  #countContainers(chunk: Uint8Array, start: number, end: number): void {
    const count = this.#opened.add(chunk, start, end);
    if (count > this.containers) this.containers = count;
  }
}

/** Adds `value` to `set`, dropping the oldest past {@link MAX_TRACKED_ANSWERS}. */
function remember<T>(set: Set<T>, value: T): void {
  if (set.size >= MAX_TRACKED_ANSWERS) {
    const oldest = set.values().next();
    if (oldest.done !== true) set.delete(oldest.value);
  }
  set.add(value);
}

/**
 * The id of the last event of a stream that the SDK's parser dispatches,
 * read as its chunks pass: an event is dispatched at the empty line that
 * ends it, and only when it has a data line; its id counts when it is not
 * empty and holds no NUL, as the SDK reads it. An id on an event that never
 * ended (a stream cut inside it) is none the SDK can resume from.
 */
class LastEventId {
  last: string | undefined;
  readonly #decoder = new TextDecoder();
  /** The line the last chunk ended inside, at most a line's worth. */
  #partial = '';
  /** The last chunk ended with a CR: an LF that starts the next ends the same line. */
  #afterCarriageReturn = false;
  /** The id and data fields of the event being read. */
  #id: string | undefined;
  #hasData = false;

  add(chunk: Uint8Array): void {
    let text = this.#decoder.decode(chunk, { stream: true });
    if (this.#afterCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    if (text.length > 0) this.#afterCarriageReturn = text.endsWith('\r');
    const lines = (this.#partial + text).split(/\r\n|\r|\n/);
    this.#partial = (lines.pop() ?? '').slice(0, MAX_EVENT_ID_LINE);
    for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#hasData && this.#id !== undefined && this.#id !== '') this.last = this.#id;
      this.#id = undefined;
      this.#hasData = false;
    } else if (line === 'id' || line.startsWith('id:')) {
      const value = line.slice(line.startsWith('id: ') ? 4 : 3);
      // A longer id is never resumed from (its line may have been cut here).
      if (!value.includes('\0')) this.#id = value.length > MAX_EVENT_ID_LENGTH ? undefined : value;
    } else if (line === 'data' || line.startsWith('data:')) {
      this.#hasData = true;
    }
  }
}

/** Longest line read for an event id: longer ones are kept cut (see {@link MAX_EVENT_ID_LENGTH}). */
const MAX_EVENT_ID_LINE = 1_024;

/**
 * Longest event id a stream is resumed from: the SDK sends back any id
 * whole, but one longer than its line as read here could not be told from
 * another, and a resumption nobody tracks stays open for as long as the
 * server likes (twenty calls that timed out left twenty streams open).
 */
const MAX_EVENT_ID_LENGTH = 1_000;
