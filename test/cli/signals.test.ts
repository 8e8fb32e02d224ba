/**
 * Signals to the CLI process: stdio servers run in process groups of their
 * own (`setsid`), so a signal to the CLI's terminal never reaches them, and
 * the CLI must end them itself — on SIGHUP (the terminal closed) and
 * SIGQUIT as on SIGINT, and at once on a second signal, which exits without
 * the normal disconnect. Each server starts a `sleep` of its own: the whole
 * group must go, not only the server.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { canStartProcessGroup } from '../../src/mcp/process-tree.js';
import { waitFor } from '../support/processes.js';
import { processesWithEnv, startCliProcess, type StartedCli } from './helpers.js';
import { configDir, type ConfigDir } from './mcp-host.js';

const MARKER = 'MCP_SECTIONS_SIGNALS_TEST';
const SERVER = path.join(import.meta.dirname, 'group-server.mjs');

describe.runIf(canStartProcessGroup())('the CLI on a signal', () => {
  let dir: ConfigDir;
  let marker = '';
  let cli: StartedCli | undefined;

  beforeAll(async () => {
    dir = await configDir('cli-signals');
  });

  afterAll(async () => {
    await dir.remove();
  });

  afterEach(async () => {
    // Whatever a failed test left: the CLI, its servers and their `sleep`s.
    if (cli !== undefined && cli.child.exitCode === null) cli.child.kill('SIGKILL');
    await cli?.done;
    cli = undefined;
    for (const pid of processesWithEnv(MARKER, marker)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });

  /**
   * Starts `call` of the never-answering tool; resolves once the server and
   * its `sleep` run, with their pids as seen then. The pids come from the one
   * look that saw both: a second look can miss the `sleep` while its exec is
   * under way (its environment reads empty for that moment).
   */
  async function startHangingCall(
    mode: 'plain' | 'stubborn',
  ): Promise<{ readonly running: StartedCli; readonly pids: readonly number[] }> {
    marker = randomUUID();
    const config = await dir.write(`${marker}.json`, {
      group: { command: process.execPath, args: [SERVER, mode], env: { [MARKER]: marker } },
    });
    const started = startCliProcess(['call', '-q', config, 'group.wait', '{}']);
    cli = started;
    const pids = await waitFor(
      () => {
        const found = processesWithEnv(MARKER, marker);
        return found.length >= 2 && found.some((pid) => commandOf(pid) === 'sleep') && found;
      },
      { timeoutMs: 15_000, description: 'the server and its sleep' },
    );
    return { running: started, pids };
  }

  /** Every process of the server's group is gone (checked with signal 0 and /proc). */
  async function expectNoServerProcess(pids: readonly number[]): Promise<void> {
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await waitFor(
      () => processesWithEnv(MARKER, marker).length === 0 && !pids.some((pid) => alive(pid)),
      { timeoutMs: 3_000, description: 'every server process to be gone' },
    );
  }

  for (const signal of ['SIGHUP', 'SIGQUIT'] as const) {
    it(`on ${signal} disconnects like on SIGINT and exits 130, leaving no server process`, async () => {
      const { running, pids } = await startHangingCall('plain');
      running.child.kill(signal);
      const run = await running.done;
      expect(run.signal).toBeNull();
      expect(run.code).toBe(EXIT_CODES.interrupted);
      await expectNoServerProcess(pids);
    });
  }

  it('on a second SIGINT exits at once and kills the server groups it started', async () => {
    // The server ignores SIGTERM: the first SIGINT's disconnect takes seconds.
    const { running, pids } = await startHangingCall('stubborn');
    running.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 300));
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.code).toBe(EXIT_CODES.interrupted);
    await expectNoServerProcess(pids);
  });
});

/** Whether `pid` runs: it takes signal 0 and is no zombie waiting for a new parent to reap it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** The command name of `pid` (`/proc/<pid>/comm`), or undefined once it is gone. */
function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
