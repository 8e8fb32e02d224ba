/**
 * `readWorkspaceFile` / `writeWorkspaceFile`: what they refuse, a
 * directory swapped for a symlink out of the session at every step of
 * their work (the swap runs from inside the file-system call, so it lands
 * where it is meant to), writes that never leave a mix, and nothing opened
 * where descriptors cannot be followed. A naive read (check, then read by
 * path) is swapped the same way and leaks, so the harness is known to hit
 * the window.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import type * as FsPromises from 'node:fs/promises';
import {
  chmod,
  chown,
  mkdir,
  readFile,
  readdir,
  rename,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ServerContextError,
  workspaceToHostPath,
  WorkspacePathError,
  type WorkspacePathReason,
  type WorkspaceScope,
} from '../../src/server/index.js';
import { readFileIn, writeFileIn } from '../../src/server/workspace-file.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

/** Run once, just before the open numbered `swapAtOpen` (counted from 1) of the code under test. */
let swapAtOpen = 0;
let opens = 0;
let swap: (() => Promise<void>) | undefined;

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      opens += 1;
      if (opens === swapAtOpen && swap !== undefined) {
        const run = swap;
        swap = undefined;
        await run();
      }
      return real.open(...args);
    },
  };
});

const LINUX = '/proc/self/fd';
const FALLBACK = path.join('/nonexistent', 'proc-fd');

let dirs: TempDirs;
let scope: WorkspaceScope;
let session: string;
let outside: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  scope = { root: dirs.workspaceRoot, userId: 'alice', sessionId: 's1' };
  session = path.join(dirs.workspaceRoot, 'alice', 's1');
  outside = path.join(dirs.base, 'outside');
  await mkdir(path.join(session, 'd'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(session, 'd', 'f.txt'), 'inside');
  await writeFile(path.join(outside, 'f.txt'), 'SECRET');
  swap = undefined;
  swapAtOpen = 0;
  opens = 0;
});
afterEach(async () => {
  swap = undefined;
  await dirs.remove();
});

async function reason(promise: Promise<unknown>): Promise<WorkspacePathReason> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkspacePathError);
  return (error as WorkspacePathError).reason;
}

/** Puts a symlink to `outside` where `d` was (the real `d` kept aside). */
async function swapDirectoryForLink(): Promise<void> {
  await rename(path.join(session, 'd'), path.join(session, 'd-real'));
  await symlink(outside, path.join(session, 'd'));
}

