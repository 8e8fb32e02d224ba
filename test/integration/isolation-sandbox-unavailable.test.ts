/**
 * The fail-closed branch of the sandbox, made real on any host: with
 * `MCP_SECTIONS_BWRAP` naming a program that does not exist, bubblewrap
 * cannot run, and without `unshareFallback` the server's calls are refused.
 * With `unshareFallback: true` the weak `unshare --net` sandbox is used.
 * (Vitest isolates test files, so the probe's cached answers and the
 * variable do not leak into other files.)
 */
import { mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import {
  McpHealthMonitor,
  McpIsolationFailed,
  McpSectionIsolated,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { call, collect, jsonOf, probeSection } from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

// Set before the tests are collected: `runIf` below probes with it.
const emptyBin = mkdtempSync(path.join(tmpdir(), 'mcp-sections-no-bwrap-'));
process.env.MCP_SECTIONS_BWRAP = path.join(emptyBin, 'bwrap');

afterAll(async () => {
  delete process.env.MCP_SECTIONS_BWRAP;
  await rm(emptyBin, { recursive: true, force: true });
});

it('fails closed, naming bubblewrap and how to get it, when bubblewrap cannot run', async () => {
  const support = sandboxSupport();
  expect(support.available).toBe(false);
  expect(support.reason).toMatch(
    /^bubblewrap \(.*\/bwrap\) cannot sandbox a stdio server here: .*ENOENT/,
  );
  expect(support.reason).toContain('apt-get install bubblewrap');
  expect(support.reason).toContain('isolation.unshareFallback');

  const before = childPids();
  const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
  const session = new Session();
  const failed = collect(session, McpIsolationFailed);
  const isolated = collect(session, McpSectionIsolated);
  const invoked = collect(session, ToolInvoked);
  const section = probeSection(session, workdir);
  try {
    await section.connect();
    expect(jsonOf(await call(section, 'probe_write', { path: 'a.txt', content: 'x' }))).toEqual({
      written: 'a.txt',
    });

    session.privateData.add('x');

    const result = await call(section, 'probe_read', { path: 'a.txt' });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      `calls to server "probe" are refused (fail closed): this host cannot sandbox a stdio server: ${support.reason}`,
    );
    expect(invoked.at(-1)).toMatchObject({ toolName: 'probe_read', result });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ sectionKey: 'mcp.probe', serverName: 'probe' });
    expect(failed[0]?.reason).toContain('this host cannot sandbox a stdio server');
    expect(isolated).toEqual([]);
    expect(section.isolatedServers).toEqual(['probe']);
  } finally {
    await section.disconnect();
    await rm(workdir, { recursive: true, force: true });
  }
  expect(await expectNoNewChildren(before)).toEqual([]);
});

/** A connected probe section, its monitor and its server's pid: what one of the tests below acts on. */
interface Probe {
  readonly session: Session;
  readonly section: ReturnType<typeof probeSection>;
  readonly monitor: McpHealthMonitor;
  readonly pid: number;
  /** The processes started since the probe was made that are still running. */
  newChildren(): number[];
}

/**
 * Runs `test` on a probe section whose reconnections come a few
 * milliseconds apart (their whole window is short to wait out), then
 * closes everything and checks that no process is left.
 */
async function withProbe(test: (probe: Probe) => Promise<void>): Promise<void> {
  const before = childPids();
  const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
  const session = new Session();
  const reconnect = { attempts: 3, baseDelayMs: 10, maxDelayMs: 30 };
  const section = probeSection(session, workdir, {}, { reconnect });
  const monitor = new McpHealthMonitor(section);
  try {
    await section.connect();
    const { pid } = jsonOf<{ pid: number }>(await call(section, 'probe_whoami'));
    expect(isAlive(pid)).toBe(true);
    const newChildren = (): number[] => childPids().filter((child) => !before.includes(child));
    await test({ session, section, monitor, pid, newChildren });
  } finally {
    monitor.stop();
    await section.disconnect();
    await rm(workdir, { recursive: true, force: true });
  }
  expect(await expectNoNewChildren(before)).toEqual([]);
}

