/**
 * A lost HTTP session is seen and replaced: the SDK's HTTP transports
 * report it only as an error (a streamable-HTTP 404 for the session's
 * requests, a broken legacy SSE stream), and before this the connection
 * stayed "connected" while every call failed or timed out.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  McpServerConnected,
  McpServerDisconnected,
  Session,
} from '../../src/index.js';
import { type HttpHost, startHttpHost, toolNamed } from '../support/mcp-fixtures.js';

const hosts: HttpHost[] = [];
const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

interface Rpc {
  readonly id?: number;
  readonly method: string;
  readonly params?: { readonly protocolVersion?: string };
}

async function messageOf(req: http.IncomingMessage): Promise<Rpc> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Rpc;
}

/** The answer of a small server with one read-only tool; tools/call is refused before initialize. */
function answer(message: Rpc, initialized: boolean): object {
  if (message.method === 'initialize') {
    return {
      result: {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'restarting', version: '1' },
      },
    };
  }
  if (!initialized) return { error: { code: -32_002, message: 'session not initialized' } };
  if (message.method === 'tools/list') {
    return {
      result: {
        tools: [
          { name: 'read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        ],
      },
    };
  }
  return { result: { content: [{ type: 'text', text: 'read ok' }] } };
}

function sectionOn(transport: { type: 'sse' | 'streamable-http'; url: string }): {
  section: McpIntegrationSection;
  session: Session;
} {
  const session = new Session();
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'web', timeoutMs: 3_000, transport }],
  });
  sections.push(section);
  return { section, session };
}

describe('a lost HTTP session', () => {
  it('streamable HTTP: a 404 for the session starts a new one once a ping is refused too', async () => {
    const sessions = new Set<string>();
    let opened = 0;
    const host = await startHttpHost(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
        return;
      }
      const message = await messageOf(req);
      const sent = req.headers['mcp-session-id'];
      let id = typeof sent === 'string' ? sent : undefined;
      if (message.method === 'initialize') {
        opened += 1;
        id = `session-${String(opened)}`;
        sessions.add(id);
      } else if (id === undefined || !sessions.has(id)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32_001, message: 'Session not found' },
          }),
        );
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer(message, true) }));
    });
    hosts.push(host);
    const { section, session } = sectionOn({ type: 'streamable-http', url: host.url('/mcp') });
    await section.connect();
    const read = toolNamed(section, 'web_read');
    expect((await invokeTool(read, {}, { session })).message).toBe('read ok');
    const lifecycle: string[] = [];
    session.bus.subscribe(McpServerDisconnected, (event) =>
      lifecycle.push(`disconnected expected=${String(event.expected)}`),
    );
    session.bus.subscribe(McpServerConnected, (event) =>
      lifecycle.push(`connected reconnect=${String(event.reconnect)}`),
    );

    sessions.clear(); // the server restarted: it knows no session
    // The call that met the 404 fails (a 404 alone may be a gateway's, for one tool);
    // the ping that follows is refused too, and the connection opens a new session.
    const refused = await invokeTool(read, {}, { session });
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('Session not found');
    await expect.poll(() => opened).toBe(2);
    expect((await invokeTool(read, {}, { session })).message).toBe('read ok');
    expect(opened).toBe(2);
    // The lost session is announced before the new one, as a lost connection is.
    expect(lifecycle).toEqual(['disconnected expected=false', 'connected reconnect=true']);
  });

  it('announces a session given up after a broken call as lost, before the new one', async () => {
    let opened = 0;
    let breakNextCall = false;
    const host = await startHttpHost(async (req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
        return;
      }
      const message = await messageOf(req);
      if (message.method === 'initialize') opened += 1;
      if (message.method === 'tools/call' && breakNextCall) {
        breakNextCall = false;
        req.socket.destroy(); // the connection breaks under the call
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const id = `session-${String(opened)}`;
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer(message, true) }));
    });
    hosts.push(host);
    const { section, session } = sectionOn({ type: 'streamable-http', url: host.url('/mcp') });
    await section.connect();
    const lifecycle: string[] = [];
    session.bus.subscribe(McpServerDisconnected, (event) =>
      lifecycle.push(`disconnected expected=${String(event.expected)}`),
    );
    session.bus.subscribe(McpServerConnected, (event) =>
      lifecycle.push(`connected reconnect=${String(event.reconnect)}`),
    );

    breakNextCall = true;
    const read = toolNamed(section, 'web_read');
    // Read-only: sent once more, on a new session.
    expect((await invokeTool(read, {}, { session })).message).toBe('read ok');
    expect(opened).toBe(2);
    expect(lifecycle).toEqual(['disconnected expected=false', 'connected reconnect=true']);
  });

  it('legacy SSE: a broken event stream starts a new session', async () => {
    const streams = new Map<string, { res: http.ServerResponse; initialized: boolean }>();
    let opened = 0;
    const host = await startHttpHost(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET') {
        opened += 1;
        const id = `stream-${String(opened)}`;
        streams.set(id, { res, initialized: false });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`);
        return;
      }
      const stream = streams.get(url.searchParams.get('sessionId') ?? '');
      const message = await messageOf(req);
      if (stream === undefined) {
        res.writeHead(404).end('unknown session');
        return;
      }
      res.writeHead(202).end();
      if (message.method === 'notifications/initialized') stream.initialized = true;
      if (message.id === undefined) return;
      const reply = answer(message, stream.initialized || message.method === 'initialize');
      stream.res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply })}\n\n`,
      );
    });
    hosts.push(host);
    const { section, session } = sectionOn({ type: 'sse', url: host.url('/sse') });
    await section.connect();
    const read = toolNamed(section, 'web_read');
    expect((await invokeTool(read, {}, { session })).message).toBe('read ok');

    for (const { res } of streams.values()) res.destroy(); // the stream breaks
    streams.clear();
    await expect
      .poll(async () => (await invokeTool(read, {}, { session })).message, { timeout: 15_000 })
      .toBe('read ok');
    // Served on a stream whose session was initialized again.
    expect([...streams.values()].some((stream) => stream.initialized)).toBe(true);
  }, 30_000);

  it('streamable HTTP: a 404 for the standalone GET stream alone (no such stream here) changes nothing', async () => {
    let opened = 0;
    const host = await startHttpHost(async (req, res) => {
      if (req.method === 'GET') {
        // As a server with only a POST route answers: MCP asks for 405, many send 404.
        await new Promise((resolve) => setTimeout(resolve, 200));
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Cannot GET /mcp');
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(200).end();
        return;
      }
      const message = await messageOf(req);
      if (message.method === 'initialize') opened += 1;
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'only' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer(message, true) }));
    });
    hosts.push(host);
    const { section, session } = sectionOn({ type: 'streamable-http', url: host.url('/mcp') });
    await section.connect();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(opened).toBe(1);
    expect((await invokeTool(toolNamed(section, 'web_read'), {}, { session })).message).toBe(
      'read ok',
    );
    expect(opened).toBe(1);
  });
});
