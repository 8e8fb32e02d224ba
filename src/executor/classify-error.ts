/**
 * Decides whether a failed tool call is worth retrying, and how.
 *
 * A retry is only useful when the failure says something about the
 * connection rather than about the request: a dead socket heals on a new
 * session, an overloaded gateway may answer the next attempt, but a timeout,
 * a cancellation or a rejected request would fail the same way again (or,
 * worse, run a slow tool twice). Anything unrecognised is not retried.
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * What to do about a failed call.
 *
 * - `no-retry`: report the failure.
 * - `retry-same-session`: the server side was briefly unavailable (HTTP 502,
 *   503, 504); the session itself is still good.
 * - `retry-new-session`: the connection is gone; open a new session first.
 */
export type RetryClass = 'no-retry' | 'retry-same-session' | 'retry-new-session';

/** Node and undici codes of a connection that was refused, broken or closed. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTCONN',
  'ECONNABORTED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_ALREADY_FINISHED',
  'ERR_IPC_CHANNEL_CLOSED',
  'UND_ERR_SOCKET',
  'ERR_SOCKET_CLOSED',
]);

/**
 * Codes of timeouts and aborts. They are checked so that a `fetch failed`
 * wrapper (which alone would mean "new session") does not hide a timeout
 * underneath it.
 */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'ABORT_ERR',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** JSON-RPC errors about the request itself: sending it again cannot help. */
const PROTOCOL_CODES: ReadonlySet<number> = new Set([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.MethodNotFound,
  ErrorCode.InvalidParams,
  ErrorCode.InternalError,
]);

const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

