import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpConnectionError } from '../../src/core/errors.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { McpConnectionPool } from '../../src/mcp/connection-pool.js';
import { McpServerDisconnected, McpServerLog } from '../../src/mcp/events.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { ResourceRegistry } from '../../src/runtime/resources.js';
import { FileSessionStore } from '../../src/runtime/store/file-session-store.js';
import { Session } from '../../src/runtime/session.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import { ToolInvoked } from '../../src/runtime/events.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';
import {
  type CountingHttpServer,
  startCountingHttpServer,
} from '../fixtures/resilience/counting-http-server.js';
import { handWrittenServer } from '../support/hand-written-server.js';
import { recordEvents } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

let server: CountingHttpServer;
const sections: McpIntegrationSection[] = [];

beforeEach(async () => {
  server = await startCountingHttpServer();
});

afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  await server.close();
});

function config(): McpServerConfig {
  return { name: 'counting', transport: { type: 'streamable-http', url: server.url } };
}

function section(session: Session, pool?: McpConnectionPool): McpIntegrationSection {
  const created = new McpIntegrationSection({
    servers: [config()],
    session,
    ...(pool === undefined ? {} : { pool }),
  });
  sections.push(created);
  return created;
}

/** A native tool that reaches the MCP server through the session's pool. */
const relay = Tool.create({
  name: 'relay',
  description: 'Sends a message to the counting server through the pooled connection',
  params: z.object({ text: z.string() }),
  handler: async ({ text }, context) => {
    const pool = context.resources.get(McpConnectionPool);
    if (pool === undefined) return ToolResult.error('no MCP connection pool in this session');
    const result = await pool.callTool('counting', 'echo', { message: text });
    const first = result.content[0];
    return ToolResult.ok(null, first?.type === 'text' ? first.text : '(no text)');
  },
});

