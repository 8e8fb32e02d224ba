import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request as httpRequest,
  type ServerResponse,
} from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { RateBudget } from '../core/rate-budget.js';

/** A host a sandboxed server may reach: `example.com`, `*.example.com`, optionally `:port`. */
export type AllowedHost = string;

/** Why a destination is refused, or undefined when it may be reached. */
export type EgressPolicy = (host: string, port: number) => string | undefined;

/** An HTTP proxy on a unix socket, the only way out of a sandbox with an allow-list. */
export interface EgressProxy {
  /** The host directory holding the socket, mounted into the sandbox. */
  readonly directory: string;
  /** The socket's file name inside {@link directory}. */
  readonly socketName: string;
  /**
   * Asks the policy again for every connection still open (a CONNECT
   * tunnel, an absolute-form request in flight) and cuts those it now
   * refuses, each reported to `onDenied`: a policy that has become stricter
   * (the level rose to `secret`) holds for what is already open too.
   */
  recheck(): void;
  close(): Promise<void>;
}

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  readonly policy: EgressPolicy;
  /** Told of every refused destination. */
  readonly onDenied?: (host: string, port: number, reason: string) => void;
}

const SOCKET_NAME = 'egress.sock';

/**
 * What a sandboxed server may make the proxy do, which runs in the
 * client's process: 100 requests or `CONNECT`s a second (after 200 at once), and 8
 * MB a second through its tunnels and requests, both ways (after 64 MB).
 * A sandboxed server repeating refused connections cost the client 84% of
 * a core (15,000 refusals a second), and a tunnel moved 1.2 GB a second
 * through it at 87%. Past the budget, a request or CONNECT waits for its
 * answer and a tunnel waits unpiped: the sandboxed server is held back,
 * not refused (past {@link MAX_EGRESS_CONNECTIONS} open, a new connection
 * is closed at once).
 */
export const EGRESS_LIMITS = Object.freeze({
  tokensPerSecond: 100,
  tokenBurst: 200,
  bytesPerSecond: 8 * 1024 * 1024,
  byteBurst: 64 * 1024 * 1024,
});

/** Connections open at once past which a new one is closed at once: each held one is a socket. */
export const MAX_EGRESS_CONNECTIONS = 256;