// "HTTP 503", "HTTP/1.1 503", "status 503", "status code: 504", or the reason
// phrases. A bare number is not enough: "found 503 pods" is not an outage.
const GATEWAY_MESSAGE =
  /\b(?:https?(?:\/\d(?:\.\d)?)?|status(?:\s+code)?)[\s:=(]*50[234]\b|\bbad gateway\b|\bservice unavailable\b|\bgateway time-?out\b/i;

const CONNECTION_MESSAGE =
  /connection (?:was |has been )?(?:refused|reset|closed)|broken pipe|socket hang up|socket (?:is |was |has been )?closed|not connected|transport (?:was |has been |is )?closed|fetch failed|\b(?:ECONNREFUSED|ECONNRESET|EPIPE|ENOTCONN|ECONNABORTED|ERR_STREAM_DESTROYED|ERR_STREAM_WRITE_AFTER_END|ERR_STREAM_PREMATURE_CLOSE|ERR_STREAM_ALREADY_FINISHED|ERR_IPC_CHANNEL_CLOSED|UND_ERR_SOCKET|ERR_SOCKET_CLOSED)\b|premature close|channel closed/i;

// No word boundaries on purpose: undici's "ConnectTimeoutError" counts too.
// Checked after CONNECTION_MESSAGE, so "ECONNABORTED" is a connection error.
const TIMEOUT_MESSAGE = /time-?out|timed out|abort/i;

/** The message the SDK gives its own ConnectionClosed error, with or without its prefix. */
const SDK_CONNECTION_CLOSED = /^(?:MCP error -32000: )?Connection closed$/;

/**
 * Classifies a failed call as {@link RetryClass}.
 *
 * Structured evidence anywhere along the error's `cause` chain (and inside an
 * `AggregateError`) is read first, outermost error first; messages only
 * when no error carries a recognised code or name:
 *
 * - codes `ECONNREFUSED`, `ECONNRESET`, `EPIPE`, `ENOTCONN`, `ECONNABORTED`,
 *   `ERR_STREAM_DESTROYED`, `ERR_STREAM_WRITE_AFTER_END`, `UND_ERR_SOCKET`,
 *   `ERR_SOCKET_CLOSED` → `retry-new-session`;
 * - the SDK's `McpError` with `ConnectionClosed` (-32000) →
 *   `retry-new-session`, unless its message says the request was cancelled;
 *   any other SDK `McpError` (request timeout -32001, the JSON-RPC errors
 *   -32700 and -32600 to -32603, errors a server returned) → `no-retry`,
 *   since the peer answered and would answer the same way again;
 * - `AbortError` / `TimeoutError` names and timeout codes → `no-retry`;
 * - HTTP 502, 503 or 504 in `status`, `statusCode` or a numeric `code` (the
 *   SDK's `StreamableHTTPError` and `SseError`) → `retry-same-session`;
 * - messages, case-insensitive: a 502/503/504 status → `retry-same-session`;
 *   "connection refused/reset/closed", "broken pipe", "socket hang up",
 *   "not connected", "transport closed", "fetch failed" →
 *   `retry-new-session`; "timeout", "timed out", "aborted" → `no-retry`;
 * - anything else → `no-retry`.
 *
 * A server can also use -32000 for its own errors (JSON-RPC reserves -32000
 * to -32099 for implementations), and such an error is indistinguishable
 * from the SDK's; it is treated as a closed connection and retried once.
 *
 * Never throws, whatever it is given.
 *
 * @example
 * ```ts
 * try {
 *   return await client.callTool(request);
 * } catch (error) {
 *   if (classifyError(error) === 'retry-new-session') {
 *     client = await reconnect();
 *     return await client.callTool(request);
 *   }
 *   throw error;
 * }
 * ```
 */
export function classifyError(error: unknown): RetryClass {
  try {
    const links = errorChain(error);
    for (const link of links) {
      const verdict = fromStructure(link);
      if (verdict !== undefined) return verdict;
    }
    for (const link of links) {
      const verdict = fromMessage(messageOf(link));
      if (verdict !== undefined) return verdict;
    }
  } catch {
    // A hostile getter or proxy: fall through to the safe answer.
  }
  return 'no-retry';
}

function fromStructure(link: unknown): RetryClass | undefined {
  const name = read(link, 'name');
  const code = read(link, 'code');
  if (isSdkMcpError(link, name, code)) {
    if (code === (ErrorCode.ConnectionClosed as number)) {
      // -32000 is the SDK's own code for a transport that closed under a
      // request, but also the first server-defined code (-32000 to -32099):
      // "upstream quota exceeded" from a healthy server is an answer, and
      // restarting its process would kill every other call on it. Only the
      // SDK's own wording means the connection is gone. (It also uses the
      // code for "Request was cancelled": the caller gave up on purpose.)
      return SDK_CONNECTION_CLOSED.test(messageOf(link)) ? 'retry-new-session' : 'no-retry';
    }
    // RequestTimeout, the protocol errors, and everything a server replied.
    return 'no-retry';
  }
  // Plain JSON-RPC error objects (`{ code, message }`) that never became an
  // `McpError`, e.g. a raw response's `error` member.
  if (
    typeof code === 'number' &&
    (PROTOCOL_CODES.has(code) || code === (ErrorCode.RequestTimeout as number))
  ) {
    return 'no-retry';
  }
  if (name === 'AbortError' || name === 'TimeoutError') return 'no-retry';
  if (typeof code === 'string') {
    if (CONNECTION_CODES.has(code)) return 'retry-new-session';
    if (TIMEOUT_CODES.has(code)) return 'no-retry';
  }
  for (const status of [read(link, 'status'), read(link, 'statusCode'), code]) {
    if (typeof status === 'number' && GATEWAY_STATUSES.has(status)) return 'retry-same-session';
  }
  return undefined;
}

function fromMessage(message: string): RetryClass | undefined {
  if (message === '') return undefined;
  if (GATEWAY_MESSAGE.test(message)) return 'retry-same-session';
  if (CONNECTION_MESSAGE.test(message)) return 'retry-new-session';
  if (TIMEOUT_MESSAGE.test(message)) return 'no-retry';
  return undefined;
}

/** Codes that prove the request never left this process or reached a peer. */
const UNREACHED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Codes that prove it only when raised while connecting (`syscall: 'connect'`). */
const CONNECT_PHASE_CODES: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

// "Not connected" is what the SDK's Protocol and its transports throw when
// asked to send without an open transport: nothing was written.
const UNREACHED_MESSAGE =
  /\bECONNREFUSED\b|connection (?:was )?refused|\bENOTFOUND\b|\bgetaddrinfo\b|not connected/i;

// Signs that a connection existed when things went wrong, so the request may
// have been written, read and even executed.
const MAYBE_DELIVERED_MESSAGE =
  /connection (?:was |has been )?(?:reset|closed|aborted)|broken pipe|socket hang up|socket (?:is |was |has been )?closed|transport (?:was |has been |is )?closed|time-?out|timed out|abort|\b(?:ECONNRESET|EPIPE|ENOTCONN|ECONNABORTED|UND_ERR_SOCKET|ERR_SOCKET_CLOSED|ERR_STREAM_DESTROYED|ERR_STREAM_WRITE_AFTER_END)\b/i;

/**
 * Tells whether a failed request certainly never reached the server, so that
 * sending it again cannot run a tool twice.
 *
 * True only on positive evidence that the connection never existed: a refused
 * connection (`ECONNREFUSED`), a name that did not resolve (`ENOTFOUND`,
 * `EAI_AGAIN`), a connect-phase timeout or unreachable network
 * (`syscall: 'connect'`), or the SDK's "Not connected", thrown before
 * anything is written.
 *
 * False as soon as any error along the `cause` chain hints that a connection
 * was up: `ECONNRESET`, `EPIPE`, `ENOTCONN`, a destroyed stream, the SDK's
 * connection-closed and timeout errors, any reply from the server (an SDK
 * `McpError`, an HTTP status), aborts, or messages saying so. A reset can
 * arrive after the server has read, and even executed, the request; a
 * closed transport may have flushed it first. When in doubt the answer is
 * false, because a wrong "true" duplicates side effects while a wrong
 * "false" only costs one retry.
 *
 * Never throws, whatever it is given.
 *
 * @example
 * ```ts
 * if (wasNeverDelivered(error)) return await callAgain(); // safe even for writes
 * ```
 */
export function wasNeverDelivered(error: unknown): boolean {
  try {
    let unreached = false;
    for (const link of errorChain(error)) {
      const name = read(link, 'name');
      const code = read(link, 'code');
      const message = messageOf(link);
      if (isSdkMcpError(link, name, code)) return false;
      if (name === 'AbortError' || name === 'TimeoutError') return false;
      if (typeof code === 'number' || typeof read(link, 'status') === 'number') return false;
      if (typeof code === 'string') {
        if (UNREACHED_CODES.has(code)) unreached = true;
        else if (CONNECT_PHASE_CODES.has(code) && read(link, 'syscall') === 'connect') {
          unreached = true;
        } else if (CONNECTION_CODES.has(code) || TIMEOUT_CODES.has(code)) return false;
      }
      // Codes outrank messages: "connect ETIMEDOUT" is a connect-phase timeout.
      if (
        typeof code !== 'string' ||
        !(UNREACHED_CODES.has(code) || CONNECT_PHASE_CODES.has(code))
      ) {
        if (MAYBE_DELIVERED_MESSAGE.test(message)) return false;
        if (UNREACHED_MESSAGE.test(message)) unreached = true;
      }
    }
    return unreached;
  } catch {
    return false;
  }
}

/** The error, its causes and the members of any `AggregateError`, outermost first. */
function errorChain(error: unknown): unknown[] {
  const links: unknown[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  // Bounded: cause chains can be cyclic or absurdly long.
  while (queue.length > 0 && links.length < 32) {
    const link = queue.shift();
    if (link === undefined || link === null || seen.has(link)) continue;
    seen.add(link);
    links.push(link);
    queue.push(read(link, 'cause'));
    const members = read(link, 'errors');
    if (Array.isArray(members)) queue.push(...(members as unknown[]));
  }
  return links;
}

function isSdkMcpError(link: unknown, name: unknown, code: unknown): boolean {
  // The name check covers a second copy of the SDK in node_modules, where
  // `instanceof` fails; the numeric code tells it apart from this library's
  // own `McpError`, whose code is a string.
  return link instanceof McpError || (name === 'McpError' && typeof code === 'number');
}

function messageOf(link: unknown): string {
  if (typeof link === 'string') return link;
  const message = read(link, 'message');
  return typeof message === 'string' ? message : '';
}

function read(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
