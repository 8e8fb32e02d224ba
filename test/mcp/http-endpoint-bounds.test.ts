/**
 * Where an HTTP transport sends, and what a server can make it do: no
 * redirect is followed and nothing is sent outside the configured URL's
 * directory (an isolated endpoint could otherwise hand a call's arguments
 * to the normal deployment behind the same host); the event stream is
 * opened again at most four times a second, whatever `retry:` the server
 * asks;
 * a cancelled call's answer is closed, an event stream or a JSON body.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpIntegrationSection, Session } from '../../src/index.js';
import { boundedFetch, MIN_STREAM_REOPEN_MS } from '../../src/mcp/bounded-fetch.js';
import { startHttpHost, toolNamed, type HttpHost } from '../support/mcp-fixtures.js';
import { type PathGateway, startPathGateway } from '../support/path-gateway.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function gateway(paths: readonly string[]): Promise<PathGateway> {
  const started = await startPathGateway(paths);
  open.push(started);
  return started;
}

function section(session: Session, url: string, extra: object = {}): McpIntegrationSection {
  const created = new McpIntegrationSection({
    session,
    servers: [
      { name: 'data', transport: { type: 'streamable-http', url, sseFallback: false }, ...extra },
    ],
  });
  open.push({ close: () => created.disconnect() });
  return created;
}

const SECRET = 'ssn 078-05-1120';

describe('an HTTP endpoint', () => {
  it('cannot redirect a call of an isolated session to the normal deployment behind the same host', async () => {
    const gw = await gateway(['/normal/mcp', '/isolated/mcp']);
    gw.intercept = (req, res, body) => {
      if (req.url !== '/isolated/mcp' || !body.includes('tools/call') || !body.includes('store'))
        return false;
      res.writeHead(307, { location: '/normal/mcp' }).end();
      return true;
    };
    const session = new Session();
    const s = section(session, `${gw.base}/normal/mcp`, {
      isolation: {
        transport: { type: 'streamable-http', url: `${gw.base}/isolated/mcp`, sseFallback: false },
      },
    });
    await s.connect();
    expect((await invokeTool(toolNamed(s, 'data_load'), {}, { session })).success).toBe(true);
    expect(session.privateData.sensitivity).toBe('confidential');
    const stored = await invokeTool(toolNamed(s, 'data_store'), { note: SECRET }, { session });
    expect(stored.success).toBe(false);
    expect(stored.message).toContain('a redirect to /normal/mcp, which is not followed');
    expect(gw.requests.filter((r) => r.body.includes(SECRET)).map((r) => r.path)).toEqual([
      '/isolated/mcp',
    ]);
  });

  it('sends nothing outside the configured URL’s directory, and follows no redirect', async () => {
    const host: HttpHost = await startHttpHost(async (req, res) => {
      res.writeHead(req.url === '/isolated/moved' ? 308 : 200, { location: '/isolated/mcp' });
      res.end('{}');
      await Promise.resolve();
    });
    open.push(host);
    const fetch = boundedFetch({ endpoint: new URL(host.url('/isolated/sse')) });
    // Where an SSE server says to post: only under /isolated/.
    await expect(
      fetch(host.url('/normal/messages'), { method: 'POST', body: '{}' }),
    ).rejects.toThrow(
      `the server named ${host.url('/normal/messages')} to send to, outside ${host.url('/isolated/')}, where it is configured; nothing is sent there`,
    );
    await expect(fetch('http://127.0.0.2:1/isolated/x', { method: 'POST' })).rejects.toThrow(
      'outside',
    );
    expect(host.requests).toEqual([]);
    await expect(
      fetch(host.url('/isolated/moved'), { method: 'POST', body: '{}' }),
    ).rejects.toThrow(
      'the server answered 308, a redirect to /isolated/mcp, which is not followed',
    );
    expect((await fetch(host.url('/isolated/messages?session=1'), { method: 'POST' })).status).toBe(
      200,
    );
    // Encoded separators and `;`, which a proxy may read as another path.
    for (const sneaky of [
      '/isolated/..%2Fnormal/mcp',
      '/isolated/%2e%2e/normal',
      '/isolated/..;/normal',
    ]) {
      await expect(fetch(host.url(sneaky), { method: 'POST' })).rejects.toThrow(
        'nothing is sent there',
      );
    }
    // Streamable HTTP sends only to its own path.
    const exact = boundedFetch({ endpoint: new URL(host.url('/isolated/mcp')), paths: 'exact' });
    await expect(exact(host.url('/isolated/other'), { method: 'POST' })).rejects.toThrow(
      `outside ${host.url('/isolated/mcp')}, where it is configured`,
    );
    expect(host.requests.map((r) => r.url)).toEqual([
      '/isolated/moved',
      '/isolated/messages?session=1',
    ]);
  });

  it('opens the server’s event stream again at most every MIN_STREAM_REOPEN_MS, whatever retry it asks', async () => {
    const gw = await gateway(['/mcp']);
    const streams: number[] = [];
    gw.intercept = (req, res) => {
      if (req.method !== 'GET') return false;
      streams.push(Date.now());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('retry: 0\n\n');
      return true;
    };
    const s = section(new Session(), `${gw.base}/mcp`);
    await s.connect();
    await new Promise((resolve) => setTimeout(resolve, 4.5 * MIN_STREAM_REOPEN_MS));
    // The first at once, then one per MIN_STREAM_REOPEN_MS (without the bound, ~300 a second).
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams.length).toBeLessThanOrEqual(6);
  });

  it('queues event streams opened together at MIN_STREAM_REOPEN_MS apart', async () => {
    const gw = await gateway(['/mcp']);
    let streams = 0;
    gw.intercept = (req, res) => {
      if (req.method !== 'GET') return false;
      streams += 1;
      res.writeHead(405).end();
      return true;
    };
    const fetch = boundedFetch({ endpoint: new URL(`${gw.base}/mcp`), paths: 'exact' });
    const opened = Array.from({ length: 8 }, () =>
      fetch(`${gw.base}/mcp`, { method: 'GET', headers: { accept: 'text/event-stream' } }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1.5 * MIN_STREAM_REOPEN_MS));
    // At 0 and at one interval; all eight at once without the queue.
    expect(streams).toBeLessThanOrEqual(3);
    await Promise.all(opened);
    expect(streams).toBe(8);
  });

  it('closes the answer stream of a call that timed out or was aborted', async () => {
    const gw = await gateway(['/mcp']);
    const answering = new Set<ServerResponse>();
    gw.intercept = (_req, res, body) => {
      if (!body.includes('tools/call')) return false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      answering.add(res);
      const timer = setInterval(() => res.write(': still here\n\n'), 50);
      res.on('close', () => {
        clearInterval(timer);
        answering.delete(res);
      });
      return true;
    };
    const session = new Session();
    const s = section(session, `${gw.base}/mcp`, { timeoutMs: 300 });
    await s.connect();
    const store = toolNamed(s, 'data_store');
    const timedOut = await Promise.all(
      [1, 2, 3].map(() => invokeTool(store, { note: 'x' }, { session })),
    );
    expect(timedOut.every((result) => !result.success)).toBe(true);
    const aborted = await invokeTool(
      store,
      { note: 'x' },
      { session, signal: AbortSignal.timeout(100) },
    );
    expect(aborted.success).toBe(false);
    await expect.poll(() => answering.size, { timeout: 5_000 }).toBe(0);
  });

  it('does not resume the answer stream of a cancelled call (a GET with its last event id)', async () => {
    const gw = await gateway(['/mcp']);
    const open = new Set<ServerResponse>();
    let resumed = 0;
    const stream = (res: ServerResponse, first: string): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(first);
      open.add(res);
      const timer = setInterval(() => res.write(': still here\n\n'), 50);
      res.on('close', () => {
        clearInterval(timer);
        open.delete(res);
      });
    };
    gw.intercept = (req, res, body) => {
      if (req.method === 'GET' && req.headers['last-event-id'] !== undefined) {
        resumed += 1;
        stream(res, ': resumed\n\n');
        return true;
      }
      if (!body.includes('tools/call')) return false;
      // A priming event: the SDK may resume this stream once it is cut.
      stream(res, 'id: prime-1\ndata: \n\n');
      return true;
    };
    const session = new Session();
    const s = section(session, `${gw.base}/mcp`, { timeoutMs: 200 });
    await s.connect();
    for (let i = 0; i < 2; i += 1) {
      expect(
        (await invokeTool(toolNamed(s, 'data_store'), { note: 'x' }, { session })).success,
      ).toBe(false);
    }
    // The SDK would resume within a second or two: give it three.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(resumed).toBe(0);
    expect(open.size).toBe(0);
  });

  it.each([
    ['while it is read', 0],
    ['before it began', 600],
  ])('closes the JSON answer of a call that timed out %s', async (_, delayMs) => {
    const gw = await gateway(['/mcp']);
    const answering = new Set<ServerResponse>();
    let started = 0;
    gw.intercept = (_req, res, body) => {
      if (!body.includes('tools/call')) return false;
      const id = (JSON.parse(body) as { id: number }).id;
      setTimeout(() => {
        if (res.destroyed) return;
        // A JSON answer that never ends: the client would read and keep it until the limit.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`);
        started += 1;
        answering.add(res);
        const timer = setInterval(() => res.write('a'.repeat(1024)), 20);
        res.on('close', () => {
          clearInterval(timer);
          answering.delete(res);
        });
      }, delayMs);
      return true;
    };
    const session = new Session();
    const s = section(session, `${gw.base}/mcp`, { timeoutMs: 300 });
    await s.connect();
    const result = await invokeTool(toolNamed(s, 'data_store'), { note: 'x' }, { session });
    expect(result.message).toContain('timed out after 300 ms');
    await expect.poll(() => started, { timeout: 5_000 }).toBeGreaterThan(0);
    await expect.poll(() => answering.size, { timeout: 5_000 }).toBe(0);
  });

  it('closes the answer stream of a call cancelled before its answer began', async () => {
    const gw = await gateway(['/mcp']);
    const answering = new Set<ServerResponse>();
    let started = 0;
    gw.intercept = (_req, res, body) => {
      if (!body.includes('tools/call')) return false;
      // The answer starts only after the call has timed out and been cancelled.
      setTimeout(() => {
        if (res.destroyed) return;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        started += 1;
        answering.add(res);
        const timer = setInterval(() => res.write(': still here\n\n'), 50);
        res.on('close', () => {
          clearInterval(timer);
          answering.delete(res);
        });
      }, 600);
      return true;
    };
    const session = new Session();
    const s = section(session, `${gw.base}/mcp`, { timeoutMs: 200 });
    await s.connect();
    const result = await invokeTool(toolNamed(s, 'data_store'), { note: 'x' }, { session });
    expect(result.success).toBe(false);
    await expect.poll(() => started, { timeout: 5_000 }).toBeGreaterThan(0);
    await expect.poll(() => answering.size, { timeout: 5_000 }).toBe(0);
  });
});
