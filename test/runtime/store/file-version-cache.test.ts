/**
 * Pins `FileVersionCache`: while a path still names the inode read last
 * time, its version comes from the cache (one stat, no read — even if the
 * file was written in place, which session files never are); a file
 * renamed over it, or removed, is noticed; at most 64 files are held open,
 * the oldest closed first; a failed read closes its handle; `clear()`
 * closes every handle and leaves the cache usable.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileVersionCache } from '../../../src/runtime/store/file-version-cache.js';
import { waitFor } from '../../support/processes.js';

/** Bound on waiting for a handle closed in the background to be gone, in milliseconds. */
const CLOSE_WAIT_MS = 5_000;

let dir: string;
let cache: FileVersionCache;
let reads: string[];

/** Reads the version written in the file, noting which file was read. */
function reader(name: string) {
  return async (handle: FileHandle): Promise<number> => {
    reads.push(name);
    return Number(await handle.readFile('utf8'));
  };
}

async function version(name: string): Promise<number> {
  return cache.version(path.join(dir, name), reader(name));
}

/** Descriptors of this process open on files of the test directory. */
function openInDir(): string[] {
  const files: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) files.push(path.basename(target));
    } catch {
      // Closed between the listing and the readlink (e.g. the listing's own descriptor).
    }
  }
  return files.sort();
}

async function replace(name: string, text: string): Promise<void> {
  const next = path.join(dir, `${name}.tmp`);
  await writeFile(next, text);
  await rename(next, path.join(dir, name));
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'file-version-cache-'));
  cache = new FileVersionCache();
  reads = [];
});

afterEach(async () => {
  await cache.clear();
  await rm(dir, { recursive: true, force: true });
});

describe('FileVersionCache', () => {
  it('reads a file once, then answers from the cache while it is the same inode', async () => {
    await writeFile(path.join(dir, 'a'), '3');
    expect(await version('a')).toBe(3);
    expect(await version('a')).toBe(3);
    expect(reads).toEqual(['a']);
    expect(openInDir()).toEqual(['a']);
  });

  it('answers a cached, unchanged file at once, and a replaced one after reading it', async () => {
    const file = path.join(dir, 'a');
    await writeFile(file, '3');
    await version('a');
    // A number, not a promise: a version check on every tool call waits for nothing.
    expect(cache.version(file, reader('a'))).toBe(3);
    await replace('a', '4');
    const reread = cache.version(file, reader('a'));
    expect(reread).toBeInstanceOf(Promise);
    expect(await reread).toBe(4);
    expect(cache.version(file, reader('a'))).toBe(4);
  });

  it('trusts the inode, not the content: a write in place is not read', async () => {
    await writeFile(path.join(dir, 'a'), '3');
    await version('a');
    await writeFile(path.join(dir, 'a'), '4');
    expect(await version('a')).toBe(3);
    expect(reads).toEqual(['a']);
  });

  it('notices a file renamed over the cached one, and closes the old handle', async () => {
    await writeFile(path.join(dir, 'a'), '3');
    await version('a');
    await replace('a', '4');
    expect(await version('a')).toBe(4);
    expect(reads).toEqual(['a', 'a']);
    // The old inode was unlinked by the rename: its descriptor reads "(deleted)" until closed.
    await waitFor(() => openInDir().length === 1, {
      timeoutMs: CLOSE_WAIT_MS,
      description: 'the replaced file to be closed',
    });
    expect(openInDir()).toEqual(['a']);
    expect(await version('a')).toBe(4);
    expect(reads).toEqual(['a', 'a']);
  });

  it('gives 0 for a file that does not exist, without reading', async () => {
    expect(await version('none')).toBe(0);
    expect(reads).toEqual([]);
  });

  it('gives 0 once a cached file is removed, and reads it again when it comes back', async () => {
    await writeFile(path.join(dir, 'a'), '3');
    await version('a');
    await unlink(path.join(dir, 'a'));
    expect(await version('a')).toBe(0);
    await writeFile(path.join(dir, 'a'), '5');
    expect(await version('a')).toBe(5);
    expect(reads).toEqual(['a', 'a']);
  });

  it('holds at most 64 files open, closing the oldest first', async () => {
    const names = Array.from({ length: 65 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    for (const [i, name] of names.entries()) await writeFile(path.join(dir, name), String(i));
    for (const name of names) await version(name);
    await waitFor(() => openInDir().length === 64, {
      timeoutMs: CLOSE_WAIT_MS,
      description: 'the oldest handle to be closed',
    });
    expect(openInDir()).toEqual(names.slice(1));
    reads = [];
    expect(await version('f64')).toBe(64);
    expect(reads).toEqual([]);
    expect(await version('f00')).toBe(0);
    expect(reads).toEqual(['f00']);
  });

  it('closes the handle and passes the error on when the read fails', async () => {
    await writeFile(path.join(dir, 'a'), '3');
    const failure = new Error('unreadable');
    await expect(
      cache.version(path.join(dir, 'a'), () => {
        expect(openInDir()).toEqual(['a']);
        return Promise.reject(failure);
      }),
    ).rejects.toBe(failure);
    expect(openInDir()).toEqual([]);
    expect(await version('a')).toBe(3);
    expect(reads).toEqual(['a']);
  });

  it('passes on open errors other than ENOENT', async () => {
    await writeFile(path.join(dir, 'file'), '1');
    await expect(version('file/child')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(reads).toEqual([]);
  });

  it('keeps no handle from a read that was under way when clear() ran', async () => {
    await writeFile(path.join(dir, 'a'), '1');
    const reading = version('a'); // opens the file, then awaits its stat and read
    await cache.clear();
    expect(await reading).toBe(1);
    await waitFor(() => openInDir().length === 0, {
      timeoutMs: CLOSE_WAIT_MS,
      description: 'the late handle to be closed',
    });
    expect(openInDir()).toEqual([]);
  });

  it('keeps a file read often: the least recently used goes first', async () => {
    const names = Array.from({ length: 65 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    for (const [i, name] of names.entries()) await writeFile(path.join(dir, name), String(i));
    for (const name of names.slice(0, 64)) await version(name);
    await version('f00'); // a cache hit: now the most recently used
    await version('f64');
    await waitFor(() => openInDir().length === 64, {
      timeoutMs: CLOSE_WAIT_MS,
      description: 'the least recently used handle to be closed',
    });
    expect(openInDir()).toContain('f00');
    expect(openInDir()).not.toContain('f01');
  });

  it('closes every handle on clear() and stays usable', async () => {
    await writeFile(path.join(dir, 'a'), '1');
    await writeFile(path.join(dir, 'b'), '2');
    await version('a');
    await version('b');
    expect(openInDir()).toEqual(['a', 'b']);
    await cache.clear();
    expect(openInDir()).toEqual([]);
    await cache.clear();
    expect(await version('a')).toBe(1);
    expect(reads).toEqual(['a', 'b', 'a']);
    expect(openInDir()).toEqual(['a']);
  });
});
