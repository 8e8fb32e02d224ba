/**
 * The process tree of a stdio server: its descendants are found through
 * /proc, and endProcesses ends them — SIGTERM first, SIGKILL for one that
 * ignores it — whether they are listed or only members of its group.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { canStartProcessGroup, descendants, endProcesses } from '../../src/mcp/process-tree.js';
import { isAlive, waitFor } from '../support/processes.js';

const onLinux = process.platform === 'linux';

/** A node process that starts `children` grandchildren (each ignoring SIGTERM when told) and waits. */
function parentOf(children: number, ignoreTerm: boolean, detached: boolean) {
  const child = `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''} setInterval(() => {}, 1000);`;
  const script = `
    const { spawn } = require('node:child_process');
    for (let i = 0; i < ${children}; i += 1) spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: 'ignore' });
    setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore', detached });
}

describe.skipIf(!onLinux)('process tree', () => {
  it('finds descendants and ends them, SIGKILL for one that ignores SIGTERM', async () => {
    const parent = parentOf(2, true, false);
    const pid = parent.pid!;
    const found = await waitFor(
      () => (descendants(pid).length === 2 ? descendants(pid) : undefined),
      {
        timeoutMs: 10_000,
        description: 'two grandchildren',
      },
    );
    await endProcesses([pid, ...found], undefined, 200);
    for (const each of [pid, ...found]) expect(isAlive(each)).toBe(false);
  });

  it('ends a whole process group, what left its parent included', async () => {
    expect(canStartProcessGroup()).toBe(true);
    const leader = parentOf(1, false, true);
    const pid = leader.pid!;
    const [grandchild] = await waitFor(
      () => (descendants(pid).length === 1 ? descendants(pid) : undefined),
      { timeoutMs: 10_000, description: 'a grandchild' },
    );
    await endProcesses([], pid, 500);
    expect(isAlive(pid)).toBe(false);
    expect(isAlive(grandchild!)).toBe(false);
  });

  it('returns at once when nothing is left, and never throws for unknown pids', async () => {
    await expect(endProcesses([2 ** 22 + 7], 2 ** 22 + 9, 50)).resolves.toBeUndefined();
  });
});
