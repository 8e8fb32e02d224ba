/**
 * A connect that several callers wait for (a second `connect()`, a second
 * section on the session's pooled connection, a health check) ends early
 * only when every one of them gave up: one caller's signal or time limit
 * never fails another's connect.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpConnectionPool } from '../../src/mcp/connection-pool.js';
import { McpHealthMonitor } from '../../src/mcp/health-monitor.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';

const sections: McpIntegrationSection[] = [];

afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

/** An in-process server whose handshake waits until `open()` (or `delayMs`), and can be down. */
function slowServer(options: { delayMs?: number } = {}): {
  endpoint: { connect(transport: Transport): Promise<void>; close(): Promise<void> };
  open(): void;
  setDown(down: boolean): void;
  handshakes(): number;
} {
  let down = false;
  let handshakes = 0;
  const gates: (() => void)[] = [];
  const release = (): void => {
    for (const gate of gates.splice(0)) gate();
  };
  const servers: McpServer[] = [];
  return {
    endpoint: {
      async connect(transport) {
        if (down) throw new Error('ECONNREFUSED: the server is down');
        await new Promise<void>((resolve) => {
          if (options.delayMs === undefined) gates.push(resolve);
          else setTimeout(resolve, options.delayMs);
        });
        const server = new McpServer({ name: 'slow', version: '1.0.0' });
        server.registerTool(
          'echo',
          { inputSchema: { text: z.string() }, annotations: { openWorldHint: false } },
          ({ text }) => ({ content: [{ type: 'text', text }] }),
        );
        servers.push(server);
        handshakes += 1;
        await server.connect(transport);
      },
      async close() {
        await Promise.all(servers.splice(0).map((server) => server.close()));
      },
    },
    open: release,
    setDown: (value) => {
      down = value;
    },
    handshakes: () => handshakes,
  };
}

function section(
  session: Session,
  endpoint: ReturnType<typeof slowServer>['endpoint'],
  extra: { key?: string; onConnectError?: 'report' } = {},
): McpIntegrationSection {
  const created = new McpIntegrationSection({
    session,
    // Duck-typed: the in-memory transport only asks its server to connect and close.
    servers: [
      { name: 'slow', transport: { type: 'in-memory', server: endpoint as unknown as McpServer } },
    ],
    ...extra,
  });
  sections.push(created);
  return created;
}

const turn = (ms = 10): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function echo(target: McpIntegrationSection, session: Session): Promise<string> {
  const tool = target.tools().find((candidate) => candidate.name.endsWith('echo'));
  if (tool === undefined) throw new Error('no echo tool');
  const result = await invokeTool(tool, { text: 'still here' }, { session });
  return result.message;
}

