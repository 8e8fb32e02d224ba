/**
 * `serveHttp`: serves MCP over streamable HTTP (node:http and the SDK's
 * `StreamableHTTPServerTransport`), with a JWT bearer token checked on every
 * request before anything else happens.
 *
 * Sessions: an SDK `McpServer` is connected to one transport at a time, and
 * a stateful streamable-HTTP transport serves one MCP session. So each MCP
 * session gets its own transport and its own server from the factory you
 * pass. A single server instance is accepted too, and then serves one
 * session at a time (a second `initialize` gets 409 until the first ends).
 *
 * Each MCP session is bound to the identity that opened it: a request that
 * names the session with another user's or agent session's token gets 403.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ServerOptionsError } from './errors.js';
import { authInfoFor } from './identity-auth-info.js';
import { createTokenVerifier, TokenRejectedError, type VerifiedToken } from './jwt.js';
import { runWithIdentity, type Identity } from './request-context.js';
import { checkOptions, type ServeHttpOptions } from './serve-http-options.js';

export {
  DEFAULT_HTTP_HOST,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_USER,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  type ServeHttpOptions,
} from './serve-http-options.js';

/** Makes the server for one MCP session. */
export type McpServerFactory = () => McpServer | Promise<McpServer>;

/** A running server. */
export interface HttpServerHandle {
  /** The endpoint, e.g. `http://127.0.0.1:8000/mcp`. */
  readonly url: string;
  /** The port actually bound. */
  readonly port: number;
  /** MCP sessions currently open. */
  readonly sessionCount: number;
  /** Closes every session and connection and stops listening. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  readonly identity: Identity;
  active: number;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Serves `target` at `http://<host>:<port><path>`.
 *
 * @param target - A factory called once per MCP session (recommended), or
 *   one server instance that then serves one session at a time.
 * @throws {ServerOptionsError} for a bad port, path, host or auth option.
 * @throws the listen error (e.g. `EADDRINUSE`).
 * @example
 * ```ts
 * const http = await serveHttp(() => buildServer(), { port: 8000, auth: { secret } });
 * console.log(`listening on ${http.url}`);
 * await http.close();
 * ```
 */
export async function serveHttp(
  target: McpServer | McpServerFactory,
  options: ServeHttpOptions,
): Promise<HttpServerHandle> {
  const settings = checkOptions(options);
  const verifyToken = createTokenVerifier(options.auth);
  const onError =
    options.onError ?? ((error: unknown) => console.error('[mcp-sections] serveHttp:', error));
  options.signal?.throwIfAborted();

  const single = target instanceof McpServer ? target : undefined;
  if (single === undefined && typeof target !== 'function') {
    throw new ServerOptionsError(
      'target',
      'serveHttp() needs an McpServer or a function that returns one',
    );
  }
  const factory: McpServerFactory =
    single !== undefined ? () => single : (target as McpServerFactory);
  let singleInUse = false;

  const sessions = new Map<string, Session>();
  let opening = 0;
  /** Sessions being opened, by user: counted against each user's limit. */
  const openingByUser = new Map<string, number>();
  let closing: Promise<void> | undefined;

  const httpServer: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) sendRpcError(res, 500, -32603, 'Internal server error');
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (closing !== undefined) return sendRpcError(res, 503, -32000, 'Server is shutting down');
    const pathname = requestPath(req.url);
    // A target no URL parser reads is the client's mistake, not the server's failure.
    if (pathname === undefined) return sendRpcError(res, 400, -32000, 'Bad request target');
    if (pathname !== settings.path)
      return sendRpcError(res, 404, -32000, `Not found; the MCP endpoint is ${settings.path}`);
    const method = req.method ?? '';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      res.setHeader('Allow', 'GET, POST, DELETE');
      return sendRpcError(res, 405, -32000, `Method ${method} not allowed`);
    }

    // Authentication comes first: nothing is read, created or run for an
    // unauthenticated request.
    const token = bearerToken(req.headers.authorization);
    let verified: VerifiedToken;
    try {
      if (token === undefined) throw new TokenRejectedError('missing', 'missing bearer token');
      verified = await verifyToken(token);
    } catch (error) {
      if (error instanceof TokenRejectedError) return sendUnauthorized(res, error);
      throw error;
    }
    const auth = authInfoFor(token, verified);

    const sessionHeader = req.headers['mcp-session-id'];
    if (Array.isArray(sessionHeader)) {
      return sendRpcError(res, 400, -32000, 'Bad Request: more than one Mcp-Session-Id header');
    }
    if (sessionHeader !== undefined) {
      const session = sessions.get(sessionHeader);
      if (session === undefined) return sendRpcError(res, 404, -32001, 'Session not found');
      if (!sameIdentity(session.identity, verified.identity)) {
        return sendRpcError(
          res,
          403,
          -32000,
          'Forbidden: the token belongs to another user or session than this MCP session',
        );
      }
      return dispatch(session, req, res, auth, verified.identity);
    }

    if (method !== 'POST') {
      return sendRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    const body = await readJsonBody(req, settings.maxRequestBodyBytes);
    if (body.kind === 'too-large') {
      return sendRpcError(
        res,
        413,
        -32000,
        `Request body exceeds ${settings.maxRequestBodyBytes} bytes`,
      );
    }
    if (body.kind === 'invalid') return sendRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    if (!isInitializeRequest(body.value)) {
      return sendRpcError(
        res,
        400,
        -32000,
        'Bad Request: no session; the first request must be initialize',
      );
    }
    if (sessions.size + opening >= settings.maxSessions) {
      return sendRpcError(res, 503, -32000, `Too many open sessions (${settings.maxSessions})`);
    }
    if (sessionsOf(verified.identity.userId) >= settings.maxSessionsPerUser) {
      return sendRpcError(
        res,
        429,
        -32000,
        `Too many open sessions of this user (${settings.maxSessionsPerUser}); end one first`,
      );
    }
    if (single !== undefined && singleInUse) {
      return sendRpcError(
        res,
        409,
        -32000,
        'This server serves one session at a time; pass serveHttp() a factory to serve several',
      );
    }
    await openSession(req, res, auth, verified.identity, body.value);
  }

  /** Sessions of `userId`, open or opening. */
  function sessionsOf(userId: string): number {
    let count = openingByUser.get(userId) ?? 0;
    for (const session of sessions.values()) if (session.identity.userId === userId) count++;
    return count;
  }

  async function openSession(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo,
    identity: Identity,
    body: unknown,
  ): Promise<void> {
    opening++;
    openingByUser.set(identity.userId, (openingByUser.get(identity.userId) ?? 0) + 1);
    if (single !== undefined) singleInUse = true;
    let server: McpServer | undefined;
    let registered = false;
    try {
      const created = await factory();
      server = created;
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        maxRequestBodySize: settings.maxRequestBodyBytes,
        onsessioninitialized: (id) => {
          // Counted active: the initialize response itself is in flight.
          sessions.set(id, {
            transport,
            server: created,
            identity,
            active: 1,
            idleTimer: undefined,
          });
          registered = true;
        },
      });
      // Set before connect(): the SDK chains its own handler after ours.
      transport.onclose = () => {
        const id = transport.sessionId;
        const session = id === undefined ? undefined : sessions.get(id);
        if (id !== undefined && session?.transport === transport) {
          clearTimeout(session.idleTimer);
          sessions.delete(id);
        }
        if (single !== undefined) singleInUse = false;
      };
      await created.connect(transport);
      const lookup = (): Session | undefined => {
        const id = transport.sessionId;
        return id === undefined ? undefined : sessions.get(id);
      };
      await runWithIdentity(identity, () => forward(transport, req, res, auth, body, lookup));
    } finally {
      opening--;
      const left = (openingByUser.get(identity.userId) ?? 1) - 1;
      if (left > 0) openingByUser.set(identity.userId, left);
      else openingByUser.delete(identity.userId);
      // An initialize the transport refused (a bad Accept header, say) leaves
      // a server no session will use; one opened during close() is closed too.
      if (!registered || closing !== undefined) {
        if (single !== undefined) singleInUse = false;
        await server?.close().catch(onError);
      }
    }
  }

  async function dispatch(
    session: Session,
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo,
    identity: Identity,
  ): Promise<void> {
    session.active++;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    await runWithIdentity(identity, () =>
      forward(session.transport, req, res, auth, undefined, () => session),
    );
  }

  /**
   * Hands the request to the transport. The identity travels twice: in the
   * SDK's per-request `auth` (read by `defineTool`) and in the async context
   * set by the caller (read by plain handlers through `getUserId()`).
   */
  async function forward(
    transport: StreamableHTTPServerTransport,
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo,
    body: unknown,
    lookup: () => Session | undefined,
  ): Promise<void> {
    const request = req as IncomingMessage & { auth?: AuthInfo };
    request.auth = auth;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const session = lookup();
      if (session !== undefined) markIdle(session);
    };
    // The client may have gone while its token was checked: the response
    // closed before anyone listened, and would never say so again (the
    // session would count the request as running for ever, and never idle).
    // The request's socket, not the response's: a pipelined request's
    // response waits for the one before it with no socket of its own yet.
    if (res.destroyed || req.socket.destroyed) {
      end();
      return;
    }
    res.once('close', end);
    await transport.handleRequest(request, res, body);
  }

  /** One request of `session` ended; start its idle timer when it was the last. */
  function markIdle(session: Session): void {
    // A session that ended meanwhile (a DELETE, a closed transport) has no
    // idle time to count: with one shared server, closing it would end the
    // session that uses the server now.
    if (!isOpen(session)) return;
    session.active = Math.max(0, session.active - 1);
    if (session.active > 0 || settings.sessionIdleTimeoutMs === 0) return;
    clearTimeout(session.idleTimer);
    session.idleTimer = setTimeout(() => {
      void session.server.close().catch(onError);
    }, settings.sessionIdleTimeoutMs);
    // An idle session must not keep the process alive.
    session.idleTimer.unref();
  }

  /** Whether `session` is still the one registered under its id. */
  function isOpen(session: Session): boolean {
    const id = session.transport.sessionId;
    return id !== undefined && sessions.get(id) === session;
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(settings.port, settings.host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  httpServer.on('error', onError);

  const address = httpServer.address() as AddressInfo;
  const hostInUrl = address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${hostInUrl}:${address.port}${settings.path}`;

  function close(): Promise<void> {
    closing ??= (async () => {
      options.signal?.removeEventListener('abort', onAbort);
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        open.map(async (session) => {
          clearTimeout(session.idleTimer);
          await session.server.close().catch(onError);
        }),
      );
      // SSE streams and keep-alive sockets would hold close() open forever.
      httpServer.closeAllConnections();
      await stopped;
    })();
    return closing;
  }
  const onAbort = (): void => void close();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    url,
    port: address.port,
    get sessionCount() {
      return sessions.size;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function sameIdentity(a: Identity, b: Identity): boolean {
  return a.userId === b.userId && a.sessionId === b.sessionId;
}

type JsonBody = { kind: 'ok'; value: unknown } | { kind: 'too-large' } | { kind: 'invalid' };

async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<JsonBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { kind: 'too-large' };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) return { kind: 'too-large' };
    chunks.push(buffer);
  }
  try {
    return { kind: 'ok', value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { kind: 'invalid' };
  }
}

function sendRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The path of a request's target, or undefined when it cannot be parsed. */
function requestPath(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function sendUnauthorized(res: ServerResponse, error: TokenRejectedError): void {
  // RFC 6750 §3: no error code when the request carried no credentials. The
  // description is a quoted-string (RFC 7230 §3.2.6): its quotes and
  // backslashes escaped, anything else but printable ASCII left out.
  const description = error.message.replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '\\$&');
  const challenge =
    error.reason === 'missing'
      ? 'Bearer realm="mcp"'
      : `Bearer realm="mcp", error="invalid_token", error_description="${description}"`;
  res.setHeader('WWW-Authenticate', challenge);
  sendRpcError(res, 401, -32001, `Unauthorized: ${error.message}`);
}
