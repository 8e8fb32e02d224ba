/**
 * `mcp-sections debug`'s local web server: read-only, loopback only, and
 * behind a random token in the URL so that other users of the machine
 * cannot read the trace. Built on `node:http`; no framework.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TraceError } from '../errors.js';
import { DEFAULT_VIEWER_HOST, loopbackAddress } from './loopback.js';
import type { TraceSource } from './trace-source.js';
import { viewerDocument } from './viewer-page.js';
import { messageOf } from '../../core/errors.js';

/** Options of {@link startTraceViewer}. */
export interface TraceViewerOptions {
  /** A loopback host. @default DEFAULT_VIEWER_HOST */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** The token the URL must carry. @default 32 random bytes, base64url */
  readonly token?: string;
}

/** A running viewer. */
export interface TraceViewer {
  /** The page, token included: the only way in. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops listening and ends open connections; idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
} as const;

/**
 * Serves `source` at `http://<host>:<port>/<token>/`. Every other path, a
 * wrong token, a `Host` header that is not this loopback address (DNS
 * rebinding) and any method but GET and HEAD are refused.
 *
 * @throws TraceError `trace-options` for a host that is not loopback, a bad
 *   port or token; `trace-viewer` when the address is in use.
 */
export async function startTraceViewer(
  source: TraceSource,
  options: TraceViewerOptions = {},
): Promise<TraceViewer> {
  const host = loopbackAddress(options.host ?? DEFAULT_VIEWER_HOST);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TraceError(
      'trace-options',
      `port ${String(port)} must be an integer from 0 to 65535`,
    );
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!/^[A-Za-z0-9_-]{16,}$/.test(token)) {
    throw new TraceError(
      'trace-options',
      'token must be at least 16 characters of A-Z, a-z, 0-9, "_" or "-"',
    );
  }
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof TraceError && error.code === 'trace-read') {
        send(response, 404, 'text/plain; charset=utf-8', error.message);
        return;
      }
      send(
        response,
        500,
        'text/plain; charset=utf-8',
        `the trace could not be shown: ${message(error)}`,
      );
    });
  });
  let bound = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      send(response, 405, 'text/plain; charset=utf-8', 'this viewer is read-only');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://viewer.invalid');
    const [, given, rest, ...more] = url.pathname.split('/');
    if (!allowedHost(request.headers.host, host, bound) || !sameToken(given ?? '', token)) {
      send(
        response,
        403,
        'text/plain; charset=utf-8',
        'forbidden: open the link with the token that mcp-sections debug printed',
      );
      return;
    }
    if (more.length > 0) {
      send(response, 404, 'text/plain; charset=utf-8', 'not found');
      return;
    }
    if (rest === undefined) {
      // `/<token>` without its slash: the page's relative links would miss the token.
      response.setHeader('Location', `/${given ?? ''}/${url.search}`);
      send(
        response,
        308,
        'text/plain; charset=utf-8',
        'the viewer is at this address with a / at the end',
      );
      return;
    }
    const name = url.searchParams.get('trace') ?? undefined;
    if (rest === '') {
      const traces = await source.list();
      const current = name ?? traces[0] ?? '';
      if (!traces.includes(current)) {
        send(
          response,
          404,
          'text/plain; charset=utf-8',
          `no trace named ${JSON.stringify(current)}`,
        );
        return;
      }
      const document = viewerDocument(current, {
        mode: 'served',
        live: source.live,
        current,
        traces: traces.map((trace) => ({
          name: trace,
          href: `?trace=${encodeURIComponent(trace)}`,
        })),
      });
      response.setHeader('Content-Security-Policy', document.csp);
      send(response, 200, 'text/html; charset=utf-8', document.html);
      return;
    }
    if (rest === 'model.json') {
      const { model, version } = await source.load(name);
      if (url.searchParams.get('version') === String(version)) {
        send(response, 204, 'text/plain; charset=utf-8', '');
        return;
      }
      send(response, 200, 'application/json; charset=utf-8', JSON.stringify({ version, model }));
      return;
    }
    send(response, 404, 'text/plain; charset=utf-8', 'not found');
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw new TraceError(
      'trace-viewer',
      `the viewer could not listen on ${host}:${port}: ${message(error)}`,
      {
        cause: error,
      },
    );
  }
  bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }).then(() => source.close());
    return closing;
  };
  return {
    url: `http://${shown}:${bound}/${token}/`,
    host,
    port: bound,
    close,
    [Symbol.asyncDispose]: close,
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** Only this server's own address: a page on another name (DNS rebinding) gets nothing. */
function allowedHost(header: string | undefined, host: string, port: number): boolean {
  if (header === undefined) return false;
  const names = host === '::1' ? ['[::1]', 'localhost'] : [host, 'localhost'];
  return names.some((name) => header === `${name}:${port}`);
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function message(error: unknown): string {
  return messageOf(error);
}
