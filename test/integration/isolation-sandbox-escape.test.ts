/**
 * Two ways out of the sandbox that its mounts and namespaces did not close
 * (found by an attacker's review), tried on this host as root:
 * - a file descriptor the agent inherited (not close-on-exec) passed into
 *   the sandbox, where the server wrote through it;
 * - symbolic links the sandboxed server left in its workspace chose what
 *   its next start mounted (a file of the host, at `secret`).
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpServerConnected, Session } from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import {
  call,
  collect,
  jsonOf,
  netProbeServerPath,
  probeSection,
} from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren, waitFor } from '../support/processes.js';

const support = sandboxSupport();
const agentPath = fileURLToPath(
  new URL('../fixtures/isolation/inherited-fd-agent.ts', import.meta.url),
);

let workspace: string;
let hostDir: string;
let before: number[];

beforeEach(async () => {
  before = childPids();
  workspace = await mkdtemp(path.join(tmpdir(), 'mcp-sections-escape-ws-'));
  hostDir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-escape-host-'));
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(hostDir, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

/** The probe server with `settings.json` of its workspace on its command line. */
function settingsProbe(session: Session): ReturnType<typeof probeSection> {
  return probeSection(session, workspace, {
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [netProbeServerPath, 'settings.json'],
      cwd: workspace,
    },
  });
}

/**
 * Runs the agent fixture with descriptor 20 open on a host file, not
 * close-on-exec, and returns what its sandboxed server found and whether
 * the file was written.
 */
async function inheritedDescriptorRun(
  backend: 'bubblewrap' | 'unshare',
): Promise<{ agentInherited: boolean; sandboxed: unknown[]; written: string }> {
  const hostFile = path.join(hostDir, 'written-by-the-sandbox.log');
  await writeFile(hostFile, '');
  const inherited = openSync(hostFile, 'a');
  let output = '';
  try {
    // Descriptor 20: past those Node marks close-on-exec at its start.
    const stdio: StdioOptions = [
      'ignore',
      'pipe',
      'inherit',
      ...Array<'ignore'>(17).fill('ignore'),
      inherited,
    ];
    const agent = spawn(
      process.execPath,
      ['--import', 'tsx', agentPath, workspace, ...(backend === 'unshare' ? ['unshare'] : [])],
      { stdio },
    );
    agent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => agent.on('exit', resolve));
    expect(code).toBe(0);
  } finally {
    closeSync(inherited);
  }
  const report = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    agentInherited: boolean;
    sandboxed: unknown[];
  };
  return { ...report, written: readFileSync(hostFile, 'utf8') };
}

describe.runIf(support.backend === 'bubblewrap')('the sandbox, tried through its edges', () => {
  it('passes no descriptor the agent inherited to the sandboxed server', async () => {
    const report = await inheritedDescriptorRun('bubblewrap');
    // The agent did hold it, open to its children: the case is real.
    expect(report.agentInherited).toBe(true);
    expect(report.sandboxed).toEqual([]);
    expect(report.written).toBe('');
  }, 60_000);

  it("mounts nothing a link in the workspace leads to, after the server's restart", async () => {
    const hostSecret = path.join(hostDir, 'credentials');
    await writeFile(hostSecret, 'aws_secret_access_key=host-only');
    await writeFile(path.join(workspace, 'settings.json'), '{}');
    const session = new Session();
    const section = settingsProbe(session);
    const connected = collect(session, McpServerConnected);
    await section.connect();
    try {
      session.privateData.add('customer-records', 'secret');
      expect(jsonOf(await call(section, 'probe_try-read', { path: hostSecret }))).toEqual({
        code: 'ENOENT',
      });
      // The sandboxed server points its own argument at the host's file, and crashes.
      await call(section, 'probe_link', { path: 'settings.json', target: hostSecret });
      const starts = connected.length;
      await call(section, 'probe_exit');
      await waitFor(() => connected.length > starts, {
        timeoutMs: 20_000,
        description: 'the sandboxed server started again',
      });
      expect(jsonOf(await call(section, 'probe_try-read', { path: hostSecret }))).toEqual({
        code: 'ENOENT',
      });
    } finally {
      await section.disconnect();
    }
  }, 60_000);

  it('mounts nothing a link left in the workspace leads to, at the first sandboxed start', async () => {
    const hostSecret = path.join(hostDir, 'credentials');
    await writeFile(hostSecret, 'aws_secret_access_key=host-only');
    // Left by an earlier run: the workspace outlives a session.
    await symlink(hostSecret, path.join(workspace, 'settings.json'));
    const session = new Session();
    session.privateData.add('customer-records', 'secret');
    const section = settingsProbe(session);
    await section.connect();
    try {
      expect(jsonOf(await call(section, 'probe_try-read', { path: hostSecret }))).toEqual({
        code: 'ENOENT',
      });
      expect(jsonOf(await call(section, 'probe_try-read', { path: 'settings.json' }))).toEqual({
        code: 'ENOENT',
      });
    } finally {
      await section.disconnect();
    }
  }, 60_000);
});

it.runIf(sandboxSupport({ allowUnshare: true }).backend !== undefined)(
  'passes no inherited descriptor through the network-only unshare sandbox either',
  async () => {
    // A connected socket passed on would be network no namespace takes away.
    const report = await inheritedDescriptorRun('unshare');
    expect(report.agentInherited).toBe(true);
    expect(report.sandboxed).toEqual([]);
    expect(report.written).toBe('');
  },
  60_000,
);