{
  const procFdDir = LINUX;
  const read = (file: string, options: { maxBytes?: number } = {}): Promise<string> =>
    readFileIn(file, { scope, ...options }, procFdDir);
  const write = (file: string, text: string, createDirectories?: boolean): Promise<void> =>
    writeFileIn(
      file,
      text,
      { scope, ...(createDirectories === undefined ? {} : { createDirectories }) },
      procFdDir,
    );

  describe('workspace files', () => {
    it('reads and writes, creating directories for the session owner only', async () => {
      expect(await read('/workspace/d/f.txt')).toBe('inside');
      await write('notes/deep/n.txt', 'héllo');
      expect(await read('/workspace/notes/deep/n.txt')).toBe('héllo');
      await write('/workspace/notes/deep/n.txt', 'short');
      expect(await readFile(path.join(session, 'notes', 'deep', 'n.txt'), 'utf8')).toBe('short');
      expect((await stat(path.join(session, 'notes'))).mode & 0o777).toBe(0o700);
      expect((await stat(path.join(session, 'notes', 'deep', 'n.txt'))).mode & 0o777).toBe(0o600);
    });

    it('follows a symlinked directory that stays inside, and refuses one that leads out', async () => {
      await symlink('d', path.join(session, 'alias'));
      expect(await read('/workspace/alias/f.txt')).toBe('inside');
      await symlink(outside, path.join(session, 'out'));
      expect(await reason(read('/workspace/out/f.txt'))).toBe('traversal');
      expect(await reason(write('/workspace/out/new.txt', 'x'))).toBe('traversal');
      expect(await reason(write('/workspace/out/sub/new.txt', 'x'))).toBe('traversal');
      expect(await readdir(outside)).toEqual(['f.txt']);
    });

    it('names what is wrong with a path the agent can correct', async () => {
      expect(await reason(read('/workspace/none.txt'))).toBe('not-found');
      expect(await reason(read('/workspace/d/f.txt/x'))).toBe('not-found');
      expect(await reason(write('/workspace/none/x.txt', 'x', false))).toBe('not-found');
      expect(await reason(read('/workspace/d'))).toBe('wrong-kind');
      expect(await reason(read('/workspace'))).toBe('wrong-kind');
      expect(await reason(write('/workspace/d', 'x'))).toBe('wrong-kind');
      await symlink('d/f.txt', path.join(session, 'link.txt'));
      expect(await reason(read('/workspace/link.txt'))).toBe('wrong-kind');
      expect(await reason(write('/workspace/link.txt', 'x'))).toBe('wrong-kind');
      expect(await readFile(path.join(session, 'd', 'f.txt'), 'utf8')).toBe('inside');
      expect(await reason(read('/workspace/../x'))).toBe('traversal');
      await symlink('loop-b', path.join(session, 'loop-a'));
      await symlink('loop-a', path.join(session, 'loop-b'));
      expect(await reason(read('/workspace/loop-a/f.txt'))).toBe('traversal');
      expect(await reason(read('/etc/passwd'))).toBe('not-under-workspace');
      expect(await reason(read(`/workspace/${'n'.repeat(300)}`))).toBe('invalid');
      await writeFile(path.join(session, 'big.txt'), 'x'.repeat(101));
      expect(await reason(read('/workspace/big.txt', { maxBytes: 100 }))).toBe('too-large');
      expect(await read('/workspace/big.txt', { maxBytes: 101 })).toHaveLength(101);
    });

    it('writes a new file renamed onto the old: readers and writers never see a mix', async () => {
      const big = (letter: string): string => letter.repeat(3 * 1024 * 1024);
      await write('/workspace/mix.txt', big('a'));
      const outcomes = await Promise.all([
        write('/workspace/mix.txt', big('b')),
        read('/workspace/mix.txt', { maxBytes: 4 * 1024 * 1024 }),
        write('/workspace/mix.txt', big('c')),
        read('/workspace/mix.txt', { maxBytes: 4 * 1024 * 1024 }),
      ]);
      for (const text of [
        outcomes[1],
        outcomes[3],
        await read('/workspace/mix.txt', { maxBytes: 4 * 1024 * 1024 }),
      ]) {
        expect(text).toHaveLength(3 * 1024 * 1024);
        expect(new Set(text)).toHaveProperty('size', 1);
      }
      // No temporary file is left beside it.
      expect((await readdir(session)).sort()).toEqual(['d', 'mix.txt']);
    });

    it('keeps the permission bits and, as root, the owner of a file it replaces', async () => {
      const script = path.join(session, 'build.sh');
      await writeFile(script, 'echo v1\n', { mode: 0o755 });
      await chmod(script, 0o4755); // a set-user-id bit is not carried over
      const asRoot = process.getuid?.() === 0;
      if (asRoot) await chown(script, 1000, 1000);
      await write('/workspace/build.sh', 'echo v2\n');
      const replaced = await stat(script);
      expect(replaced.mode & 0o7777).toBe(0o755);
      if (asRoot) expect([replaced.uid, replaced.gid]).toEqual([1000, 1000]);
      expect(await readFile(script, 'utf8')).toBe('echo v2\n');
    });

    it('refuses a path longer than the file system takes before it makes a directory', async () => {
      const deep = Array.from({ length: 30 }, (_, index) => `${index}`.padEnd(200, 'x')).join('/');
      expect(await reason(write(`/workspace/${deep}/f.txt`, 'x'))).toBe('invalid');
      expect((await readdir(session)).sort()).toEqual(['d']);
    });

    it('refuses a FIFO without waiting for its other end, to read and to write', async () => {
      execFileSync('mkfifo', [path.join(session, 'pipe')]);
      const late = new Promise<string>((resolve) => setTimeout(() => resolve('blocked'), 3_000));
      const outcomes = await Promise.all(
        [read('/workspace/pipe'), write('/workspace/pipe', 'x')].map((attempt) =>
          Promise.race([reason(attempt), late]),
        ),
      );
      expect(outcomes).toEqual(['wrong-kind', 'wrong-kind']);
      const listener = net.createServer();
      await new Promise<void>((resolve) => listener.listen(path.join(session, 'sock'), resolve));
      try {
        expect(await reason(read('/workspace/sock'))).toBe('wrong-kind');
        expect(await reason(write('/workspace/sock', 'x'))).toBe('wrong-kind');
      } finally {
        await new Promise((resolve) => listener.close(resolve));
      }
    });

    for (const at of [1, 2, 3, 4]) {
      it(`never reads or writes outside when a directory is swapped for a link before open ${at}`, async () => {
        swapAtOpen = at;
        swap = swapDirectoryForLink;
        const outcome = await read('/workspace/d/f.txt').catch((e: unknown) => e);
        if (swap === undefined) {
          // The swap happened: the file read is the one inside, or the read was refused.
          expect(outcome === 'inside' || outcome instanceof WorkspacePathError).toBe(true);
        } else expect(outcome).toBe('inside');
        expect(outcome).not.toBe('SECRET');

        await rename(path.join(session, 'd'), path.join(session, `link-${at}`));
        if (swap === undefined) await rename(path.join(session, 'd-real'), path.join(session, 'd'));
        opens = 0;
        swap = swapDirectoryForLink;
        await write('/workspace/d/new.txt', 'x').catch(() => undefined);
        expect(await readdir(outside)).toEqual(['f.txt']);
      });
    }
  });
}

it('opens nothing where descriptors cannot be followed (not Linux)', async () => {
  const error = await readFileIn('/workspace/d/f.txt', { scope }, FALLBACK).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServerContextError);
  expect((error as Error).message).toMatch(/needs \/nonexistent\/proc-fd \(Linux\)/);
  await expect(writeFileIn('/workspace/new.txt', 'x', { scope }, FALLBACK)).rejects.toThrow(
    ServerContextError,
  );
  expect((await readdir(session)).sort()).toEqual(['d']);
});

it('the same swap reaches a naive read by path (the harness hits the window)', async () => {
  const host = await workspaceToHostPath('/workspace/d/f.txt', scope);
  swapAtOpen = 1;
  swap = swapDirectoryForLink;
  const handle = await (await import('node:fs/promises')).open(host, 'r');
  try {
    expect(await handle.readFile('utf8')).toBe('SECRET');
  } finally {
    await handle.close();
  }
});
