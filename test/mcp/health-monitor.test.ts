import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConfigError } from '../../src/core/errors.js';
import {
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_HEALTH_TIMEOUT_MS,
  McpHealthMonitor,
  McpServerHealthChanged,
} from '../../src/mcp/health-monitor.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { McpToolsChanged } from '../../src/mcp/events.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import { FlakyServer } from '../fixtures/resilience/flaky-server.js';

// Everything here runs in memory, so all of time can be fake; the SDK's
// request timeouts and the reconnection backoff run on the same clock.
beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Fixture {
  readonly server: FlakyServer;
  readonly session: Session;
  readonly section: McpIntegrationSection;
  readonly events: McpServerHealthChanged[];
}

async function connectedSection(
  server: FlakyServer,
  extra: Partial<McpServerConfig> = {},
  options: { onConnectError?: 'throw' | 'report' } = {},
): Promise<Fixture> {
  const session = new Session();
  const events: McpServerHealthChanged[] = [];
  session.bus.subscribe(McpServerHealthChanged, (event) => events.push(event));
  const section = new McpIntegrationSection({
    servers: [{ name: 'flaky', transport: { type: 'in-memory', server }, ...extra }],
    session,
    ...options,
  });
  await section.connect();
  return { server, session, section, events };
}

describe('McpHealthMonitor', () => {
  it('sees a server go down, warns, and clears the warning when it is back', async () => {
    const { server, section, events } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section);
    const t0 = Date.now();
    try {
      expect(monitor.statuses()).toEqual([{ name: 'flaky', healthy: false, toolCount: 0 }]);
      expect(monitor.isHealthy()).toBe(false);
      expect(monitor.warnings()).toEqual([]);

      monitor.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(monitor.statuses()).toEqual([
        { name: 'flaky', healthy: true, lastCheck: new Date(t0), toolCount: 2 },
      ]);
      expect(monitor.isHealthy()).toBe(true);
      expect(monitor.cachedTools('flaky')?.map((tool) => tool.name)).toEqual(['echo', 'bump']);

      // A second healthy check is not a change.
      await vi.advanceTimersByTimeAsync(DEFAULT_HEALTH_INTERVAL_MS);
      expect(server.lists).toBe(1); // connect only: checks ping
      expect(server.pings).toBe(2);
      expect(events.map((event) => event.healthy)).toEqual([true]);

      await server.kill();
      // The connection's own three reconnection tries fail, then the next check
      // lists (fails), reconnects once more (fails) and reports.
      await vi.advanceTimersByTimeAsync(DEFAULT_HEALTH_INTERVAL_MS + DEFAULT_HEALTH_TIMEOUT_MS);
      const [down] = monitor.statuses();
      expect(down).toMatchObject({ name: 'flaky', healthy: false, toolCount: 2 });
      expect(down?.lastError).toMatch(
        /^the server is unavailable: .*; reconnecting failed: gave up after 3 reconnection attempts: .*connect ECONNREFUSED \(the test server is down\)$/,
      );
      expect(monitor.isHealthy()).toBe(false);
      expect(monitor.warnings()).toEqual([`MCP server "flaky" is unhealthy: ${down?.lastError}`]);
      // The last good list stays available while the server is down.
      expect(monitor.cachedTools('flaky')).toHaveLength(2);

      server.down = false;
      await vi.advanceTimersByTimeAsync(DEFAULT_HEALTH_INTERVAL_MS + DEFAULT_HEALTH_TIMEOUT_MS);
      const [up] = monitor.statuses();
      expect(up).toMatchObject({ name: 'flaky', healthy: true, toolCount: 2 });
      expect(up).not.toHaveProperty('lastError');
      expect(up?.lastCheck?.getTime()).toBeGreaterThan(down?.lastCheck?.getTime() ?? Infinity);
      expect(monitor.warnings()).toEqual([]);
      expect(monitor.isHealthy()).toBe(true);
      expect(server.connects).toBe(2);

      expect(events).toEqual([
        expect.objectContaining({ serverName: 'flaky', healthy: true, toolCount: 2 }),
        expect.objectContaining({
          serverName: 'flaky',
          healthy: false,
          previous: true,
          reason: down?.lastError,
        }),
        expect.objectContaining({ serverName: 'flaky', healthy: true, previous: false }),
      ]);
      expect(events[0]).not.toHaveProperty('previous');
      expect(events[2]).not.toHaveProperty('reason');
      expect(events.every((event) => event.sessionId === section.session.sessionId)).toBe(true);

      // The reconnected server serves calls again.
      const result = await section.execute({ name: 'flaky.echo', arguments: 'message: back' });
      expect(result).toMatchObject({ success: true, message: 'echo: back' });
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });

  it('reports a hung ping on an open connection without reconnecting it, and recovers', async () => {
    const { server, section } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section, { intervalMs: 10_000, timeoutMs: 2_000 });
    try {
      await monitor.check();
      server.listMode = 'hang';
      // The hang is only noticed after 2 s of (fake) time: nothing resolved yet.
      const checked = monitor.check();
      await vi.advanceTimersByTimeAsync(1_999);
      expect(monitor.statuses()[0]?.healthy).toBe(true);
      await vi.advanceTimersByTimeAsync(10_000);
      await checked;
      expect(monitor.statuses()[0]).toMatchObject({
        healthy: false,
        lastError: 'ping did not answer within 2000 ms; the connection is open, not reconnected',
      });
      // A slow answer is not a lost connection: nothing was torn down.
      expect(server.connects).toBe(1);

      server.listMode = 'answer';
      monitor.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(monitor.statuses()[0]).toMatchObject({ healthy: true, toolCount: 2 });
      expect(monitor.warnings()).toEqual([]);
      expect(server.connects).toBe(1);
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });

  it('runs checks one at a time and every intervalMs after the previous one ended', async () => {
    const { server, section } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section, { intervalMs: 1_000 });
    try {
      const pingsBefore = server.pings;
      const [a, b] = [monitor.check(), monitor.check()];
      expect(a).toBe(b);
      await a;
      expect(server.pings).toBe(pingsBefore + 1);
      expect(vi.getTimerCount()).toBe(0); // check() alone arms no timer

      monitor.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(server.pings).toBe(pingsBefore + 2);
      await vi.advanceTimersByTimeAsync(999);
      expect(server.pings).toBe(pingsBefore + 2);
      await vi.advanceTimersByTimeAsync(1);
      expect(server.pings).toBe(pingsBefore + 3);

      // A slow check delays the next one instead of overlapping it.
      server.listMode = 'hang';
      await vi.advanceTimersByTimeAsync(1_000); // check starts and hangs (timeout 5 s)
      expect(server.pings).toBe(pingsBefore + 4);
      await vi.advanceTimersByTimeAsync(4_000);
      expect(server.pings).toBe(pingsBefore + 4);
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });

  it('stop() clears its timer and cancels a check in progress', async () => {
    const { server, section, events } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section);
    try {
      monitor.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(monitor.running).toBe(true);
      expect(vi.getTimerCount()).toBe(1);
      monitor.stop();
      expect(monitor.running).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
      const pings = server.pings;
      await vi.advanceTimersByTimeAsync(10 * DEFAULT_HEALTH_INTERVAL_MS);
      expect(server.pings).toBe(pings);

      // Stopped in the middle of a hung check: its timeout and the SDK's request
      // timer go too, and its result is dropped.
      server.listMode = 'hang';
      monitor.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(server.pings).toBe(pings + 1);
      expect(vi.getTimerCount()).toBeGreaterThan(0);
      monitor[Symbol.dispose]();
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(0);
      expect(monitor.statuses()[0]?.healthy).toBe(true);
      expect(events).toHaveLength(1);
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });

  it('connects again a server that failed at connect(), bringing its tools back', async () => {
    const server = new FlakyServer();
    server.down = true;
    const { section, events } = await connectedSection(server, {}, { onConnectError: 'report' });
    const monitor = new McpHealthMonitor(section);
    try {
      await monitor.check();
      const [status] = monitor.statuses();
      expect(status).toMatchObject({
        name: 'flaky',
        healthy: false,
        lastCheck: new Date(),
        toolCount: 0,
      });
      expect(status?.lastError).toMatch(
        /^unavailable: .*cannot connect: connect ECONNREFUSED \(the test server is down\); connecting again failed: /,
      );
      expect(section.tools()).toEqual([]);
      expect(events).toEqual([expect.objectContaining({ healthy: false })]);

      server.down = false;
      await monitor.check();
      expect(server.connects).toBe(1);
      expect(monitor.statuses()[0]).toMatchObject({ healthy: true, toolCount: 2 });
      expect(section.unavailableServers).toEqual([]);
      expect(section.tools().map((tool) => tool.name)).toEqual(['flaky_echo', 'flaky_bump']);
      expect(events.map((event) => event.healthy)).toEqual([false, true]);
      expect(
        await section.execute({ name: 'flaky.echo', arguments: 'message: back' }),
      ).toMatchObject({ success: true, message: 'echo: back' });
    } finally {
      await section.disconnect();
    }
  });

  it('brings a server back once when two checks find it at the same time, announcing its tools once', async () => {
    const server = new FlakyServer();
    server.down = true;
    const { section, session } = await connectedSection(server, {}, { onConnectError: 'report' });
    const added: string[][] = [];
    session.bus.subscribe(McpToolsChanged, (event) => added.push([...event.added]));
    try {
      server.down = false;
      const tools = section.tools();
      await Promise.all([
        new McpHealthMonitor(section).check(),
        new McpHealthMonitor(section).check(),
      ]);
      expect(added).toEqual([['flaky_echo', 'flaky_bump']]);
      expect(section.tools().map((tool) => tool.name)).toEqual(['flaky_echo', 'flaky_bump']);
      expect(tools).toEqual([]);
    } finally {
      await section.disconnect();
    }
  });

  it('marks every server unhealthy while the section is not connected', async () => {
    const { section } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section);
    await monitor.check();
    expect(monitor.isHealthy()).toBe(true);
    await section.disconnect();
    await monitor.check();
    expect(monitor.warnings()).toEqual([
      'MCP server "flaky" is unhealthy: section "mcp.integrations" is not connected',
    ]);
  });

  it('redacts secrets from the reasons it keeps and publishes', async () => {
    const secret = 'tok-8f1c2a9e';
    const server = new FlakyServer({ downMessage: `refused with token ${secret}` });
    const { section, events } = await connectedSection(server, { env: { API_TOKEN: secret } });
    const monitor = new McpHealthMonitor(section, { timeoutMs: 3_000 });
    try {
      await server.kill();
      const checked = monitor.check();
      await vi.advanceTimersByTimeAsync(10_000);
      await checked;
      const text = JSON.stringify([monitor.statuses(), monitor.warnings(), events]);
      expect(text).toContain('refused with token ***');
      expect(text).not.toContain(secret);
    } finally {
      await section.disconnect();
    }
  });

  it('check({ signal }) stops waiting when the signal aborts, leaving the check to finish', async () => {
    const { server, section } = await connectedSection(new FlakyServer());
    const monitor = new McpHealthMonitor(section, { timeoutMs: 1_000 });
    try {
      server.listMode = 'hang';
      const controller = new AbortController();
      const waiting = monitor.check({ signal: controller.signal });
      controller.abort(new Error('caller gave up'));
      await expect(waiting).rejects.toThrow('caller gave up');
      const shared = monitor.check();
      await vi.advanceTimersByTimeAsync(5_000);
      await expect(shared).resolves.toEqual([expect.objectContaining({ healthy: false })]);
      await expect(monitor.check({ signal: AbortSignal.abort() })).rejects.toThrow();
    } finally {
      await section.disconnect();
    }
  });

  it('rejects durations that are not positive numbers of milliseconds', async () => {
    const { section } = await connectedSection(new FlakyServer());
    try {
      expect(() => new McpHealthMonitor(section, { intervalMs: 0 })).toThrow(McpConfigError);
      expect(() => new McpHealthMonitor(section, { timeoutMs: Number.NaN })).toThrow(
        'timeoutMs must be a positive number of milliseconds up to 2147483647, got NaN',
      );
      const monitor = new McpHealthMonitor(section);
      expect([monitor.intervalMs, monitor.timeoutMs]).toEqual([15_000, 5_000]);
    } finally {
      await section.disconnect();
    }
  });
});