describe('a connect that several callers wait for', () => {
  it('a second connect() without a signal connects although the first caller gave up', async () => {
    const server = slowServer();
    const session = new Session();
    const target = section(session, server.endpoint);
    const first = new AbortController();
    const impatient = target.connect({ signal: first.signal });
    impatient.catch(() => undefined);
    const patient = target.connect();
    await turn();
    first.abort(new Error('the first caller left'));
    await expect(impatient).rejects.toThrow('the first caller left');
    server.open();
    await patient;
    expect(target.connected).toBe(true);
    expect(await echo(target, session)).toBe('still here');
  });

  it('a connect() called after a disconnect() connects anew, once the disconnect is done', async () => {
    const server = slowServer({ delayMs: 20 });
    const session = new Session();
    const target = section(session, server.endpoint);
    const first = target.connect();
    const closing = target.disconnect();
    const again = target.connect();
    await Promise.all([first, closing, again]);
    expect(target.connected).toBe(true);
    expect(await echo(target, session)).toBe('still here');
    expect(server.handshakes()).toBe(2);
  });

  it('connect() then disconnect() twice over ends disconnected, whatever waits for what', async () => {
    const server = slowServer({ delayMs: 20 });
    const session = new Session();
    const target = section(session, server.endpoint);
    await target.connect();
    const calls = [target.disconnect(), target.connect(), target.disconnect()];
    await Promise.all(calls);
    expect(target.connected).toBe(false);
    expect(target.routes).toEqual([]);
    await target.connect();
    expect(await echo(target, session)).toBe('still here');
  });

  it('a section on the pooled connection connects although another section of the session gave up', async () => {
    const server = slowServer();
    const session = new Session();
    const a = section(session, server.endpoint, { key: 'a' });
    const b = section(session, server.endpoint, { key: 'b' });
    const gaveUp = new AbortController();
    const byA = a.connect({ signal: gaveUp.signal });
    byA.catch(() => undefined);
    const byB = b.connect();
    await turn();
    gaveUp.abort(new Error('A gave up'));
    await expect(byA).rejects.toThrow(/cannot connect: A gave up/);
    server.open();
    await byB;
    expect(b.connected).toBe(true);
    expect(session.resources.get(McpConnectionPool)?.size).toBe(1);
    expect(server.handshakes()).toBe(1);
    expect(await echo(b, session)).toBe('still here');
  });

  it("a health check's time limit ends its own wait, not another section's connect", async () => {
    const server = slowServer({ delayMs: 400 });
    server.setDown(true);
    const session = new Session();
    const a = section(session, server.endpoint, { key: 'a', onConnectError: 'report' });
    await a.connect();
    expect(a.unavailableServers.map(({ name }) => name)).toEqual(['slow']);
    server.setDown(false);
    const monitor = new McpHealthMonitor(a, { timeoutMs: 100 });
    const checked = monitor.check();
    await turn();
    const b = section(session, server.endpoint, { key: 'b' });
    const byB = b.connect();
    const [health] = await checked;
    expect(health?.healthy).toBe(false);
    expect(health?.lastError).toContain('did not finish within 100 ms');
    await byB;
    expect(b.connected).toBe(true);
    expect(await echo(b, session)).toBe('still here');
  });

  it.each([['throw'], ['report']] as const)(
    'a connect that every caller gave up ends, and a later connect starts anew (onConnectError: %s)',
    async (onConnectError) => {
      const server = slowServer({ delayMs: 100 });
      const session = new Session();
      const target = section(
        session,
        server.endpoint,
        onConnectError === 'report' ? { onConnectError } : {},
      );
      const alone = new AbortController();
      const abandoned = target.connect({ signal: alone.signal });
      abandoned.catch(() => undefined);
      await turn();
      alone.abort(new Error('nobody waits'));
      // Asked again before the abandoned attempt has ended: it does not share its cancellation.
      const again = target.connect();
      await expect(abandoned).rejects.toThrow('nobody waits');
      await again;
      expect(server.handshakes()).toBe(2);
      expect(target.connected).toBe(true);
      // Not unavailable for a cancellation that was not this caller's.
      expect(target.unavailableServers).toEqual([]);
      expect(await echo(target, session)).toBe('still here');
    },
  );

  it('a section that connects just after another gave up alone on the pooled connection starts it anew', async () => {
    const server = slowServer({ delayMs: 100 });
    const session = new Session();
    const a = section(session, server.endpoint, { key: 'a' });
    const b = section(session, server.endpoint, { key: 'b' });
    const alone = new AbortController();
    const byA = a.connect({ signal: alone.signal });
    byA.catch(() => undefined);
    await turn();
    alone.abort(new Error('A gave up'));
    const byB = b.connect();
    await expect(byA).rejects.toThrow(/cannot connect: A gave up/);
    await byB;
    expect(b.connected).toBe(true);
    expect(await echo(b, session)).toBe('still here');
  });

  it('in any order of handshakes and cancellations, a section that asked for no limit connects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.boolean(),
        fc.boolean(),
        async (scheduler, aHasSignal, bHasSignal) => {
          const server = slowServer();
          const gated = {
            ...server.endpoint,
            async connect(transport: Transport) {
              await scheduler.schedule(Promise.resolve(), 'handshake');
              server.open();
              const connecting = server.endpoint.connect(transport);
              server.open();
              await connecting;
            },
          };
          const session = new Session();
          const a = section(session, gated, { key: 'a' });
          const b = section(session, gated, { key: 'b' });
          const asked = [
            { target: a, controller: aHasSignal ? new AbortController() : undefined },
            { target: b, controller: bHasSignal ? new AbortController() : undefined },
          ];
          const outcomes = asked.map(({ target, controller }) => {
            if (controller !== undefined) {
              void scheduler
                .schedule(Promise.resolve(), `abort ${target === a ? 'a' : 'b'}`)
                .then(() => controller.abort(new Error('gave up')));
            }
            return target.connect(controller ? { signal: controller.signal } : {}).then(
              () => 'connected',
              (error: Error) => error.message,
            );
          });
          // One scheduled step at a time, in the scheduler's order, those scheduled
          // meanwhile (the handshake, once a connection reaches its transport) too.
          let done = false;
          const all = Promise.all(outcomes).finally(() => (done = true));
          while (!done) {
            if (scheduler.count() > 0) await scheduler.waitOne();
            else await new Promise((resolve) => setTimeout(resolve, 1));
          }
          const settled = await all;
          await scheduler.waitAll();
          asked.forEach(({ target, controller }, index) => {
            // No limit asked: connected, whatever the other did.
            if (controller === undefined) expect(settled[index]).toBe('connected');
            // A limit that fired before the connect ended: this caller alone gave up.
            else if (settled[index] !== 'connected') expect(settled[index]).toContain('gave up');
            expect(target.connected).toBe(settled[index] === 'connected');
          });
          for (const [index, { target }] of asked.entries()) {
            if (settled[index] === 'connected')
              expect(await echo(target, session)).toBe('still here');
          }
          await Promise.all([a.disconnect(), b.disconnect()]);
          expect(session.resources.get(McpConnectionPool)?.size ?? 0).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('after any run of connect() and disconnect() calls, ends as the last one asked, with no server left open', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(
          fc.tuple(fc.constantFrom('connect' as const, 'disconnect' as const), fc.boolean()),
          { minLength: 1, maxLength: 6 },
        ),
        async (scheduler, asked) => {
          let open = 0;
          const endpoint = {
            async connect(transport: Transport) {
              await scheduler.schedule(Promise.resolve(), 'handshake');
              const server = new McpServer({ name: 'scheduled', version: '1.0.0' });
              server.registerTool(
                'echo',
                { inputSchema: { text: z.string() }, annotations: { openWorldHint: false } },
                ({ text }) => ({ content: [{ type: 'text', text }] }),
              );
              open += 1;
              server.server.onclose = () => (open -= 1);
              await server.connect(transport);
            },
            async close() {
              // Each connection closes its own server through its transport; a close takes its time.
              await scheduler.schedule(Promise.resolve(), 'close');
            },
          };
          const session = new Session();
          const target = section(session, endpoint);
          // Called one after another, in the same tick or in one the scheduler places
          // among the handshakes and closes, as an application's handlers would.
          const calls: Promise<unknown>[] = [];
          let issuing = Promise.resolve();
          for (const [call, sameTick] of asked) {
            issuing = issuing.then(async () => {
              calls.push(target[call]().catch(() => undefined));
              if (!sameTick) await scheduler.schedule(Promise.resolve(), `after ${call}`);
            });
          }
          /** Releases the scheduled steps one at a time, in the scheduler's order, until `work` settles. */
          const drive = async (work: Promise<unknown>): Promise<void> => {
            let done = false;
            const settled = work.finally(() => (done = true));
            while (!done) {
              if (scheduler.count() > 0) await scheduler.waitOne();
              else await new Promise((resolve) => setTimeout(resolve, 1));
            }
            await settled;
          };
          await drive(issuing.then(() => Promise.all(calls)));
          const last = asked.at(-1)?.[0];
          expect(target.connected).toBe(last === 'connect');
          if (last === 'connect') expect(await echo(target, session)).toBe('still here');
          else expect(open).toBe(0);
          await drive(target.disconnect());
          expect(open).toBe(0);
        },
      ),
      { numRuns: 80 },
    );
  });
});
