/**
 * An HTTP answer that never ends stops at the size of one message: the
 * call fails with the reason instead of the process reading without end,
 * for a JSON body and for one SSE event; events that end are counted apart.
 */
import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  boundedFetch,
  MAX_ERROR_BODY_BYTES,
  MAX_HTTP_MESSAGE_BYTES,
} from '../../src/mcp/bounded-fetch.js';
import { MAX_MESSAGE_CONTAINERS } from '../../src/mcp/message-containers.js';
import { invokeTool, McpIntegrationSection, Session } from '../../src/index.js';
import { type HttpHost, startHttpHost, toolNamed } from '../support/mcp-fixtures.js';

const hosts: HttpHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

async function bodyOf(req: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** Writes `chunk` until the client goes away or `total` bytes are out, minding backpressure. */
async function pour(res: http.ServerResponse, chunk: Buffer, total: number): Promise<number> {
  let sent = 0;
  while (sent < total && !res.destroyed) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
    sent += chunk.length;
  }
  return sent;
}

/** A streamable-HTTP server whose `tools/call` answer never ends (JSON or one SSE event). */
async function endlessAnswer(kind: 'json' | 'sse', poured: number[]): Promise<HttpHost> {
  const host = await startHttpHost(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const message = JSON.parse(await bodyOf(req)) as { id?: number; method: string };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const reply = (result: object): void => {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    };
    if (message.method === 'initialize') {
      reply({
        protocolVersion: '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'endless', version: '1' },
      });
    } else if (message.method === 'tools/list') {
      reply({
        tools: [
          { name: 'dump', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } },
        ],
      });
    } else {
      const start = `{"jsonrpc":"2.0","id":${String(message.id)},"result":{"content":[{"type":"text","text":"`;
      res.writeHead(200, {
        'content-type': kind === 'json' ? 'application/json' : 'text/event-stream',
        'mcp-session-id': 's1',
      });
      res.write(kind === 'json' ? start : `data: ${start}`);
      poured.push(await pour(res, Buffer.alloc(1024 * 1024, 'a'), 4 * MAX_HTTP_MESSAGE_BYTES));
      res.end();
    }
  });
  hosts.push(host);
  return host;
}