/**
 * Starts a proxy on a unix socket in a fresh private directory. It speaks
 * `CONNECT host:port` (HTTPS and any TCP) and absolute-form HTTP requests,
 * asks `policy` for every destination, and answers a refused one with 403
 * and the reason. It runs outside the sandbox, so the sandbox needs no
 * network of its own to use it.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-egress-'));
  const sockets = new Set<Socket>();
  const budget = new RateBudget(EGRESS_LIMITS);
  /** Bytes through the proxy, either way, at the budget's pace. */
  const paced = (): Transform =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        budget.read(chunk.length);
        if (!budget.spent) return done(null, chunk);
        void budget.refilled().then(() => done(null, chunk));
      },
    });
  /** Every connection let through and still open, with how to cut it. */
  const passages = new Set<Passage>();
  const deny = (host: string, port: number): string | undefined => {
    const reason = options.policy(host, port);
    if (reason !== undefined) options.onDenied?.(host, port, reason);
    return reason;
  };
  /** Tracks `passage` until every one of its `ends` has closed (a body may still go up after the answer). */
  const letThrough = (
    passage: Passage,
    ends: readonly { once(event: 'close', f: () => void): unknown }[],
  ) => {
    passages.add(passage);
    let open = ends.length;
    for (const end of ends) {
      end.once('close', () => {
        open -= 1;
        if (open === 0) passages.delete(passage);
      });
    }
  };
  /** Runs `handle` now, or once the budget allows: each request costs a token. */
  const inTurn = (handle: () => void): void => {
    budget.spend();
    if (budget.spent) void budget.refilled().then(handle);
    else handle();
  };
  const server = createServer((req, res) => inTurn(() => request(req, res)));
  const request = (req: IncomingMessage, res: ServerResponse): void => {
    if (res.destroyed) return; // gone while it waited
    const target = absoluteTarget(req);
    if (target === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('only absolute-form requests\n');
      return;
    }
    const refused = deny(target.hostname, target.port);
    if (refused !== undefined) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`${refused}\n`);
      return;
    }
    const upstream = httpRequest(
      {
        host: bare(target.hostname),
        port: target.port,
        method: req.method,
        path: `${target.url.pathname}${target.url.search}`,
        headers: forwardedHeaders(req, target.url.host),
      },
      (answer) => {
        try {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
        } catch {
          // A status or header Node refuses to send on (`HTTP/1.1 000`): nothing is passed on.
          upstream.destroy();
          res.destroy();
          return;
        }
        answer.pipe(paced()).pipe(res);
      },
    );
    letThrough(
      {
        host: target.hostname,
        port: target.port,
        cut: () => {
          upstream.destroy();
          req.socket.destroy();
        },
      },
      [res, upstream],
    );
    upstream.on('error', (error) => {
      // After the answer began (a reset mid-body) there is no status left to send.
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`${error.message}\n`);
    });
    // The sandbox went away: nothing more goes up.
    res.once('close', () => upstream.destroy());
    req.pipe(paced()).pipe(upstream);
  };
  // Past this many, a new connection is closed at once: each one held waiting is a socket.
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open += 1;
    socket.once('close', () => (open -= 1));
    if (open > MAX_EGRESS_CONNECTIONS) socket.destroy();
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    inTurn(() => tunnel(req, client, head));
  });
  const tunnel = (req: IncomingMessage, client: Socket, head: Buffer): void => {
    if (client.destroyed) return; // gone while it waited
    const target = hostPort(req.url ?? '');
    const refused =
      target === undefined
        ? 'the CONNECT target must be host:port'
        : deny(target.host, target.port);
    if (target === undefined || refused !== undefined) {
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${refused ?? ''}\n`,
      );
      return;
    }
    const upstream = netConnect(target.port, bare(target.host), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(paced()).pipe(client);
      client.pipe(paced()).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    letThrough(
      {
        host: target.host,
        port: target.port,
        cut: () => {
          upstream.destroy();
          client.destroy();
        },
      },
      [client, upstream],
    );
    upstream.on('error', (error) => {
      client.end(`HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n${error.message}\n`);
    });
    client.once('close', () => upstream.destroy());
  };
  const socketPath = path.join(directory, SOCKET_NAME);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  let closed: Promise<void> | undefined;
  return {
    directory,
    socketName: SOCKET_NAME,
    recheck: () => {
      for (const passage of [...passages]) {
        if (deny(passage.host, passage.port) === undefined) continue;
        passages.delete(passage);
        passage.cut();
      }
    },
    close: () => {
      closed ??= (async () => {
        budget.release();
        for (const passage of passages) passage.cut();
        passages.clear();
        for (const socket of sockets) socket.destroy();
        // A refused request whose body never ends holds its connection open: close it too.
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(directory, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

/** A connection the proxy let through: its destination, and how to cut both of its ends. */
interface Passage {
  readonly host: string;
  readonly port: number;
  cut(): void;
}

/**
 * The policy for an allow-list: a destination is allowed when its host (and
 * port, if the entry names one) matches an entry; `*.example.com` matches
 * subdomains only. Hosts compare case-insensitively.
 */
export function allowListPolicy(allow: readonly AllowedHost[]): EgressPolicy {
  const entries = allow.map((entry) => {
    const parsed = hostPort(entry);
    return parsed === undefined
      ? { host: bare(entry), port: undefined }
      : { host: bare(parsed.host), port: parsed.port };
  });
  return (host, port) => {
    const name = bare(host);
    const allowed = entries.some(
      (entry) =>
        (entry.port === undefined || entry.port === port) &&
        (entry.host.startsWith('*.')
          ? name.endsWith(entry.host.slice(1)) && name.length > entry.host.length - 1
          : name === entry.host),
    );
    return allowed
      ? undefined
      : `${host}:${port} is not on the allow-list of this sandbox (${allow.join(', ') || 'empty'})`;
  };
}

/** A host name as compared: lower case, an IPv6 address without its brackets. */
function bare(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
}

function hostPort(text: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  if (match === null) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65_536 ? { host: match[1]!, port } : undefined;
}

function absoluteTarget(
  req: IncomingMessage,
): { url: URL; hostname: string; port: number } | undefined {
  try {
    const url = new URL(req.url ?? '');
    if (url.protocol !== 'http:') return undefined;
    return { url, hostname: url.hostname, port: Number(url.port || 80) };
  } catch {
    return undefined;
  }
}

/**
 * Headers that concern one hop (RFC 9110 §7.6.1), and the proxy's own:
 * not passed on. `host` is set from the checked URL.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * The request's headers as sent upstream: `Host` is the authority the
 * policy checked (the sandbox's own `Host` would have a front end that
 * routes by it, a CDN or a shared reverse proxy, hand the request to an
 * origin the allow-list never named), without the hop's own headers, those
 * its `Connection` names, or any `Proxy-*` header.
 */
function forwardedHeaders(req: IncomingMessage, authority: string): OutgoingHttpHeaders {
  const named = new Set(
    String(req.headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim()),
  );
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (name.startsWith('proxy-')) continue;
    headers[name] = value;
  }
  headers.host = authority;
  return headers;
}