describe('McpConnectionPool', () => {
  it('is what two sections of one session share by default: one connection per server', async () => {
    const session = new Session();
    const a = section(session);
    const b = section(session);
    await Promise.all([a.connect(), b.connect()]);
    expect(server.initializes).toBe(1);
    const pool = session.resources.get(McpConnectionPool);
    expect(pool?.size).toBe(1);
    expect(await a.execute({ name: 'counting.echo', arguments: 'message: a' })).toMatchObject({
      success: true,
      message: 'echo: a',
    });
    expect(await b.execute({ name: 'counting.echo', arguments: 'message: b' })).toMatchObject({
      success: true,
      message: 'echo: b',
    });
    expect(server.initializes).toBe(1);
    expect(server.echoes).toBe(2);
  });

  it('is not shared between sessions unless given', async () => {
    await section(new Session()).connect();
    await section(new Session()).connect();
    expect(server.initializes).toBe(2);
  });

  it('given to sections of two sessions, opens a connection for each: a connection serves one session', async () => {
    const pool = new McpConnectionPool();
    const first = new Session();
    const second = new Session();
    await section(first, pool).connect();
    await section(second, pool).connect();
    expect(server.initializes).toBe(2);
    expect(pool.size).toBe(2);
    // The first section that used it registered it for its session.
    expect(first.resources.get(McpConnectionPool)).toBe(pool);
  });

  it('never publishes what a server logs during one session’s call on another session', async () => {
    // One process for both sessions would hold what one session's calls gave it,
    // and its logs would be published to every holder.
    const LOGGING = handWrittenServer({
      name: 'logging',
      toolsList: `send({ jsonrpc: '2.0', id: message.id, result: { tools: [
        { name: 'read', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } }] } });`,
      toolsCall: `send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'payroll row: alice 123456' } });
        send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } });`,
    });
    const pool = new McpConnectionPool();
    const open = async (session: Session): Promise<void> => {
      const created = new McpIntegrationSection({
        servers: [
          {
            name: 'logging',
            transport: { type: 'stdio', command: process.execPath, args: ['-e', LOGGING] },
          },
        ],
        session,
        pool,
        serverLogLevel: 'debug',
      });
      sections.push(created);
      await created.connect();
    };
    const a = new Session();
    const b = new Session();
    const aEvents = recordEvents(a);
    const bEvents = recordEvents(b);
    await open(a);
    await open(b);
    expect(pool.size).toBe(2);
    expect(await pool.callTool('logging', 'read', {}, { session: a })).toMatchObject({
      content: [{ text: 'ok' }],
    });
    await waitFor(() => aEvents.of(McpServerLog).length > 0, {
      timeoutMs: 5_000,
      description: 'the log to reach the session whose call it came with',
    });
    expect(JSON.stringify(aEvents.of(McpServerLog))).toContain('payroll row');
    expect(bEvents.of(McpServerLog)).toEqual([]);
  });

  it('once it has served two sessions, refuses a call that does not name its session, even while one is registered', async () => {
    const pool = new McpConnectionPool();
    const first = new Session();
    const second = new Session();
    const a = section(first, pool);
    await a.connect();
    expect(await pool.callTool('counting', 'echo', { message: 'x' })).toMatchObject({
      content: [{ text: 'echo: x' }],
    });
    const b = section(second, pool);
    await b.connect();
    // The second session's section is between connections: its call must not run as the first's.
    await b.disconnect();
    await expect(pool.callTool('counting', 'echo', { message: 'y' })).rejects.toThrow(
      'server "counting" is pooled for several sessions; pass { session } to say whose ratchet the call runs under',
    );
    await expect(
      pool.callTool('counting', 'echo', { message: 'y' }, { session: second }),
    ).rejects.toThrow('no pooled connection to server "counting"');
    expect(
      await pool.callTool('counting', 'echo', { message: 'z' }, { session: first }),
    ).toMatchObject({ content: [{ text: 'echo: z' }] });
    expect(server.echoes).toBe(2);
  });

  it('lets a native tool call an MCP server through context.resources', async () => {
    const session = new Session();
    await section(session).connect();
    const result = await invokeTool(relay, { text: 'from a native tool' }, { session });
    expect(result).toMatchObject({ success: true, message: 'echo: from a native tool' });
    expect(server.echoes).toBe(1);
    expect(server.initializes).toBe(1);
  });

  it('runs a call on the section that has the tool, not on a later one that could not connect the server', async () => {
    const session = new Session();
    await section(session).connect();
    const broken = new McpIntegrationSection({
      servers: [
        { name: 'counting', transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' } },
      ],
      session,
      onConnectError: 'report',
      key: 'mcp.broken',
    });
    sections.push(broken);
    await broken.connect();
    expect(broken.unavailableServers.map((down) => down.name)).toEqual(['counting']);
    const result = await invokeTool(relay, { text: 'still reachable' }, { session });
    expect(result).toMatchObject({ success: true, message: 'echo: still reachable' });
  });

  describe('of the sections of a session that configure one server', () => {
    const arrivals: string[] = [];
    /**
     * A deployment: each connection gets a fresh server whose tools name it;
     * `down` refuses to connect; `onCall` runs when a call arrives, before the answer.
     */
    const deployment = (
      name: string,
      down = false,
      onCall?: (transport: Transport) => Promise<void>,
    ) => ({
      connect: async (transport: Transport) => {
        if (down) throw new Error(`${name} is down`);
        const mcp = new McpServer({ name, version: '1.0.0' });
        const answer = (tool: string) => async () => {
          arrivals.push(`${name}:${tool}`);
          await onCall?.(transport);
          return { content: [{ type: 'text' as const, text: name }] };
        };
        mcp.registerTool(
          'where',
          { inputSchema: {}, annotations: { openWorldHint: false, readOnlyHint: true } },
          answer('where'),
        );
        // Says nothing of its reach: MCP counts it as able to reach the network.
        mcp.registerTool('plain', { inputSchema: {} }, answer('plain'));
        await mcp.connect(transport);
      },
      close: () => Promise.resolve(),
    });
    const inMemory = (server: object) => ({ type: 'in-memory' as const, server: server as never });
    const normal = inMemory(deployment('normal'));

    /** Two sections of a session (a new one by default), not connected: `x` isolated as `isolation` says, and `x` not isolated. */
    function twoSections(isolation: McpServerConfig['isolation'], session = new Session()) {
      const made = {
        isolating: new McpIntegrationSection({
          key: 'mcp.isolating',
          session,
          servers: [{ name: 'x', transport: normal, isolation }],
        }),
        plain: new McpIntegrationSection({
          key: 'mcp.plain',
          session,
          servers: [{ name: 'x', transport: normal }],
        }),
      };
      sections.push(made.isolating, made.plain);
      return { session, made };
    }

    beforeEach(() => {
      arrivals.length = 0;
    });

    it('runs a call on the one that routes it most strictly, whatever the order of connects', async () => {
      for (const order of [
        ['isolating', 'plain'],
        ['plain', 'isolating'],
      ] as const) {
        const { session, made } = twoSections({ transport: inMemory(deployment('isolated')) });
        for (const name of order) await made[name].connect();
        session.privateData.add('patients', 'confidential');
        const pool = session.resources.get(McpConnectionPool)!;
        const result = await pool.callTool('x', 'where', {}, { session });
        expect(result.content, order.join(' then ')).toEqual([{ type: 'text', text: 'isolated' }]);
      }
      expect(arrivals).toEqual(['isolated:where', 'isolated:where']);
    });

    it('passes no call on to a less strict one while the strictest has no tools', async () => {
      // The session holds private data from the start, and the isolated deployment is down.
      const { session, made } = twoSections({ transport: inMemory(deployment('isolated', true)) });
      session.privateData.add('patients', 'confidential');
      await made.isolating.connect().catch(() => undefined);
      await made.plain.connect();
      const pool = session.resources.get(McpConnectionPool)!;
      const result = await pool.callTool('x', 'where', {}, { session });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain(
        'only through the section that routes it most strictly',
      );
      expect(arrivals).toEqual([]);
    });

    it('moves a call to the one that came to route it more strictly before it was sent', async () => {
      const directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-pool-store-'));
      try {
        const worker = (): Promise<Session> =>
          Session.open({ sessionId: 'pooled', store: new FileSessionStore({ directory }) });
        const { session, made } = twoSections(
          { transport: inMemory(deployment('isolated')), at: 'secret' },
          await worker(),
        );
        await made.plain.connect();
        await made.isolating.connect();
        session.privateData.add('patients', 'confidential');
        await session.flushPrivateData();
        // Another worker raises the session past the isolating section's level: this one
        // reads it only when the call syncs with the store, after the pool chose.
        const other = await worker();
        other.privateData.add('records', 'secret');
        await other.flushPrivateData();
        const events = recordEvents(session);
        const pool = session.resources.get(McpConnectionPool)!;

        const result = await pool.callTool('x', 'where', {}, { session });

        expect(result.content).toEqual([{ type: 'text', text: 'isolated' }]);
        expect(arrivals).toEqual(['isolated:where']);
        // The first choice refused the call before it was sent, and says why.
        const invoked = events.of(ToolInvoked);
        expect(invoked.map((event) => event.result.success)).toEqual([false, true]);
        expect(invoked[0]!.result.message).toContain(
          'before it was sent, another section of the session came to route the server more strictly',
        );
      } finally {
        await rm(directory, { recursive: true, force: true });
      }
    });

    it("counts a section that isolates by the session's level while it connects", async () => {
      const session = new Session();
      const later = new McpIntegrationSection({
        key: 'mcp.later',
        session,
        servers: [
          {
            name: 'x',
            transport: normal,
            isolation: { transport: inMemory(deployment('isolated')) },
          },
        ],
      });
      const { made } = twoSections(
        { transport: inMemory(deployment('at secret')), at: 'secret' },
        session,
      );
      sections.push(later);
      await made.isolating.connect();
      session.privateData.add('patients', 'confidential');
      const pool = session.resources.get(McpConnectionPool)!;
      // `later` registers at once and learns the level a few turns on: until then it has no
      // tools, and the section isolating at `secret` must not take an unannotated call to normal.
      const connecting = later.connect();
      const result = await pool.callTool('x', 'plain', {}, { session });
      await connecting;
      expect(JSON.stringify(result.content)).toContain(
        'only through the section that routes it most strictly',
      );
      expect(arrivals).toEqual([]);
      const after = await pool.callTool('x', 'plain', {}, { session });
      expect(after.content).toEqual([{ type: 'text', text: 'isolated' }]);
    });

    it('sends no retry on a section overtaken since its first attempt, and runs it nowhere else', async () => {
      const session = new Session();
      let drops = 1;
      const dropping = inMemory(
        deployment('normal', false, async (transport) => {
          if (drops-- <= 0) return;
          // The session rises while the call waits to be sent again.
          setTimeout(() => session.privateData.add('patients', 'confidential'), 5);
          await transport.close();
        }),
      );
      const retry = { minDelayMs: 30, maxDelayMs: 30 };
      const isolating = new McpIntegrationSection({
        key: 'mcp.isolating',
        session,
        retry,
        servers: [
          {
            name: 'x',
            transport: dropping,
            isolation: { transport: inMemory(deployment('isolated')) },
          },
        ],
      });
      const plain = new McpIntegrationSection({
        key: 'mcp.plain',
        session,
        retry,
        servers: [{ name: 'x', transport: dropping }],
      });
      sections.push(isolating, plain);
      await isolating.connect();
      await plain.connect();
      session.privateData.add('notes', 'internal');
      const events = recordEvents(session);
      const pool = session.resources.get(McpConnectionPool)!;

      const result = await pool.callTool('x', 'where', {}, { session });

      expect(arrivals).toEqual(['normal:where']);
      expect(result.isError).toBe(true);
      const invoked = events.of(ToolInvoked);
      expect(invoked).toHaveLength(1);
      expect(invoked[0]!.result.message).toContain(
        'was not called again: before the retry was sent, another section of the session came to route the server more strictly (the first attempt may have reached it)',
      );
    });

    it('below the level one isolates at, runs a call on one without isolation, which refuses more', async () => {
      const { session, made } = twoSections({
        transport: inMemory(deployment('isolated')),
        at: 'secret',
      });
      await made.plain.connect();
      await made.isolating.connect();
      session.privateData.add('patients', 'confidential');
      const pool = session.resources.get(McpConnectionPool)!;
      // Unannotated: refused on a server without isolation once the session holds private data.
      const result = await pool.callTool('x', 'plain', {}, { session });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('is blocked');
      expect(arrivals).toEqual([]);
    });
  });

  it('refuses a native tool of another session that shares the resources', async () => {
    // One registry for two sessions: the pool of A's section is reachable from B's tools.
    const resources = new ResourceRegistry();
    const a = new Session({ sessionId: 'a', resources });
    const b = new Session({ sessionId: 'b', resources });
    b.privateData.add('records', 'secret');
    await section(a).connect();

    const result = await invokeTool(relay, { text: 'patient 42' }, { session: b });

    expect(result.success).toBe(false);
    expect(result.message).toContain('pooled for another session');
    expect(server.echoes).toBe(0);
    expect(a.privateData.sensitivity).toBe('public');
    // A's own tools still reach it without naming the session, also while B's run at once:
    // each call is judged by its own async context, not by which ran last.
    const [fromA, fromB] = await Promise.all([
      invokeTool(relay, { text: 'from a' }, { session: a }),
      invokeTool(relay, { text: 'from b' }, { session: b }),
    ]);
    expect(fromA).toMatchObject({ success: true, message: 'echo: from a' });
    expect(fromB.success).toBe(false);
    expect(server.echoes).toBe(1);
  });

  it('passes a deadline on: a call past it never reaches the server', async () => {
    const session = new Session();
    await section(session).connect();
    const pool = session.resources.get(McpConnectionPool)!;
    const deadline = new Date(Date.now() - 1);
    const result = await pool.callTool('counting', 'echo', { message: 'late' }, { deadline });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      `its deadline ${deadline.toISOString()} had passed`,
    );
    expect(server.echoes).toBe(0);
  });

  it('keeps the shared connection while one section holds it and closes it after the last', async () => {
    const session = new Session();
    const a = section(session);
    const b = section(session);
    await a.connect();
    await b.connect();
    await waitFor(() => server.openStreams === 1, {
      timeoutMs: 5_000,
      description: 'the client to open its SSE stream',
    });
    const pool = session.resources.require(McpConnectionPool);

    await a.disconnect();
    expect(pool.size).toBe(1);
    expect(
      await b.execute({ name: 'counting.echo', arguments: 'message: still here' }),
    ).toMatchObject({ success: true, message: 'echo: still here' });
    expect(await invokeTool(relay, { text: 'native' }, { session })).toMatchObject({
      success: true,
    });
    expect(server.initializes).toBe(1);
    expect(server.openStreams).toBe(1);

    await b.disconnect();
    expect(pool.size).toBe(0);
    await waitFor(() => server.openStreams === 0, {
      timeoutMs: 5_000,
      description: 'the server to see the client go',
    });
    await expect(pool.callTool('counting', 'echo', { message: 'x' })).rejects.toThrow(
      new McpConnectionError(
        'counting',
        'none',
        'no pooled connection to server "counting"; pooled servers: (none)',
      ),
    );
    expect(await invokeTool(relay, { text: 'late' }, { session })).toMatchObject({
      success: false,
      message: 'no pooled connection to server "counting"; pooled servers: (none)',
    });
  });
});

