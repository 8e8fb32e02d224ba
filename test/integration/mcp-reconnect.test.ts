/**
 * A stdio server killed mid-session: reconnected when it can be restarted,
 * reported as a connection error (with nothing left running) when it cannot.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  McpServerConnected,
  McpServerDisconnected,
  McpServerUnavailable,
  Session,
  invokeTool,
} from '../../src/index.js';
import {
  everythingStdio,
  onceServerPath,
  recordEvents,
  tempDir,
  toolNamed,
} from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const FAST_RECONNECT = { attempts: 3, baseDelayMs: 50 } as const;

function serverPid(section: McpIntegrationSection): number {
  const pid = section.routes[0]?.active.pid;
  if (pid === null || pid === undefined) throw new Error('the stdio server has no pid');
  return pid;
}

describe('a stdio server killed mid-session', () => {
  it('with reconnection off, is reported lost for that reason', async () => {
    const before = childPids();
    const session = new Session();
    const events = recordEvents(session);
    const section = new McpIntegrationSection({
      servers: [{ name: 'everything', transport: everythingStdio() }],
      session,
      reconnect: { attempts: 0, baseDelayMs: 0 },
    });
    try {
      await section.connect();
      process.kill(serverPid(section), 'SIGKILL');
      await waitFor(() => events.of(McpServerUnavailable).length > 0, {
        timeoutMs: 15_000,
        description: 'the server to be given up',
      });
      expect(events.of(McpServerUnavailable)[0]?.reason).toBe(
        'the connection was lost, and reconnection is off (reconnect.attempts is 0)',
      );
    } finally {
      await section.disconnect();
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('is reconnected: events say so and a later call succeeds', async () => {
    const before = childPids();
    const session = new Session();
    const events = recordEvents(session);
    {
      await using section = new McpIntegrationSection({
        servers: [{ name: 'everything', transport: everythingStdio() }],
        session,
        reconnect: FAST_RECONNECT,
      });
      await section.connect();
      const echo = toolNamed(section, 'everything_echo');
      expect(await invokeTool(echo, { message: 'one' }, { session })).toMatchObject({
        success: true,
      });

      const pid = serverPid(section);
      expect(childPids().filter((child) => !before.includes(child))).toContain(pid);
      process.kill(pid, 'SIGKILL');

      await waitFor(() => events.of(McpServerConnected).some((event) => event.reconnect), {
        timeoutMs: 15_000,
        description: 'the server to be reconnected',
      });
      expect(isAlive(pid)).toBe(false);
      expect(events.of(McpServerDisconnected)).toEqual([
        expect.objectContaining({ serverName: 'everything', expected: false }),
      ]);
      expect(events.of(McpServerConnected).map((event) => event.reconnect)).toEqual([false, true]);
      const newPid = serverPid(section);
      expect(newPid).not.toBe(pid);

      // The same bridged tool works on the new process.
      expect(await invokeTool(echo, { message: 'two' }, { session })).toMatchObject({
        success: true,
        message: 'Echo: two',
      });
      expect(section.connected).toBe(true);
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('that never comes back: calls fail with McpConnectionError and no child remains', async () => {
    const before = childPids();
    await using dir = await tempDir('mcp-once');
    const marker = path.join(dir.path, 'started');
    const session = new Session();
    const events = recordEvents(session);
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'once',
          transport: { type: 'stdio', command: process.execPath, args: [onceServerPath] },
          env: { ONCE_MARKER: marker },
        },
      ],
      session,
      reconnect: FAST_RECONNECT,
      // A retry would only try three more restarts.
      retry: { enabled: false },
    });
    try {
      await section.connect();
      const ping = toolNamed(section, 'once_ping');
      expect(await invokeTool(ping, {}, { session })).toMatchObject({
        success: true,
        message: 'pong',
      });
      expect(existsSync(marker)).toBe(true);

      process.kill(serverPid(section), 'SIGKILL');
      await waitFor(() => events.of(McpServerUnavailable).length > 0, {
        timeoutMs: 15_000,
        description: 'the reconnection attempts to give up',
      });
      const [unavailable] = events.of(McpServerUnavailable);
      expect(unavailable).toMatchObject({ serverName: 'once', transport: 'stdio' });
      expect(unavailable?.reason).toMatch(/^gave up after 3 reconnection attempts: /);
      expect(events.of(McpServerConnected).filter((event) => event.reconnect)).toEqual([]);
      // Every restart attempt exited at once: nothing of this test runs any more.
      expect(await expectNoNewChildren(before)).toEqual([]);

      const result = await invokeTool(ping, {}, { session });
      expect(result.success).toBe(false);
      // McpConnectionError's message: server, transport and why.
      expect(result.message).toMatch(/^server "once" \(stdio\): the server is unavailable: /);
      expect(result.message).toContain('gave up after 3 reconnection attempts');
      expect(result.message).toContain('refusing to start twice');
      expect(section.connected).toBe(false);
    } finally {
      await section.disconnect();
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});
