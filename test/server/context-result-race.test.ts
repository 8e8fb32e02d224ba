/**
 * `contextResult` against a `/workspace/results` swapped for a symlink to
 * another user's workspace between the toolkit's checks and the creation of
 * the file. The swap is made deterministic by running it from inside the
 * file-system call that creates the file (whichever the code uses).
 */
import type * as FsPromises from 'node:fs/promises';
import { mkdir, readdir, rename, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextResult, WorkspacePathError, type WorkspaceScope } from '../../src/server/index.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

/** Run once, just before the next result file is created. */
let beforeCreate: (() => Promise<void>) | undefined;
/** Run once, just after the results directory is made (its check is done by then). */
let afterMkdir: (() => Promise<void>) | undefined;

async function runHook(target: unknown): Promise<void> {
  if (typeof target !== 'string' || !path.basename(target).startsWith('result_')) return;
  const hook = beforeCreate;
  beforeCreate = undefined;
  await hook?.();
}

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      await runHook(args[0]);
      return real.open(...args);
    },
    mkdir: async (...args: Parameters<typeof real.mkdir>) => {
      const made = await real.mkdir(...args);
      const hook = afterMkdir;
      afterMkdir = undefined;
      await hook?.();
      return made;
    },
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      await runHook(args[0]);
      return real.writeFile(...args);
    },
  };
});

let dirs: TempDirs;
let alice: WorkspaceScope;
let aliceDir: string;
let bobResults: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  alice = { root: dirs.workspaceRoot, userId: 'alice', sessionId: 's1' };
  aliceDir = path.join(dirs.workspaceRoot, 'alice', 's1');
  bobResults = path.join(dirs.workspaceRoot, 'bob', 's1', 'results');
  await mkdir(path.join(aliceDir, 'results'), { recursive: true });
  await mkdir(bobResults, { recursive: true });
});
afterEach(async () => {
  beforeCreate = undefined;
  afterMkdir = undefined;
  await dirs.remove();
});

async function swapResultsForLink(): Promise<void> {
  await rename(path.join(aliceDir, 'results'), path.join(aliceDir, 'results_real'));
  await symlink(bobResults, path.join(aliceDir, 'results'));
}

describe('contextResult and a results directory swapped mid-call', () => {
  it("never writes into another user's workspace (swap just before the file is created)", async () => {
    beforeCreate = swapResultsForLink;
    const outcome = await contextResult('SECRET-ROW '.repeat(1000), { workspace: alice }).then(
      (text) => ({ text }),
      (error: unknown) => ({ error }),
    );
    expect(beforeCreate).toBeUndefined(); // the swap did happen
    expect(await readdir(bobResults)).toEqual([]);
    // The file went into the directory that was checked (now renamed), or the call was refused.
    if ('text' in outcome) {
      expect(await readdir(path.join(aliceDir, 'results_real'))).toHaveLength(1);
    }
  });

  it('refuses a swap made just after the directory was checked', async () => {
    afterMkdir = swapResultsForLink;
    const error = await contextResult('SECRET-ROW '.repeat(1000), { workspace: alice }).catch(
      (e: unknown) => e,
    );
    expect(afterMkdir).toBeUndefined(); // the swap did happen
    expect(error).toBeInstanceOf(WorkspacePathError);
    expect((error as WorkspacePathError).reason).toBe('traversal');
    expect(await readdir(bobResults)).toEqual([]);
  });
});
