/**
 * A server's unasked messages (notifications, requests of its own,
 * answers to requests nobody made) are read at a bounded rate, and the
 * server is held back where it writes: a flood of them kept the client's
 * process at 130% CPU, and over streamable HTTP its event loop turned
 * about every 250 ms. Answers to the client's own requests cost nothing,
 * and nothing the server sent is lost.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  McpServerLog,
  type McpTransportConfig,
  Session,
  type ToolResult,
} from '../../src/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { boundedFetch } from '../../src/mcp/bounded-fetch.js';
import {
  MAX_READ_BYTES_PER_SECOND,
  MESSAGE_TOKEN_BURST,
  MESSAGE_TOKENS_PER_SECOND,
  READ_BYTE_BURST,
  ReadBudget,
} from '../../src/mcp/read-budget.js';
import { TOKENS_PER_TURN } from '../../src/core/rate-budget.js';
import type { ReconnectPolicy } from '../../src/mcp/reconnect-policy.js';
import { createTransport } from '../../src/mcp/transport-factory.js';
import { type HttpHost, startHttpHost, tempDir, toolNamed } from '../support/mcp-fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A budget on a clock the test moves, with fake timers. */
function budgetOnClock(perSecond: number, burst: number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let now = 0;
  const budget = new ReadBudget(
    { messageTokensPerSecond: perSecond, messageTokenBurst: burst },
    () => now,
  );
  const advance = (ms: number): void => {
    now += ms;
    vi.advanceTimersByTime(ms);
  };
  return { budget, advance };
}

/** A transport whose `send` records and whose `onmessage` counts what reaches the client. */
function countedTransport(budget: ReadBudget) {
  const delivered: JSONRPCMessage[] = [];
  const transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
    send: () => Promise.resolve(),
    onmessage: (message: JSONRPCMessage) => delivered.push(message),
  } as unknown as Transport;
  budget.count(transport);
  return { transport, delivered };
}

