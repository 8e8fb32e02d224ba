/**
 * A stdio server configured with `isolation: {}` (no isolated transport) is
 * restarted under bubblewrap (no network, a HOME of its own, the same
 * working directory), once the session holds private data.
 * On a host that cannot do that, its calls fail closed instead.
 */
import { readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { McpIntegrationSection } from '../../src/index.js';
import {
  McpHealthMonitor,
  McpIsolationFailed,
  McpSectionIsolated,
  McpServerConnected,
  McpServerHealthChanged,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { SANDBOX_HOME } from '../../src/isolation/bubblewrap.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import {
  call,
  collect,
  type CountingListener,
  countingListener,
  jsonOf,
  probeSection,
} from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const support = sandboxSupport();

interface ProbeOutcome {
  readonly connected: boolean;
  readonly code?: string;
}

interface WhoAmI {
  readonly pid: number;
  readonly netns: string | null;
  readonly cwd: string;
}

describe('sandboxed stdio server', () => {
  let before: number[];
  let workdir: string;
  let listener: CountingListener;
  let session: Session;
  let section: McpIntegrationSection;

  beforeEach(async () => {
    before = childPids();
    workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
    listener = await countingListener({ port: 0, host: '127.0.0.1' });
    session = new Session({ sessionId: 'sandbox-session' });
    section = probeSection(session, workdir, { timeoutMs: 15_000 });
    await section.connect();
  });

  afterEach(async () => {
    await section.disconnect();
    await listener.close();
    await rm(workdir, { recursive: true, force: true });
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  const probe = async (): Promise<ProbeOutcome> =>
    jsonOf<ProbeOutcome>(
      await call(section, 'probe_probe', { host: '127.0.0.1', port: listener.address }),
    );

  it.runIf(support.available)(
    'a health check made while the switch runs waits for it, and finds the sandboxed server healthy',
    async () => {
      const monitor = new McpHealthMonitor(section, { timeoutMs: 15_000 });
      const changes = collect(session, McpServerHealthChanged);
      try {
        expect((await monitor.check())[0]).toMatchObject({ healthy: true });
        session.privateData.add('x'); // the switch starts: the normal process is stopped
        // It pinged the stopped normal connection, tried to open it again (refused:
        // nothing unsandboxed starts) and said the server was unhealthy.
        expect((await monitor.check())[0]).toMatchObject({ name: 'probe', healthy: true });
        expect(changes.filter((change) => !change.healthy)).toEqual([]);
        expect(jsonOf<WhoAmI>(await call(section, 'probe_whoami')).netns).not.toBe(
          readlinkSync('/proc/self/ns/net'),
        );
      } finally {
        monitor.stop();
      }
    },
  );

  it.runIf(support.available)(
    'restarts the server without network and with a fresh HOME once private data arrives',
    async () => {
      const isolated = collect(session, McpSectionIsolated);
      const connected = collect(session, McpServerConnected);

      // Before: the normal process reaches the listener and shares our namespace.
      expect(await probe()).toEqual({ connected: true });
      // The probe's connect can resolve before this side's 'connection' event runs.
      await waitFor(() => listener.accepted() === 1, {
        timeoutMs: 5_000,
        description: 'the listener to count the accepted connection',
      });
      const homeBefore = jsonOf<{ home: string | null }>(await call(section, 'probe_home')).home;
      const first = jsonOf<WhoAmI>(await call(section, 'probe_whoami'));
      expect(first.netns).toBe(readlinkSync('/proc/self/ns/net'));
      expect(first.cwd).toBe(workdir);
      expect(
        (await call(section, 'probe_write', { path: 'note.txt', content: 'kept' })).success,
      ).toBe(true);

      session.privateData.add('x');

      // After: a new process, in another network namespace, that cannot connect.
      const outcome = await probe();
      expect(outcome.connected).toBe(false);
      expect(outcome.code).toMatch(/^E[A-Z]+$/);
      expect(listener.accepted()).toBe(1);

      const second = jsonOf<WhoAmI>(await call(section, 'probe_whoami'));
      expect(second.pid).not.toBe(first.pid);
      expect(second.netns).not.toBeNull();
      expect(second.netns).not.toBe(first.netns);
      expect(second.cwd).toBe(workdir);
      await waitFor(() => !isAlive(first.pid), {
        timeoutMs: 5_000,
        description: `the unsandboxed server (pid ${first.pid}) to exit`,
      });

      const homeAfter = jsonOf<{ home: string | null }>(await call(section, 'probe_home')).home;
      expect(homeAfter).not.toBe(homeBefore);
      // A home inside the sandbox only (a tmpfs), not a host directory.
      expect(homeAfter).toBe(SANDBOX_HOME);

      // The working directory was kept: the file written before is still there.
      expect(jsonOf(await call(section, 'probe_read', { path: 'note.txt' }))).toEqual({
        content: 'kept',
      });
      expect(await readFile(path.join(workdir, 'note.txt'), 'utf8')).toBe('kept');

      expect(isolated).toHaveLength(1);
      expect(isolated[0]).toMatchObject({
        sessionId: 'sandbox-session',
        sectionKey: 'mcp.probe',
        serverName: 'probe',
        mode: 'sandbox',
        sensitivity: 'confidential',
      });
      expect(connected.map((event) => event.endpoint)).toEqual(['isolated']);
      expect(section.isolated).toBe(true);
      expect(section.isolatedServers).toEqual(['probe']);
    },
  );

  it.runIf(support.available)('leaves no process behind when disconnected mid-switch', async () => {
    const isolated = collect(session, McpSectionIsolated);
    session.privateData.add('x');
    // The restart has started (the route switched synchronously); close before it is done.
    expect(section.isolatedServers).toEqual(['probe']);
    await section.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
    expect(isolated).toHaveLength(0);
  });

  it.skipIf(support.available)(
    'fails closed, saying why, when this host cannot sandbox',
    async () => {
      const failed = collect(session, McpIsolationFailed);
      const invoked = collect(session, ToolInvoked);
      expect(await probe()).toEqual({ connected: true });
      await waitFor(() => listener.accepted() === 1, {
        timeoutMs: 5_000,
        description: 'the listener to count the accepted connection',
      });

      session.privateData.add('x');

      const result = await call(section, 'probe_probe', {
        host: '127.0.0.1',
        port: listener.address,
      });
      expect(result.success).toBe(false);
      expect(result.message).toContain('fail closed');
      expect(result.message).toContain('this host cannot sandbox a stdio server');
      expect(result.message).toContain(support.reason ?? '');
      expect(listener.accepted()).toBe(1);
      expect(failed).toHaveLength(1);
      expect(failed[0]?.reason).toContain('cannot sandbox');
      expect(invoked.at(-1)?.result.success).toBe(false);
    },
  );
});

it.runIf(support.available)(
  'brings back a server unavailable at connect in its sandbox once the session holds private data, never unsandboxed',
  async () => {
    const before = childPids();
    const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
    const session = new Session();
    const isolated = collect(session, McpSectionIsolated);
    const section = probeSection(
      session,
      workdir,
      // Exits at its first start, serves from the second on.
      { env: { PROBE_FAIL_FIRST_START: 'started-once' }, timeoutMs: 15_000 },
      { onConnectError: 'report' },
    );
    const monitor = new McpHealthMonitor(section, { timeoutMs: 15_000 });
    try {
      await section.connect();
      expect(section.unavailableServers.map(({ name }) => name)).toEqual(['probe']);

      session.privateData.add('x');
      await waitFor(() => isolated.length === 1, {
        timeoutMs: 15_000,
        description: 'the sandboxed server to start',
      });
      const [health] = await monitor.check();
      expect(health).toMatchObject({ name: 'probe', healthy: true });
      expect(section.unavailableServers).toEqual([]);

      const served = jsonOf<WhoAmI>(await call(section, 'probe_whoami'));
      expect(served.netns).not.toBeNull();
      expect(served.netns).not.toBe(readlinkSync('/proc/self/ns/net'));
    } finally {
      monitor.stop();
      await section.disconnect();
      await rm(workdir, { recursive: true, force: true });
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  },
);
