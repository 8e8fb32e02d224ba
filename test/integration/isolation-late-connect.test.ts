/**
 * A section connected when its session already holds private data (or
 * its store says so) starts its stdio server only inside the sandbox:
 * never once outside it, not even for the handshake. Found by an
 * attacker's review: the server started on the host first, read its
 * workspace and wrote to the host's loopback before it was restarted.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FileSessionStore,
  McpHealthMonitor,
  McpSectionIsolated,
  Session,
} from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { call, collect, jsonOf, probeSection } from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren, waitFor } from '../support/processes.js';

const support = sandboxSupport();
const HOST_NETNS = readlinkSync('/proc/self/ns/net');

let workspace: string;
let storeDir: string;
let before: number[];

beforeEach(async () => {
  before = childPids();
  workspace = await mkdtemp(path.join(tmpdir(), 'mcp-sections-late-ws-'));
  storeDir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-late-store-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(storeDir, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

/** The network namespaces the probe server started in, one per start. */
function starts(): string[] {
  return readFileSync(path.join(workspace, 'starts.log'), 'utf8').trim().split('\n');
}

/** A worker's session `sessionId`, kept in the test's file store, loaded. */
function storedSession(sessionId: string): Promise<Session> {
  return Session.open({ sessionId, store: new FileSessionStore({ directory: storeDir }) });
}

/** Another worker of session `sessionId` raises it to `secret`, in the store. */
async function escalateElsewhere(sessionId: string): Promise<void> {
  const other = await storedSession(sessionId);
  other.privateData.add('patients', 'secret');
  await other.flushPrivateData();
}

function loggedProbe(session: Session): ReturnType<typeof probeSection> {
  return probeSection(session, workspace, { env: { PROBE_START_LOG: 'starts.log' } });
}