describe('ReadBudget', () => {
  it('reads its burst at once, then waits on a timer for a twentieth of a second of its rate', async () => {
    const { budget, advance } = budgetOnClock(100, 10);
    for (let i = 0; i < 9; i++) budget.spend();
    expect(budget.spent).toBe(false);
    budget.spend();
    expect(budget.spent).toBe(true);
    let refilled = false;
    void budget.refilled().then(() => (refilled = true));
    // Every reader waits for the same refill.
    expect(budget.refilled()).toBe(budget.refilled());
    advance(49);
    await Promise.resolve();
    expect(refilled).toBe(false);
    advance(1);
    await vi.waitFor(() => expect(refilled).toBe(true));
    expect(budget.spent).toBe(false);
    // What was read past the budget is owed: the next wait is longer.
    for (let i = 0; i < 25; i++) budget.spend();
    expect(budget.spent).toBe(true);
    let again = false;
    void budget.refilled().then(() => (again = true));
    advance(249);
    await Promise.resolve();
    expect(again).toBe(false);
    advance(1);
    await vi.waitFor(() => expect(again).toBe(true));
  });

  it('lets the event loop turn after every TOKENS_PER_TURN tokens, whatever its buckets hold', async () => {
    // A stopped clock: only the turn can end the wait.
    const budget = new ReadBudget({ messageTokenBurst: 100_000 }, () => 0);
    for (let i = 1; i < TOKENS_PER_TURN; i++) budget.spend();
    expect(budget.spent).toBe(false);
    budget.spend();
    expect(budget.spent).toBe(true);
    let readOn = false;
    void budget.refilled().then(() => (readOn = true));
    for (let i = 0; i < 10; i++) await new Promise((resolve) => process.nextTick(resolve));
    expect(readOn).toBe(false); // not within the turn
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.resolve();
    expect(readOn).toBe(true); // in the next one
    expect(budget.spent).toBe(false);
  });

  it('never holds more than its burst, however long it waited', () => {
    const { budget, advance } = budgetOnClock(100, 10);
    advance(60_000);
    for (let i = 0; i < 10; i++) budget.spend();
    expect(budget.spent).toBe(true);
  });

  it('counts every byte read in a bucket of its own: either one spent holds reading', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let now = 0;
    const budget = new ReadBudget({ bytesPerSecond: 1_000, byteBurst: 2_000 }, () => now);
    budget.read(1_999);
    expect(budget.spent).toBe(false);
    budget.read(1_001); // a chunk past the burst is read whole, and owed
    expect(budget.spent).toBe(true);
    let refilled = false;
    void budget.refilled().then(() => (refilled = true));
    // 1,000 owed and a twentieth of a second's worth (50 bytes): 1,050 ms.
    now += 1_049;
    vi.advanceTimersByTime(1_049);
    await Promise.resolve();
    expect(refilled).toBe(false);
    now += 1;
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(refilled).toBe(true));
    expect(budget.spent).toBe(false);
  });

  it('ends the wait under way when released, and holds on after', async () => {
    const { budget } = budgetOnClock(1, 1);
    budget.spend();
    budget.spend();
    const waiting = budget.refilled();
    budget.release();
    await waiting; // without the timer
    expect(vi.getTimerCount()).toBe(0);
    // For the connection's next transport, the debt is still owed.
    expect(budget.spent).toBe(true);
    expect(budget.refilled()).not.toBe(waiting);
    budget.release();
  });

  it("counts every message of the server but the first answer to each of the client's own requests", async () => {
    const { budget } = budgetOnClock(1_000, 5);
    const { transport, delivered } = countedTransport(budget);
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    await transport.send({ jsonrpc: '2.0', id: 'b', method: 'ping' });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // The client's answer to a server request is no request of its own.
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    const arrive = (message: JSONRPCMessage): void => transport.onmessage?.(message);
    arrive({ jsonrpc: '2.0', id: 1, result: {} });
    arrive({ jsonrpc: '2.0', id: 'b', error: { code: 1, message: 'no' } });
    expect(budget.spent).toBe(false);
    arrive({ jsonrpc: '2.0', id: 1, result: {} }); // answered twice
    arrive({ jsonrpc: '2.0', id: 2, result: {} }); // the id the client answered, not asked
    arrive({ jsonrpc: '2.0', id: 3, method: 'ping' });
    arrive({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    expect(budget.spent).toBe(false);
    arrive({ jsonrpc: '2.0', id: '1', result: {} }); // a string for the number asked
    expect(budget.spent).toBe(true);
    expect(delivered).toHaveLength(7);
  });

  it('spends a token for each message that is not the first answer to an open request, and gives one back for each that is (property)', () => {
    const step = fc.oneof(
      fc.record({ ask: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('a', 'b')) }),
      fc.record({ answer: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('a', 'b')) }),
      fc.record({ notify: fc.constant(true) }),
      fc.record({ request: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
        const burst = 40;
        const budget = new ReadBudget(
          { messageTokensPerSecond: 1, messageTokenBurst: burst },
          () => 0,
        );
        const { transport, delivered } = countedTransport(budget);
        const open = new Set<string | number>();
        let level = burst;
        for (const s of steps) {
          if ('ask' in s) {
            void transport.send({ jsonrpc: '2.0', id: s.ask, method: 'ping' });
            open.add(s.ask);
            continue;
          }
          if ('answer' in s) {
            level = open.delete(s.answer) ? Math.min(burst, level + 1) : level - 1;
            transport.onmessage?.({ jsonrpc: '2.0', id: s.answer, result: {} });
          } else if ('notify' in s) {
            level -= 1;
            transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/message' });
          } else {
            level -= 1;
            transport.onmessage?.({ jsonrpc: '2.0', id: s.request, method: 'ping' });
          }
          if (budget.spent !== level < 1) return false;
        }
        expect(delivered).toHaveLength(steps.filter((s) => !('ask' in s)).length);
        return true;
      }),
      { numRuns: 300 },
    );
  });
});