describe('McpConnectionPool.keyOf', () => {
  const transport = { type: 'stdio' as const, command: 'node', args: ['server.js'] };
  const key = (answers?: Parameters<typeof McpConnectionPool.keyOf>[3]['answers']): string =>
    McpConnectionPool.keyOf('files', 'normal', transport, {
      env: undefined,
      inheritEnv: false,
      ...(answers === undefined ? {} : { answers }),
    });
  const sampling = (): never => {
    throw new Error('not called');
  };

  it('shares a connection only between holders that answer the server’s requests alike', () => {
    const session = new Session();
    expect(key({ session, handlers: { sampling } })).toBe(key({ session, handlers: { sampling } }));
    // Another session's data decides, or another handler answers.
    expect(key({ session, handlers: { sampling } })).not.toBe(
      key({ session: new Session(), handlers: { sampling } }),
    );
    expect(key({ session, handlers: { sampling } })).not.toBe(
      key({ session, handlers: { sampling: (): never => sampling() } }),
    );
    expect(key({ session, handlers: { sampling } })).not.toBe(
      key({ session, handlers: { roots: sampling } }),
    );
  });

  it('shares no connection between a route that isolates the server and one that does not', () => {
    const session = new Session();
    const plain = McpConnectionPool.keyOf('files', 'normal', transport, {
      env: undefined,
      inheritEnv: false,
      answers: { session, handlers: {} },
    });
    const sandboxed = McpConnectionPool.keyOf('files', 'normal', transport, {
      env: undefined,
      inheritEnv: false,
      answers: { session, handlers: {} },
      isolation: 'stopped at confidential',
    });
    expect(sandboxed).not.toBe(plain);
  });

  it('shares no connection between sessions, even one that answers nothing', () => {
    const session = new Session();
    expect(key({ session, handlers: {} })).toBe(key({ session, handlers: {} }));
    expect(key({ session: new Session(), handlers: {} })).not.toBe(
      key({ session: new Session(), handlers: {} }),
    );
  });
});