describe.runIf(support.backend === 'bubblewrap')('a section connected after the escalation', () => {
  it('starts its server sandboxed only, when the session already holds private data', async () => {
    const session = new Session();
    session.privateData.add('patients', 'secret');
    const isolated = collect(session, McpSectionIsolated);
    const section = loggedProbe(session);
    try {
      await section.connect();
      const seen = jsonOf<{ netns: string | null }>(await call(section, 'probe_whoami'));
      expect(seen.netns).not.toBe(HOST_NETNS);
      expect(isolated).toHaveLength(1);
    } finally {
      await section.disconnect();
    }
    expect(starts()).toHaveLength(1);
    expect(starts()).not.toContain(HOST_NETNS);
  }, 60_000);

  it('starts no server outside the sandbox on a connect after a disconnect', async () => {
    const session = new Session();
    const first = loggedProbe(session);
    await first.connect();
    session.privateData.add('patients', 'secret');
    expect((await call(first, 'probe_whoami')).success).toBe(true);
    await first.disconnect();
    const second = loggedProbe(session);
    try {
      await second.connect();
      expect((await call(second, 'probe_whoami')).success).toBe(true);
    } finally {
      await second.disconnect();
    }
    // The first start was before the escalation: on the host, as allowed.
    const [beforeEscalation, ...after] = starts();
    expect(beforeEscalation).toBe(HOST_NETNS);
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContain(HOST_NETNS);
  }, 60_000);

  it.each([0, 1, 2, 3])(
    'starts its server sandboxed only when the session escalates %i microtasks after connect()',
    async (hops) => {
      const session = new Session();
      const section = loggedProbe(session);
      try {
        const connecting = section.connect();
        for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
        session.privateData.add('patients', 'secret');
        await connecting;
        const seen = jsonOf<{ netns: string | null }>(await call(section, 'probe_whoami'));
        expect(seen.netns).not.toBe(HOST_NETNS);
      } finally {
        await section.disconnect();
      }
      expect(starts()).not.toContain(HOST_NETNS);
    },
    60_000,
  );

  it('switches to the sandbox when the session escalates while its server starts, and connect() still succeeds', async () => {
    const session = new Session();
    const isolated = collect(session, McpSectionIsolated);
    const section = loggedProbe(session);
    try {
      const connecting = section.connect();
      // Its server has started on the host, public as the session still was.
      await waitFor(() => existsSync(path.join(workspace, 'starts.log')), {
        timeoutMs: 10_000,
        description: 'the start',
      });
      session.privateData.add('patients', 'secret');
      await connecting;
      const seen = jsonOf<{ netns: string | null }>(await call(section, 'probe_whoami'));
      expect(seen.netns).not.toBe(HOST_NETNS);
      expect(isolated).toHaveLength(1);
    } finally {
      await section.disconnect();
    }
    expect(starts().slice(1)).not.toContain(HOST_NETNS);
  }, 60_000);

  it('reads the store before it tries a server unavailable at connect again', async () => {
    const sessionId = 'worker-shared';
    const worker = await storedSession(sessionId);
    const section = probeSection(
      worker,
      workspace,
      { env: { PROBE_START_LOG: 'starts.log', PROBE_FAIL_FIRST_START: 'failed-once' } },
      { onConnectError: 'report' },
    );
    try {
      await section.connect();
      expect(section.unavailableServers.map((server) => server.name)).toEqual(['probe']);
      // Another worker of the session escalates it through the store.
      await escalateElsewhere(sessionId);
      expect(await section.reconnectUnavailable('probe')).toBe(true);
      expect(worker.privateData.sensitivity).toBe('secret');
    } finally {
      await section.disconnect();
    }
    // The first start failed on the host, before any escalation; the second is sandboxed.
    const [first, ...after] = starts();
    expect(first).toBe(HOST_NETNS);
    expect(after).toHaveLength(1);
    expect(after).not.toContain(HOST_NETNS);
  }, 60_000);

  it('reads the store before it restarts a crashed server, and starts it again only in its sandbox', async () => {
    const sessionId = 'worker-crash';
    const worker = await storedSession(sessionId);
    const started = childPids();
    const section = loggedProbe(worker);
    try {
      await section.connect();
      const server = childPids().filter((pid) => !started.includes(pid));
      expect(server.length).toBeGreaterThan(0);
      // Another worker escalates the session; this one has not read it yet.
      await escalateElsewhere(sessionId);
      expect(worker.privateData.sensitivity).toBe('public');
      for (const pid of server) process.kill(pid, 'SIGKILL');
      // The connection's own reconnection reads the store, and the route switches.
      await waitFor(() => starts().length >= 2, {
        timeoutMs: 20_000,
        description: 'the server started again',
      });
      expect(worker.privateData.sensitivity).toBe('secret');
      expect((await call(section, 'probe_whoami')).success).toBe(true);
    } finally {
      await section.disconnect();
    }
    const [first, ...after] = starts();
    expect(first).toBe(HOST_NETNS);
    expect(after.length).toBeGreaterThan(0);
    expect(after).not.toContain(HOST_NETNS);
  }, 60_000);

  it('reads the store before it starts anything: a resumed session is not connected unsandboxed', async () => {
    const sessionId = 'resumed-at-secret';
    const earlier = await storedSession(sessionId);
    earlier.privateData.add('patients', 'secret');
    await earlier.flushPrivateData();
    // Not awaited: the section waits for the session to load.
    const resumed = new Session({
      sessionId,
      store: new FileSessionStore({ directory: storeDir }),
    });
    const section = loggedProbe(resumed);
    try {
      await section.connect();
      expect(resumed.privateData.sensitivity).toBe('secret');
      expect((await call(section, 'probe_whoami')).success).toBe(true);
    } finally {
      await section.disconnect();
    }
    expect(starts()).not.toContain(HOST_NETNS);
  }, 60_000);
});

it('bounds the read of a store that does not answer before a crashed server is started again', async () => {
  const file = new FileSessionStore({ directory: storeDir });
  let hang = false;
  const never = new Promise<never>(() => undefined);
  // The same store, which stops answering on demand.
  const store = new Proxy(file, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown =>
        hang ? never : (value as (...given: unknown[]) => unknown).apply(target, args);
    },
  });
  const session = await Session.open({ sessionId: 'store-hangs', store });
  const started = childPids();
  // A sandboxing route: its level is read before its normal server starts again.
  const section = probeSection(
    session,
    workspace,
    { timeoutMs: 1_000, env: { PROBE_START_LOG: 'starts.log' } },
    { reconnect: { attempts: 1, baseDelayMs: 10 } },
  );
  const monitor = new McpHealthMonitor(section, { timeoutMs: 1_000 });
  try {
    await section.connect();
    hang = true;
    for (const pid of childPids().filter((pid) => !started.includes(pid))) {
      process.kill(pid, 'SIGKILL');
    }
    // Its own reconnection gives up at the route's timeout instead of waiting for ever.
    await waitFor(() => section.routes[0]?.active.state === 'failed', {
      timeoutMs: 10_000,
      description: 'the reconnection to give up',
    });
    const [status] = await monitor.check();
    expect(status?.healthy).toBe(false);
    expect(status?.lastError).toMatch(/within 1000 ms/);
    // Nothing was started while the level could not be read.
    expect(starts()).toHaveLength(1);
  } finally {
    monitor.stop();
    hang = false;
    await section.disconnect();
  }
}, 30_000);
