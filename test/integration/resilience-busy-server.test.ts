/**
 * Calls that must survive a busy or unhappy server: a health check with a
 * short timeout while the server is blocked in a call, and a server's own
 * JSON-RPC error -32000 beside a slow call. The server's process must be
 * the same one afterwards: nothing was restarted.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  McpHealthMonitor,
  McpIntegrationSection,
  McpServerConnected,
  McpServerLog,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { call, collect } from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const busyServerPath = fileURLToPath(
  new URL('../fixtures/resilience/busy-server.mjs', import.meta.url),
);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function busySection(
  session: Session,
  extra: { env?: Record<string, string>; serverLogLevel?: 'debug' | 'warning' | 'error' } = {},
): Promise<McpIntegrationSection> {
  const before = childPids();
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'busy',
        transport: { type: 'stdio', command: process.execPath, args: [busyServerPath] },
        ...(extra.env === undefined ? {} : { env: extra.env }),
      },
    ],
    ...(extra.serverLogLevel === undefined ? {} : { serverLogLevel: extra.serverLogLevel }),
  });
  cleanups.push(async () => {
    await section.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
  await section.connect();
  return section;
}

function pidOf(result: { message: string }): number {
  return Number(result.message);
}

describe('a busy or unhappy server keeps its process and its calls', () => {
  it('a health check shorter than a blocking call neither fails the call nor restarts the server', async () => {
    const session = new Session();
    const connected = collect(session, McpServerConnected);
    const section = await busySection(session);
    const pid = pidOf(await call(section, 'busy_pid'));
    const monitor = new McpHealthMonitor(section, { timeoutMs: 200 });

    const blocking = call(section, 'busy_busy', { ms: 1_500 });
    // Let the call reach the server and block it, then probe it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const statuses = await monitor.check();
    const result = await blocking;

    expect(result).toMatchObject({ success: true });
    expect(pidOf(result)).toBe(pid);
    expect(statuses[0]).toMatchObject({ name: 'busy', healthy: false });
    expect(statuses[0]?.lastError).toContain('not reconnected');
    expect(pidOf(await call(section, 'busy_pid'))).toBe(pid);
    expect(connected).toHaveLength(1);
    // Once the server is free again, it is healthy.
    expect((await monitor.check())[0]).toMatchObject({ healthy: true });
  });

  it("a server's own -32000 error is a failed call on a healthy connection", async () => {
    const session = new Session();
    const connected = collect(session, McpServerConnected);
    const invoked = collect(session, ToolInvoked);
    const section = await busySection(session);
    const pid = pidOf(await call(section, 'busy_pid'));

    const [slow, quota] = await Promise.all([
      call(section, 'busy_slow', { ms: 800 }),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => call(section, 'busy_quota')),
    ]);

    expect(quota.success).toBe(false);
    expect(quota.message).toBe(
      'server "busy" refused tool "quota" (JSON-RPC error -32000): upstream quota exceeded',
    );
    expect(slow).toMatchObject({ success: true });
    expect(pidOf(slow)).toBe(pid);
    expect(pidOf(await call(section, 'busy_pid'))).toBe(pid);
    // Not retried on a new session: one connection, one quota call.
    expect(connected).toHaveLength(1);
    expect(invoked.filter((event) => event.originalName === 'quota')).toHaveLength(1);
  });

  it("publishes the server's own log messages, redacted and filtered by level", async () => {
    const secret = 'sk-live-0123456789';
    const session = new Session();
    const logs = collect(session, McpServerLog);
    const section = await busySection(session, {
      env: { API_KEY: secret },
      serverLogLevel: 'warning',
    });
    await call(section, 'busy_log', { text: `retrying with ${secret}\nsecond line` });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      serverName: 'busy',
      level: 'warning',
      logger: 'busy',
      message: 'retrying with ***\nsecond line',
    });
    expect(JSON.stringify(logs)).not.toContain(secret);
  });

  it('drops server log messages below the threshold', async () => {
    const session = new Session();
    const logs = collect(session, McpServerLog);
    const section = await busySection(session, { serverLogLevel: 'error' });
    await call(section, 'busy_log', { text: 'a warning' });
    expect(logs).toEqual([]);
  });
});
