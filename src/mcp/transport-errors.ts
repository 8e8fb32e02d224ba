/**
 * What a client's transport errors say about its connection. The SDK's
 * HTTP transports report a lost session only as an error, never as a
 * close, and its stdio transport closes itself after a line past its read
 * buffer with only an error to say why.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnreadableLineError } from './json-rpc-message.js';
import { LineTooLongError } from './line-buffer.js';

/** What a {@link TransportErrorWatch} asks of its connection. */
export interface WatchedConnection {
  readonly timeoutMs: number;
  /** True while the watched client is the connection's current one, connected. */
  isLive(): boolean;
}

/**
 * Watches one client's transport errors (give it `client.onerror`), for as
 * long as the client is its connection's current one:
 * - a legacy SSE event stream that broke ends the client (a stream opened
 *   again is a new, uninitialized session), so that the connection
 *   reconnects as after any lost connection;
 * - a streamable-HTTP 404 ends it once a ping of the session is refused
 *   with 404 too: MCP says a server that no longer knows the session
 *   answers 404, but a server without a standalone GET stream may answer
 *   that stream with 404 (MCP asks for 405) while the session is fine;
 * - a stdio line past the SDK's read buffer is remembered as
 *   {@link closedBecause}, for the connection's reason;
 * - stdio lines that are not JSON-RPC messages (a banner or a log written
 *   to stdout) are counted, for {@link unreadLines}.
 */
export class TransportErrorWatch {
  readonly #client: Client;
  readonly #connection: WatchedConnection;
  /** A ping is asking whether a 404 meant the session was lost. */
  #checking = false;
  #closedBecause: string | undefined;
  #unread = 0;
  #firstUnread: UnreadableLineError | undefined;

  constructor(client: Client, connection: WatchedConnection) {
    this.#client = client;
    this.#connection = connection;
  }

  /** Why the transport closed itself, when it said so. */
  get closedBecause(): string | undefined {
    return this.#closedBecause;
  }

  /**
   * The lines the server wrote that are not JSON-RPC messages, said for a
   * connection that failed: a stdio server that writes a banner or its log
   * to stdout never answers the handshake with anything the client reads.
   */
  get unreadLines(): string | undefined {
    const first = this.#firstUnread;
    if (first === undefined) return undefined;
    const lines = this.#unread === 1 ? '1 line' : `${String(this.#unread)} lines`;
    return (
      `the server wrote ${lines} to stdout that ${this.#unread === 1 ? 'is' : 'are'} not JSON-RPC ` +
      `(the first ${first.kind}, ${String(first.length)} characters): a stdio server writes only ` +
      'its MCP messages to stdout, and its logs to stderr'
    );
  }

  /** The client's `onerror`. */
  onError(error: Error): void {
    if (error instanceof UnreadableLineError) {
      this.#unread += 1;
      this.#firstUnread ??= error;
    }
    if (error instanceof LineTooLongError) {
      this.#closedBecause = `the server sent a line of more than ${error.limit} bytes, the most a stdio connection reads`;
    }
    if (!this.#connection.isLive()) return;
    if (error instanceof SseError) {
      this.#end();
      return;
    }
    if (!isNotFound(error) || this.#checking) return;
    this.#checking = true;
    this.#client
      .ping({ timeout: this.#connection.timeoutMs })
      .then(
        () => undefined,
        (failure: unknown) => {
          if (this.#connection.isLive() && isNotFound(failure)) this.#end();
        },
      )
      .finally(() => {
        this.#checking = false;
      });
  }

  /** Ends the client: its `onclose` makes the connection reconnect. */
  #end(): void {
    void this.#client.close().catch(() => undefined);
  }
}

/** A streamable-HTTP 404: the server does not know the session (or does not serve that request). */
function isNotFound(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}
