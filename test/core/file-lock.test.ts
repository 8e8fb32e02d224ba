import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
