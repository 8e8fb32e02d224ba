import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PRIVATE_FILE_MODE, isErrno, writeFileAtomic } from '../../src/core/atomic-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-atomic-file-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file with owner-only bits and leaves no temporary file', async () => {
    const file = path.join(dir, 'state.json');
    await writeFileAtomic(file, 'old');
    await writeFileAtomic(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await stat(file)).mode & 0o777).toBe(PRIVATE_FILE_MODE);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('removes its temporary file when the rename fails', async () => {
    const target = path.join(dir, 'taken');
    await mkdir(path.join(target, 'child'), { recursive: true });
    const error: unknown = await writeFileAtomic(target, 'x').catch((e: unknown) => e);
    expect(isErrno(error, 'EISDIR') || isErrno(error, 'ENOTEMPTY')).toBe(true);
    expect(await readdir(dir)).toEqual(['taken']);
  });
});
