/**
 * No process the library started outlives it: not a server that never
 * answered `initialize`, not what a server spawned (even a helper that
 * ignores SIGTERM), after `disconnect()`, a failed `connect()`, or the CLI.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, Session } from '../../src/index.js';
import { startCliProcess } from '../cli/helpers.js';
import { call } from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const serverPath = fileURLToPath(
  new URL('../fixtures/resilience/spawning-server.mjs', import.meta.url),
);

let dir: string;
let pidFile: string;
let before: number[];

beforeEach(async () => {
  before = childPids();
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-hygiene-'));
  pidFile = path.join(dir, 'helper.pid');
});

afterEach(async () => {
  // Belt and braces: a failing test must not leave the helper running.
  const helper = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
  if (helper > 0 && isAlive(helper)) process.kill(helper, 'SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

async function helperPid(): Promise<number> {
  await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).length > 0, {
    timeoutMs: 10_000,
    description: 'the server to start its helper',
  });
  return Number(await readFile(pidFile, 'utf8'));
}

function section(session: Session, silent: boolean): McpIntegrationSection {
  return new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'spawning',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [serverPath, pidFile, ...(silent ? ['silent'] : [])],
        },
      },
    ],
  });
}

describe('process hygiene', () => {
  it('ends a server and the helper it spawned on disconnect()', async () => {
    const session = new Session();
    const mcp = section(session, false);
    await mcp.connect();
    const serverPid = Number((await call(mcp, 'spawning_pid')).message);
    const helper = await helperPid();
    expect(isAlive(helper)).toBe(true);
    await mcp.disconnect();
    expect(isAlive(serverPid)).toBe(false);
    expect(isAlive(helper)).toBe(false);
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('ends a server that never answers initialize, and its helper, when connect() fails', async () => {
    const session = new Session();
    const mcp = section(session, true);
    const failed = mcp.connect({ signal: AbortSignal.timeout(1_500) });
    const helper = await helperPid();
    await expect(failed).rejects.toThrow();
    // Nothing of it is left, even before disconnect().
    expect(isAlive(helper)).toBe(false);
    expect(await expectNoNewChildren(before)).toEqual([]);
    await mcp.disconnect();
  });

  it('leaves nothing when mcp-sections inspect is interrupted while a server never answers', async () => {
    const config = path.join(dir, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          silent: { command: process.execPath, args: [serverPath, pidFile, 'silent'] },
        },
      }),
    );
    const cli = startCliProcess(['inspect', config]);
    const helper = await helperPid();
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).not.toBe(0);
    await waitFor(() => !isAlive(helper), {
      timeoutMs: 5_000,
      description: `the helper (pid ${helper}) to be ended`,
    });
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});
