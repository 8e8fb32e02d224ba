import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/core/atomic-file.js';
import { FileLockTimeoutError, withFileLock } from '../../src/core/file-lock.js';

let dir: string;
let lockPath: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-file-lock-'));
  lockPath = path.join(dir, 'state.json.lock');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const options = { timeoutMs: 2_000, staleMs: 30_000 };

/** Spawns a node child running `args`; resolves once it printed `line`. */
async function spawnUntil(args: readonly string[], line: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(line)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before "${line}"`)));
  });
  return child;
}

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    child.kill('SIGCONT');
  }
});

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('withFileLock', () => {
  it('runs callers of one process one at a time, in the order they asked', async () => {
    const entered: number[] = [];
    let inside = 0;
    let most = 0;
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        withFileLock(lockPath, options, async () => {
          inside += 1;
          most = Math.max(most, inside);
          entered.push(i);
          await sleep(1);
          inside -= 1;
        }),
      ),
    );
    expect(entered).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not count the wait behind callers of this process against timeoutMs', async () => {
    const holder = gate();
    const first = withFileLock(lockPath, options, () => holder.opened);
    const second = withFileLock(lockPath, { timeoutMs: 1, staleMs: 30_000 }, () =>
      Promise.resolve('second ran'),
    );
    await sleep(20);
    holder.open();
    await first;
    expect(await second).toBe('second ran');
  });

  it('stops waiting in the queue when its signal aborts, without calling fn', async () => {
    const holder = gate();
    const first = withFileLock(lockPath, options, () => holder.opened);
    const controller = new AbortController();
    let called = false;
    const aborted = withFileLock(lockPath, { ...options, signal: controller.signal }, () => {
      called = true;
      return Promise.resolve();
    });
    const third = withFileLock(lockPath, options, () => Promise.resolve('third ran'));
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    holder.open();
    await first;
    expect(await third).toBe('third ran');
    expect(called).toBe(false);
  });

  it('gives up with FileLockTimeoutError while a live process holds the lock', async () => {
    const owner = { pid: process.pid, host: hostname(), token: 'held', createdAt: Date.now() };
    await writeFile(lockPath, JSON.stringify(owner));
    const error: unknown = await withFileLock(lockPath, { timeoutMs: 30, staleMs: 30_000 }, () =>
      Promise.resolve(),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileLockTimeoutError);
    expect(error).toMatchObject({
      code: 'file-lock-timeout',
      lockPath,
      message: `could not lock ${lockPath} within 30 ms; process ${process.pid} holds it`,
    });
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toEqual(owner);
  });

  it('releases the lock when fn throws', async () => {
    await expect(
      withFileLock(lockPath, options, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('withFileLock and a stale lock', () => {
  const stalled = { timeoutMs: 1_000, staleMs: 50 };

  it('never breaks the lock of a running process of this host, however long it holds it', async () => {
    const holder = await spawnUntil(
      ['--import', 'tsx', path.join(import.meta.dirname, 'lock-holder.ts'), lockPath],
      'held',
    );
    const error: unknown = await withFileLock(lockPath, stalled, () => Promise.resolve()).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FileLockTimeoutError);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: holder.pid });
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'breaks at once a lock whose pid now names a process that started later',
    async () => {
      const other = await spawnUntil(
        ['-e', 'console.log("up"); setInterval(() => {}, 1000)'],
        'up',
      );
      const reused = {
        pid: other.pid,
        host: hostname(),
        token: 'reused',
        createdAt: Date.now(),
        start: 'an-earlier-boot:1',
      };
      await writeFile(lockPath, JSON.stringify(reused));
      const ran = await withFileLock(lockPath, { timeoutMs: 1_000, staleMs: 60_000 }, () =>
        Promise.resolve('ran'),
      );
      expect(ran).toBe('ran');
    },
  );

  it('judges a lock from another host by its age here, not by the clock of that host', async () => {
    const ahead = { pid: 1, host: 'elsewhere', token: 'ahead', createdAt: Date.now() + 3_600_000 };
    await writeFile(lockPath, JSON.stringify(ahead));
    const ran = await withFileLock(lockPath, { timeoutMs: 5_000, staleMs: 50 }, () =>
      Promise.resolve('ran'),
    );
    expect(ran).toBe('ran');
  });

  it('runs fn again when its lock was broken under it, and nothing of that run lands', async () => {
    const file = path.join(dir, 'state.json');
    const runs: number[] = [];
    await withFileLock(lockPath, options, async (held) => {
      runs.push(runs.length + 1);
      // What a process on another host does when it takes this lock for stale.
      if (runs.length === 1) await unlink(lockPath);
      await writeFileAtomic(file, `run ${runs.length}`, 0o600, {
        beforeRename: () => held.assertHeld(),
      });
    });
    expect(runs).toEqual([1, 2]);
    expect(await readFile(file, 'utf8')).toBe('run 2');
    expect(await readdir(dir)).toEqual(['state.json']);
  });
});