/** Past every try of the probe's reconnection (3, at most 30 ms apart, with jitter). */
const RECONNECT_WINDOW_MS = 300;

it('never runs the server unsandboxed again: stopped at the switch, not restarted after a crash or by a health check', async () => {
  await withProbe(async ({ session, section, monitor, pid, newChildren }) => {
    // The server crashes; its connection would start it again a few milliseconds
    // later, unless the switch, which begins now, stops it first.
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), { timeoutMs: 5_000, description: `pid ${pid} to exit` });
    session.privateData.add('x');
    const refused = await call(section, 'probe_whoami');
    expect(refused.message).toMatch(/^calls to server "probe" are refused \(fail closed\)/);
    // A process the reconnection started would be running now.
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_WINDOW_MS));
    expect(newChildren()).toEqual([]);
    const [health] = await monitor.check();
    expect(health).toMatchObject({ name: 'probe', healthy: false });
    expect(health?.lastError).toMatch(
      /^calls are refused \(fail closed\): this host cannot sandbox/,
    );
    expect(newChildren()).toEqual([]);
  });
});

it('stops the unsandboxed server at the switch when no call is in flight', async () => {
  await withProbe(async ({ session, section, pid, newChildren }) => {
    session.privateData.add('x');
    expect((await call(section, 'probe_whoami')).success).toBe(false);
    await waitFor(() => !isAlive(pid), { timeoutMs: 5_000, description: `pid ${pid} to exit` });
    expect(newChildren()).toEqual([]);
  });
});

it('never runs the server unsandboxed after the escalation, whatever the order of a crash, calls and health checks', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), (s) =>
      withProbe(async ({ session, section, monitor, pid, newChildren }) => {
        let escalated = false;
        const tasks = [
          s.schedule(Promise.resolve('escalate')).then(() => {
            session.privateData.add('x');
            escalated = true;
          }),
          s.schedule(Promise.resolve('crash')).then(() => {
            if (isAlive(pid)) process.kill(pid, 'SIGKILL');
          }),
          s.schedule(Promise.resolve('check')).then(() => monitor.check()),
          s.schedule(Promise.resolve('call')).then(async () => {
            const startedAfter = escalated;
            const result = await call(section, 'probe_whoami');
            // A call that starts once the session holds private data is refused.
            if (startedAfter) expect(result.success).toBe(false);
          }),
        ];
        await s.waitAll();
        await Promise.all(tasks);
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_WINDOW_MS));
        const [health] = await monitor.check();
        expect(health?.healthy).toBe(false);
        expect(health?.lastError).toMatch(/^calls are refused \(fail closed\)/);
        expect(newChildren()).toEqual([]);
      }),
    ),
    { numRuns: 8 },
  );
}, 60_000);

it.runIf(sandboxSupport({ allowUnshare: true }).backend === 'unshare')(
  'uses the network-only unshare sandbox only when the config allows it',
  async () => {
    const before = childPids();
    const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
    const session = new Session();
    const isolated = collect(session, McpSectionIsolated);
    const section = probeSection(session, workdir, { isolation: { unshareFallback: true } });
    try {
      await section.connect();
      const first = jsonOf<{ netns: string | null }>(await call(section, 'probe_whoami'));
      session.privateData.add('x');
      const second = jsonOf<{ netns: string | null }>(await call(section, 'probe_whoami'));
      expect(second.netns).not.toBe(first.netns);
      expect(isolated).toHaveLength(1);
      const home = jsonOf<{ home: string }>(await call(section, 'probe_home')).home;
      expect(home).toMatch(/mcp-sections-probe-home-/);
    } finally {
      await section.disconnect();
      await rm(workdir, { recursive: true, force: true });
    }
    expect(await expectNoNewChildren(before)).toEqual([]);
  },
);
