/**
 * The whole handshake is bounded, not only the initialize request: an SSE
 * server that never names its endpoint, and a streamable-HTTP server that
 * never answers the initialized notification, fail the connect at the
 * handshake's limit or at the caller's abort, and the server is reported.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionError } from '../../src/core/errors.js';
import { McpServerConnection } from '../../src/mcp/server-connection.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import type { McpTransportConfig } from '../../src/config/server-config.js';
import { type HttpHost, startHttpHost } from '../support/mcp-fixtures.js';

const hosts: HttpHost[] = [];
const connections: McpServerConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

function connectionTo(transport: McpTransportConfig): McpServerConnection {
  const connection = new McpServerConnection({
    session: {},
    serverName: 'slow',
    endpoint: 'normal',
    transport,
    timeoutMs: 500, // the handshake still gets its 10 s minimum
    redactor: new SecretRedactor([]),
  });
  connections.push(connection);
  return connection;
}

/** An SSE stream kept alive with comments that never sends the `endpoint` event. */
async function sseWithoutEndpoint(): Promise<HttpHost> {
  const host = await startHttpHost(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': waiting\n\n');
    const keepAlive = setInterval(() => res.write(': still waiting\n\n'), 500);
    res.on('close', () => clearInterval(keepAlive));
    await Promise.resolve();
  });
  hosts.push(host);
  return host;
}

/** Answers initialize and never answers the initialized notification's POST. */
async function httpSilentAfterInitialize(): Promise<HttpHost> {
  const host = await startHttpHost(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const message = JSON.parse(await bodyOf(req)) as { id?: number; method: string };
    if (message.method !== 'initialize') return; // never answered
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {} },
          serverInfo: { name: 'silent', version: '1' },
        },
      }),
    );
  });
  hosts.push(host);
  return host;
}

async function bodyOf(req: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

describe('the connect handshake', () => {
  it('fails at its limit when SSE never names its endpoint or HTTP never answers initialized', async () => {
    const sse = await sseWithoutEndpoint();
    const http = await httpSilentAfterInitialize();
    const started = Date.now();
    const [fromSse, fromHttp] = await Promise.allSettled([
      connectionTo({ type: 'sse', url: sse.url('/sse') }).connect(),
      connectionTo({
        type: 'streamable-http',
        url: http.url('/mcp'),
        sseFallback: false,
      }).connect(),
    ]);
    // Bounded (the SDK alone left both pending for ever), at the 10 s handshake minimum.
    expect(Date.now() - started).toBeLessThan(25_000);
    for (const outcome of [fromSse, fromHttp]) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as unknown;
      expect(error).toBeInstanceOf(McpConnectionError);
      expect((error as Error).message).toMatch(/handshake .* did not finish within 10000 ms/);
    }
    expect(connections.map((connection) => connection.state)).toEqual(['failed', 'failed']);
  }, 30_000);

  it("ends at the caller's abort", async () => {
    const sse = await sseWithoutEndpoint();
    const connection = connectionTo({ type: 'sse', url: sse.url('/sse') });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('the caller gave up')), 200);
    await expect(connection.connect({ signal: controller.signal })).rejects.toThrow(
      'the caller gave up',
    );
    expect(connection.state).toBe('failed');
  });
});
