/**
 * HTTP transports against in-test servers on 127.0.0.1: configured headers
 * reach the server, streamable HTTP falls back to SSE only when the first
 * POST is answered 404 or 405, and never on 401 or 403.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import {
  McpConnectionError,
  McpIntegrationSection,
  McpServerConnected,
  Session,
  invokeTool,
} from '../../src/index.js';
import {
  rawToolServer,
  recordEvents,
  startHttpHost,
  toolNamed,
  type HttpHost,
} from '../support/mcp-fixtures.js';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes a message',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
  handler: (args: Record<string, unknown> | undefined) => ({
    content: [{ type: 'text' as const, text: `echo: ${String(args?.message)}` }],
  }),
};

/** A stateless streamable-HTTP MCP endpoint at /mcp: one SDK server per POST. */
function startStreamableHost(): Promise<HttpHost> {
  return startHttpHost(async (req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/mcp')) {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const { server } = rawToolServer([ECHO_TOOL]);
    // No sessionIdGenerator: stateless.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
}

/** An SSE-only MCP endpoint: GET /mcp opens the stream, POST /mcp gets `postStatus`. */
function startSseOnlyHost(postStatus: number): Promise<HttpHost> {
  const sessions = new Map<string, SSEServerTransport>();
  return startHttpHost(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mcp' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      await rawToolServer([ECHO_TOOL]).server.connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (transport === undefined) {
        res.writeHead(404).end('unknown session');
        return;
      }
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(postStatus, { 'content-type': 'text/plain' }).end(`status ${postStatus}`);
  });
}

describe('HTTP transports', () => {
  it('sends the configured headers with every request', async () => {
    await using host = await startStreamableHost();
    const session = new Session();
    await using section = new McpIntegrationSection({
      servers: [
        {
          name: 'remote',
          transport: {
            type: 'streamable-http',
            url: host.url('/mcp'),
            headers: { Authorization: 'Bearer test-token-123', 'X-Tenant': 'acme' },
          },
        },
      ],
      session,
    });
    await section.connect();
    const result = await invokeTool(
      toolNamed(section, 'remote_echo'),
      { message: 'hi' },
      { session },
    );
    expect(result).toMatchObject({ success: true, message: 'echo: hi' });

    const posts = host.requests.filter((request) => request.method === 'POST');
    // initialize, notifications/initialized, tools/list, tools/call
    expect(posts.length).toBeGreaterThanOrEqual(4);
    for (const request of host.requests) {
      expect(request.headers.authorization).toBe('Bearer test-token-123');
      expect(request.headers['x-tenant']).toBe('acme');
    }
  });

  it.each([404, 405])('falls back to SSE when the first POST is answered %i', async (status) => {
    await using host = await startSseOnlyHost(status);
    const session = new Session();
    const events = recordEvents(session);
    await using section = new McpIntegrationSection({
      servers: [{ name: 'legacy', transport: { type: 'streamable-http', url: host.url('/mcp') } }],
      session,
    });
    await section.connect();

    expect(host.requests[0]).toMatchObject({ method: 'POST', url: '/mcp' });
    expect(host.requests[1]).toMatchObject({ method: 'GET', url: '/mcp' });
    expect(events.of(McpServerConnected)).toEqual([
      expect.objectContaining({ serverName: 'legacy', transport: 'sse' }),
    ]);
    const result = await invokeTool(
      toolNamed(section, 'legacy_echo'),
      { message: 'over sse' },
      { session },
    );
    expect(result).toMatchObject({ success: true, message: 'echo: over sse' });
  });

  it.each([401, 403])(
    'does not fall back when the first POST is answered %i: McpConnectionError',
    async (status) => {
      await using host = await startSseOnlyHost(status);
      const session = new Session();
      const events = recordEvents(session);
      const section = new McpIntegrationSection({
        servers: [
          {
            name: 'guarded',
            transport: {
              type: 'streamable-http',
              url: host.url('/mcp'),
              headers: { Authorization: 'Bearer wrong-token-456' },
            },
          },
        ],
        session,
      });
      const error = await section.connect().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(McpConnectionError);
      expect(error).toMatchObject({ serverName: 'guarded', transport: 'streamable-http' });
      expect((error as Error).message).toContain(
        `cannot connect: the endpoint answered HTTP ${String(status)} (check its credentials): `,
      );
      expect((error as Error).message).not.toContain('wrong-token-456');
      // One POST, and no GET: the SSE transport was never tried.
      expect(host.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
        'POST /mcp',
      ]);
      expect(events.of(McpServerConnected)).toEqual([]);
      expect(section.connected).toBe(false);
      await section.disconnect();
    },
  );

  it('names both answers when neither streamable HTTP nor the SSE fallback is served there', async () => {
    const server = createServer((_request, response) =>
      response.writeHead(404).end('no such path'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'lost',
          transport: { type: 'streamable-http', url: `http://127.0.0.1:${String(port)}/` },
        },
      ],
      session: new Session(),
      onConnectError: 'report',
    });
    try {
      await section.connect();
      expect(section.unavailableServers[0]?.reason).toMatch(
        /^cannot connect: the endpoint answered HTTP 404 to streamable HTTP, and the SSE fallback failed too: SSE error: Non-200 status code \(404\)/,
      );
    } finally {
      await section.disconnect();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
