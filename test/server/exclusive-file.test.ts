import { mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspacePathError } from '../../src/server/index.js';
import { createExclusiveFile } from '../../src/server/exclusive-file.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

let dirs: TempDirs;
let base: string;
let realBase: string;
let outside: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  base = path.join(dirs.base, 'session');
  outside = path.join(dirs.base, 'outside');
  await mkdir(path.join(base, 'results'), { recursive: true });
  await mkdir(outside);
  realBase = await realpath(base);
});
afterEach(async () => {
  await dirs.remove();
});

async function refusal(promise: Promise<void>): Promise<WorkspacePathError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkspacePathError);
  expect((error as WorkspacePathError).reason).toBe('traversal');
  return error as WorkspacePathError;
}

// The second run takes the path used where /proc/self/fd does not exist.
for (const procFdDir of [undefined, path.join('/nonexistent', 'proc-fd')]) {
  const options = procFdDir === undefined ? {} : { procFdDir };
  describe(`createExclusiveFile${procFdDir === undefined ? '' : ' without /proc'}`, () => {
    it('creates the file and writes the text', async () => {
      const dir = path.join(base, 'results');
      await createExclusiveFile(
        dir,
        'r.txt',
        'héllo',
        realBase,
        '/workspace/results/r.txt',
        options,
      );
      expect(await readFile(path.join(dir, 'r.txt'), 'utf8')).toBe('héllo');
    });

    it('never overwrites an existing file, nor follows a symlink in its place', async () => {
      const dir = path.join(base, 'results');
      await writeFile(path.join(dir, 'old.txt'), 'old');
      const exists = await createExclusiveFile(dir, 'old.txt', 'new', realBase, 'x', options).catch(
        (e: unknown) => e,
      );
      expect((exists as NodeJS.ErrnoException).code).toBe('EEXIST');
      expect(await readFile(path.join(dir, 'old.txt'), 'utf8')).toBe('old');
      await symlink(path.join(outside, 'planted.txt'), path.join(dir, 'link.txt'));
      await expect(
        createExclusiveFile(dir, 'link.txt', 'new', realBase, 'x', options),
      ).rejects.toMatchObject({ code: 'EEXIST' });
      expect(await readdir(outside)).toEqual([]);
    });

    it('refuses a directory that is a symlink, even one that stays inside', async () => {
      await symlink(path.join(base, 'results'), path.join(base, 'alias'));
      const error = await refusal(
        createExclusiveFile(
          path.join(base, 'alias'),
          'r.txt',
          't',
          realBase,
          '/workspace/alias/r.txt',
          options,
        ),
      );
      expect(error.message).toContain('"/workspace/alias/r.txt"');
      expect(error.message).not.toContain(dirs.base);
      expect(await readdir(path.join(base, 'results'))).toEqual([]);
    });

    it('refuses a directory whose real path lies outside the base, leaving nothing there', async () => {
      await refusal(createExclusiveFile(outside, 'r.txt', 't', realBase, 'r.txt', options));
      expect(await readdir(outside)).toEqual([]);
    });
  });
}