describe('boundedFetch', () => {
  it.each([
    // The SDK reads a JSON answer whole: its error fails the call at once.
    ['json', 25_000, `passed ${MAX_HTTP_MESSAGE_BYTES} bytes`],
    // The SDK reports a broken SSE answer only as a transport error: the call is failed at
    // once with the reason (lost-answers.ts), well inside its timeout.
    [
      'sse',
      25_000,
      `its event stream broke (the server's event passed ${MAX_HTTP_MESSAGE_BYTES} bytes`,
    ],
  ] as const)(
    'stops reading a %s answer past the limit, and the call fails',
    async (kind, timeoutMs, message) => {
      const poured: number[] = [];
      const host = await endlessAnswer(kind, poured);
      const session = new Session();
      const section = new McpIntegrationSection({
        session,
        servers: [
          {
            name: 'endless',
            timeoutMs,
            transport: { type: 'streamable-http', url: host.url('/mcp'), sseFallback: false },
          },
        ],
      });
      try {
        await section.connect();
        const result = await invokeTool(toolNamed(section, 'endless_dump'), {}, { session });
        expect(result.success).toBe(false);
        expect(result.message).toContain(message);
        await expect.poll(() => poured.length, { timeout: 10_000 }).toBe(1);
        // The server saw its reader go: it poured little more than the limit.
        expect(poured[0]).toBeLessThan(2 * MAX_HTTP_MESSAGE_BYTES);
      } finally {
        await section.disconnect();
      }
    },
    40_000,
  );

  it.each([
    ['CRLF', '\r\n', false],
    ['LF', '\n', false],
    ['CR', '\r', false],
    ['CRLF split between writes', '\r\n', true],
  ])(
    'counts each SSE event apart (%s): a stream of many events passes the limit as a whole',
    async (_, eol, split) => {
      const event = `data: ${'x'.repeat(1000)}${eol}${eol}`;
      const events = 50;
      const host = await startHttpHost(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < events; i += 1) {
          if (split) {
            // The CR of each line in one write, its LF in the next.
            res.write(event.slice(0, -3));
            await new Promise((resolve) => setImmediate(resolve));
            res.write(event.slice(-3));
          } else res.write(event);
        }
        res.end();
      });
      hosts.push(host);
      const response = await boundedFetch({ limit: 2 * event.length })(host.url('/'));
      expect((await response.text()).length).toBe(event.length * events);
    },
  );

  it('stops a JSON body past its limit, and an SSE event past it', async () => {
    const stream = await startHttpHost(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${'x'.repeat(3000)}\n\n`);
      await Promise.resolve();
    });
    hosts.push(stream);
    await expect((await boundedFetch({ limit: 1000 })(stream.url('/'))).text()).rejects.toThrow(
      'passed 1000 bytes',
    );
    const tooBig = startHttpHost(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('"' + 'y'.repeat(5000) + '"');
      await Promise.resolve();
    });
    const json = await tooBig;
    hosts.push(json);
    await expect((await boundedFetch({ limit: 1000 })(json.url('/'))).text()).rejects.toThrow(
      'passed 1000 bytes',
    );
  });

  it('stops a JSON body, and an SSE event, that holds more objects and arrays than a message may', async () => {
    const many = `[${'{},'.repeat(MAX_MESSAGE_CONTAINERS)}{}]`;
    const json = await startHttpHost(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(many);
      await Promise.resolve();
    });
    hosts.push(json);
    await expect((await boundedFetch()(json.url('/'))).text()).rejects.toThrow(
      `held more than ${MAX_MESSAGE_CONTAINERS} objects and arrays`,
    );
    const stream = await startHttpHost(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${many}\n\n`);
      await Promise.resolve();
    });
    hosts.push(stream);
    await expect((await boundedFetch()(stream.url('/'))).text()).rejects.toThrow(
      `the server's event held more than ${MAX_MESSAGE_CONTAINERS} objects and arrays`,
    );
  });

  it('counts objects and arrays outside strings, and per SSE event', async () => {
    // As many braces as a message may hold objects, inside a string: text, not structure.
    const quoted = JSON.stringify({ text: `{[\\"${'{'.repeat(MAX_MESSAGE_CONTAINERS)}` });
    const half = `[${'{},'.repeat(MAX_MESSAGE_CONTAINERS / 2)}{}]`;
    const host = await startHttpHost(async (req, res) => {
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(quoted);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Two events of half as many each: the stream holds more, no event does.
        res.end(`data: ${half}\n\ndata: ${half}\r\n\r\n`);
      }
      await Promise.resolve();
    });
    hosts.push(host);
    expect(await (await boundedFetch()(host.url('/json'))).text()).toBe(quoted);
    expect((await (await boundedFetch()(host.url('/sse'))).text()).length).toBeGreaterThan(
      2 * half.length,
    );
  });

  it('reads no more of an HTTP error answer than a message can quote', async () => {
    let poured = 0;
    const host = await startHttpHost(async (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      poured = await pour(res, Buffer.alloc(64 * 1024, 'e'), 64 * 1024 * 1024);
      res.end();
    });
    hosts.push(host);
    const response = await boundedFetch()(host.url('/'));
    expect(response.status).toBe(500);
    expect((await response.text()).length).toBe(MAX_ERROR_BODY_BYTES);
    await expect.poll(() => poured, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(poured).toBeLessThan(16 * 1024 * 1024);
  });

  it("sends a URL's credentials as Basic authorization, which fetch refuses in the URL", async () => {
    const host = await startHttpHost(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      await Promise.resolve();
    });
    hosts.push(host);
    const url = new URL(host.url('/mcp'));
    url.username = 'alice';
    url.password = 'p%40ss word';
    const endpoint = new URL(url.href);
    const response = await boundedFetch({ endpoint, paths: 'exact' })(url);
    expect(await response.text()).toBe('{}');
    const sent = host.requests.at(-1);
    expect(sent?.headers.authorization).toBe(
      `Basic ${Buffer.from('alice:p@ss word').toString('base64')}`,
    );
    // A request's own Authorization wins.
    await (
      await boundedFetch({ endpoint, paths: 'exact' })(url, {
        headers: { Authorization: 'Bearer own' },
      })
    ).text();
    expect(host.requests.at(-1)?.headers.authorization).toBe('Bearer own');
  });
});