describe('McpConnectionPool and secrets', () => {
  /** A stdio server whose `crash` tool prints its argument (a token) to stderr and exits. */
  const TELLING = handWrittenServer({
    name: 'teller',
    toolsList: `send({ jsonrpc: '2.0', id: message.id, result: { tools: [
      { name: 'crash', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } }] } });`,
    toolsCall: `process.stderr.write('dying with token ' + process.argv[1] + '\\n', () => process.exit(3));`,
  });
  const TOKEN = 'tok-4f8a2c91d7e3';

  it('shares no connection between configs that mask different secrets', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const transport = {
      type: 'stdio' as const,
      command: process.execPath,
      args: ['-e', TELLING, TOKEN],
    };
    // The same server, once declared without its secret, once with it.
    const careless = new McpIntegrationSection({
      session,
      servers: [{ name: 'teller', transport }],
    });
    const careful = new McpIntegrationSection({
      session,
      servers: [{ name: 'teller', transport, secrets: [TOKEN] }],
    });
    sections.push(careless, careful);
    await careless.connect();
    await careful.connect();
    const crash = careful.tools().find((tool) => tool.name === 'teller_crash');
    expect(crash).toBeDefined();
    const result = await invokeTool(crash!, {}, { session });
    expect(result.success).toBe(false);
    expect(result.message).not.toContain(TOKEN);
    await waitFor(
      () => events.of(McpServerDisconnected).some((event) => event.reason?.includes('dying')),
      { timeoutMs: 5_000, description: "the careful section's connection to be lost" },
    );
    const reasons = events
      .of(McpServerDisconnected)
      .map((event) => event.reason ?? '')
      .filter((reason) => reason.includes('dying'));
    // Only the careful section's own connection died, and its reason masks the token.
    expect(reasons).toEqual([expect.stringContaining('dying with token ***')]);
  });
});