/** How many log notifications the session was told of: each published one, and those it left out before it. */
function logsTold(session: Session): () => number {
  let told = 0;
  session.bus.subscribe(McpServerLog, (event) => {
    told += 1 + (event.dropped ?? 0);
  });
  return () => told;
}

/**
 * The most log notifications a connection may have read `elapsedMs` after
 * it began, with room for what one read passes on past the budget (an
 * HTTP chunk of events) and for the log the event rate holds.
 */
function mostRead(elapsedMs: number): number {
  // A notification costs two tokens: its line or event, and itself.
  const tokens = MESSAGE_TOKEN_BURST + (MESSAGE_TOKENS_PER_SECOND * elapsedMs) / 1_000;
  return tokens / 2 + 1_500;
}

const FLOODING_SERVER = path.resolve(
  import.meta.dirname,
  '../fixtures/hostile/flooding-server.mjs',
);

/** A section on the flooding stdio server, with `env`; `told` counts its logs, `flood` starts a flood. */
function flooderSection(env: Record<string, string>, reconnect?: ReconnectPolicy) {
  const session = new Session();
  const told = logsTold(session);
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'flooder',
        transport: { type: 'stdio', command: process.execPath, args: [FLOODING_SERVER] },
        env,
      },
    ],
    ...(reconnect === undefined ? {} : { reconnect }),
  });
  const flood = (args: Record<string, unknown>): Promise<ToolResult> =>
    invokeTool(toolNamed(section, 'flooder_flood'), args, { session });
  return { session, section, told, flood };
}

describe('a stdio server flooding log notifications', () => {
  it('is read at the budget, held back at its pipe, loses nothing, and its call is answered', async () => {
    await using dir = await tempDir('flood');
    const written = path.join(dir.path, 'written');
    const { session, section, told, flood } = flooderSection({ FLOOD_LOG: written });
    try {
      await section.connect();
      const count = 6_000;
      const started = performance.now();
      const flooding = flood({ count });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const read = told();
      expect(read).toBeLessThanOrEqual(mostRead(performance.now() - started));
      // Held back where it writes: no further ahead of the client than a full
      // pipe (64 KB, some 340 lines), a chunk read and not taken (as much
      // again) and the 100 lines between two counts it keeps. Not paused,
      // it ran 2,500 ahead here.
      const ahead = Number(readFileSync(written, 'utf8')) - read;
      expect(ahead).toBeLessThan(1_200);
      expect((await flooding).message).toBe(`wrote ${String(count)}`);
      await vi.waitFor(() => expect(told()).toBe(count), { timeout: 5_000 });
      // The connection reads on at its usual pace.
      const echo = await invokeTool(
        toolNamed(section, 'flooder_echo'),
        { text: 'hi' },
        { session },
      );
      expect(echo.message).toBe('hi');
    } finally {
      await section.disconnect();
    }
  }, 30_000);
  it('reads large messages at the byte rate', async () => {
    const lineBytes = 100_000;
    const { section, told, flood } = flooderSection({ FLOOD_SIZE: String(lineBytes) });
    try {
      await section.connect();
      const count = 1_000; // 100 MB
      const started = performance.now();
      const flooding = flood({ count });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const elapsed = (performance.now() - started) / 1_000;
      // Far fewer than the message budget allows; a chunk read past the bytes, and the log held.
      expect(told()).toBeLessThanOrEqual(
        (READ_BYTE_BURST + MAX_READ_BYTES_PER_SECOND * elapsed) / lineBytes + 10,
      );
      expect((await flooding).message).toBe(`wrote ${String(count)}`);
      await vi.waitFor(() => expect(told()).toBe(count), { timeout: 5_000 });
    } finally {
      await section.disconnect();
    }
  }, 30_000);

  it('reads lines that hold no message at the budget too, and holds them back at its pipe', async () => {
    await using dir = await tempDir('flood');
    const written = path.join(dir.path, 'written');
    const { section, flood } = flooderSection({ FLOOD_LOG: written, FLOOD_SIZE: '200' });
    try {
      await section.connect();
      const started = performance.now();
      const args = { count: 200_000, junk: true };
      const flooding = flood(args);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const elapsed = (performance.now() - started) / 1_000;
      // A token a line; a full pipe and a chunk read ahead (some 650 lines), 100 between counts.
      expect(Number(readFileSync(written, 'utf8'))).toBeLessThanOrEqual(
        MESSAGE_TOKEN_BURST + MESSAGE_TOKENS_PER_SECOND * elapsed + 1_000,
      );
      await section.disconnect();
      await flooding;
    } finally {
      await section.disconnect();
    }
  }, 30_000);

  it('reads its stderr at the byte rate too, and holds it back at its pipe', async () => {
    await using dir = await tempDir('flood');
    const written = path.join(dir.path, 'written');
    const lineBytes = 100_000;
    const { section, flood } = flooderSection({
      FLOOD_LOG: written,
      FLOOD_SIZE: String(lineBytes),
    });
    try {
      await section.connect();
      const started = performance.now();
      const args = { count: 2_000, stderr: true }; // 200 MB
      const flooding = flood(args);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const elapsed = (performance.now() - started) / 1_000;
      // Written no further than the client read, a full pipe, and the line under way.
      expect(Number(readFileSync(written, 'utf8'))).toBeLessThanOrEqual(
        (READ_BYTE_BURST + MAX_READ_BYTES_PER_SECOND * elapsed) / lineBytes + 10,
      );
      await section.disconnect();
      await flooding; // let go by the close, its stderr was read on
    } finally {
      await section.disconnect();
    }
  }, 30_000);

  it('keeps its budget across reconnections: a server that floods and exits gets no fresh burst', async () => {
    const { section, told } = flooderSection(
      { FLOOD_AND_EXIT: '2000' },
      { attempts: 1_000, baseDelayMs: 1, maxDelayMs: 1 },
    );
    const started = performance.now();
    try {
      await section.connect().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      // Each life offers 2,000 logs: read whole each time, 3 s held six or more.
      expect(told()).toBeLessThanOrEqual(mostRead(performance.now() - started));
      expect(told()).toBeGreaterThan(1_000); // it did flood
    } finally {
      await section.disconnect();
    }
  }, 30_000);

  it("never holds the client's own calls: each answer gives its line's token back", async () => {
    // A budget of 100 tokens refilled at 1 a second: 500 calls whose lines
    // were not given back would take minutes.
    const budget = new ReadBudget({ messageTokensPerSecond: 1, messageTokenBurst: 100 });
    const config = { type: 'stdio', command: process.execPath, args: [FLOODING_SERVER] } as const;
    const handle = await createTransport(config, { readBudget: budget });
    const client = new Client({ name: 'budget-test', version: '1.0.0' });
    const connecting = client.connect(handle.transport);
    handle.budget?.count(handle.transport);
    try {
      await connecting;
      for (let round = 0; round < 5; round++) {
        const calls = Array.from({ length: 100 }, (_, i) =>
          client.callTool({ name: 'echo', arguments: { text: String(i) } }),
        );
        const answers = await Promise.all(calls);
        expect(answers.map((answer) => (answer.content as { text: string }[])[0]?.text)).toEqual(
          Array.from({ length: 100 }, (_, i) => String(i)),
        );
      }
      expect(budget.spent).toBe(false);
    } finally {
      await client.close();
      await handle.dispose();
    }
  }, 20_000);

  it('once disconnected, holds its output back no more: what it still writes is read and dropped, so it can end', async () => {
    await using dir = await tempDir('flood');
    const written = path.join(dir.path, 'written');
    const { section, flood } = flooderSection({ FLOOD_LOG: written });
    await section.connect();
    const count = 100_000;
    const flooding = flood({ count });
    // Held: it has written no further than a pipe ahead of the budget.
    await vi.waitFor(() => expect(Number(readFileSync(written, 'utf8'))).toBeGreaterThan(3_000));
    const held = Number(readFileSync(written, 'utf8'));
    await section.disconnect();
    expect((await flooding).success).toBe(false);
    // Its output read on after the close, it wrote on (held, its pipe stayed
    // full until the SDK killed it, 2 s later).
    expect(Number(readFileSync(written, 'utf8'))).toBeGreaterThan(held + 2_000);
  }, 30_000);
});

/** A log notification as an SSE event, its data `chars` long. */
function logEvent(chars: number): string {
  const notification = {
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'error', data: 'x'.repeat(chars) },
  };
  return `event: message\ndata: ${JSON.stringify(notification)}\n\n`;
}

interface Rpc {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: { readonly protocolVersion?: string };
}

async function rpcOf(req: http.IncomingMessage): Promise<Rpc> {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return JSON.parse(body) as Rpc;
}

function resultFor(message: Rpc): object {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {}, logging: {} },
        serverInfo: { name: 'flooder', version: '1' },
      };
    case 'tools/list':
      return {
        tools: [
          { name: 'echo', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } },
        ],
      };
    case 'tools/call':
      return { content: [{ type: 'text', text: 'answered' }] };
    default:
      return {};
  }
}

/** Writes log events to `res` as fast as it takes them, until it closes; counts them in `sent`. */
function pump(res: http.ServerResponse, sent: { count: number }, event = logEvent(200)): void {
  const more = (): void => {
    while (!res.destroyed) {
      sent.count += 1;
      if (!res.write(event)) {
        res.once('drain', more);
        return;
      }
    }
  };
  more();
}

describe('an HTTP server flooding log notifications on its event stream', () => {
  const hosts: HttpHost[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });

  /**
   * Connects to the flooding server and checks what the client read of its
   * flood. (What the server could write is not: loopback sockets grow
   * their buffers by megabytes for seconds before they hold it back.)
   */
  async function floodedOver(
    transport: McpTransportConfig,
    sent: { readonly count: number },
    call: 'call' | 'no call',
    most: (elapsedMs: number) => number,
  ) {
    const session = new Session();
    const told = logsTold(session);
    const started = performance.now();
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'flooder', transport }],
    });
    try {
      await section.connect();
      // Until the server has offered more than the client may read in half a
      // second (on a loaded machine it writes slower: it shares the process).
      const past = most(500);
      await vi.waitFor(() => expect(sent.count).toBeGreaterThan(past), { timeout: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(told()).toBeLessThanOrEqual(most(performance.now() - started));
      if (call === 'call') {
        // Answered on its own POST stream, whatever the event stream holds.
        const echo = await invokeTool(toolNamed(section, 'flooder_echo'), {}, { session });
        expect(echo.message).toBe('answered');
      }
    } finally {
      await section.disconnect();
    }
  }

  /** A streamable-HTTP server that floods `event` on its standalone stream. */
  async function streamableFlooder(sent: { count: number }, event?: string): Promise<HttpHost> {
    const host = await startHttpHost(async (req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        pump(res, sent, event);
        return;
      }
      if (req.method === 'DELETE') {
        res.writeHead(200).end();
        return;
      }
      const message = await rpcOf(req);
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: resultFor(message) }));
    });
    hosts.push(host);
    return host;
  }

  it('streamable HTTP: the standalone stream is read at the budget, and calls are answered meanwhile', async () => {
    const sent = { count: 0 };
    const host = await streamableFlooder(sent);
    await floodedOver({ type: 'streamable-http', url: host.url('/mcp') }, sent, 'call', mostRead);
  }, 30_000);

  it('streamable HTTP: large events are read at the byte rate', async () => {
    const sent = { count: 0 };
    const eventBytes = 100_000;
    const host = await streamableFlooder(sent, logEvent(eventBytes));
    // A chunk read past the bytes, and the log held.
    const most = (elapsedMs: number): number =>
      (READ_BYTE_BURST + (MAX_READ_BYTES_PER_SECOND * elapsedMs) / 1_000) / eventBytes + 10;
    await floodedOver({ type: 'streamable-http', url: host.url('/mcp') }, sent, 'call', most);
  }, 30_000);

  /**
   * The line ends read in a second from an event stream that repeats
   * `text`, on a budget of 100 tokens a second after 100; and the tokens
   * the budget held in that time.
   */
  /**
   * Reads `text` flooded on an event stream for a second, at `perSecond`
   * tokens: the lines read, the tokens the budget gave, and the most lines
   * one read passed on at once (the SDK's parser takes each read whole).
   */
  async function linesReadOnBudget(text: string, sent: { count: number }, perSecond = 100) {
    const host = await startHttpHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      pump(res, sent, text);
      return Promise.resolve();
    });
    hosts.push(host);
    const budget = new ReadBudget({ messageTokensPerSecond: perSecond, messageTokenBurst: 100 });
    const response = await boundedFetch({ budget })(host.url('/events'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const started = performance.now();
    let lines = 0;
    let mostAtOnce = 0;
    const end = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1_000));
    for (;;) {
      // Past the budget a read waits for the refill: it is not waited for past the second.
      const read = await Promise.race([reader.read(), end]);
      if (read === undefined || read.done) break;
      let once = 0;
      for (const byte of read.value) if (byte === 10) once += 1;
      lines += once;
      mostAtOnce = Math.max(mostAtOnce, once);
    }
    await reader.cancel();
    budget.release();
    const tokens = 100 + (perSecond * (performance.now() - started)) / 1_000;
    return { lines, tokens, mostAtOnce };
  }

  it('every event costs a token, those the SDK skips and empty ones too', async () => {
    const sent = { count: 0 };
    const { lines, tokens } = await linesReadOnBudget('event: skipped\ndata: a\n\n\n', sent);
    // Three line ends an event and an empty one (two tokens); a turn's worth passes past the budget.
    expect(lines / 3).toBeLessThanOrEqual((tokens + TOKENS_PER_TURN) / 2);
    expect(sent.count).toBeGreaterThan(10_000); // it did flood
  });

  it("lines that never end an event cost a token each past an event's fourth", async () => {
    // The SDK's parser makes an error, stack and all, for each line of an unknown field.
    const sent = { count: 0 };
    const { lines, tokens } = await linesReadOnBudget('x\n', sent);
    // One token a line past the fourth; a turn's worth passes past the budget.
    expect(lines).toBeLessThanOrEqual(tokens + 4 + TOKENS_PER_TURN);
    expect(sent.count).toBeGreaterThan(100_000); // it did flood
  });

  it("a chunk of short lines is passed on a turn's worth of tokens at a time", async () => {
    // A 64 KB chunk of 2-byte lines, parsed at once, held the event loop for some 340 ms.
    const sent = { count: 0 };
    const { lines, mostAtOnce } = await linesReadOnBudget('x\n', sent, 1_000_000);
    expect(mostAtOnce).toBeLessThanOrEqual(TOKENS_PER_TURN + 4);
    expect(lines).toBeGreaterThan(10 * TOKENS_PER_TURN); // it did read on, turn after turn
  });

  it('legacy SSE: the event stream is read at the budget', async () => {
    const sent = { count: 0 };
    let stream: http.ServerResponse | undefined;
    const host = await startHttpHost(async (req, res) => {
      if (req.method === 'GET') {
        stream = res;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: endpoint\ndata: /messages\n\n');
        return;
      }
      const message = await rpcOf(req);
      res.writeHead(202).end();
      if (message.id === undefined) return;
      const reply = { jsonrpc: '2.0', id: message.id, result: resultFor(message) };
      stream?.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
      // Once the client is connected: its listing is not behind the flood.
      if (message.method === 'tools/list' && stream !== undefined) pump(stream, sent);
    });
    hosts.push(host);
    // Its answers come behind the flood on the one stream: no call is made.
    await floodedOver({ type: 'sse', url: host.url('/sse') }, sent, 'no call', mostRead);
  }, 30_000);
});
