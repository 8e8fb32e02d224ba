import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NO_PRIVATE_DATA,
  privateData,
  PrivateDataError,
  PrivateDataStore,
  ServerContextError,
  type DataSensitivity,
} from '../../src/server/index.js';
import { sensitivityRank } from '../../src/core/sensitivity.js';
import { makeTempDirs, type TempDirs } from './helpers.js';

let dirs: TempDirs;
let store: PrivateDataStore;
const alice = { userId: 'alice', sessionId: 's1' };

beforeEach(async () => {
  dirs = await makeTempDirs();
  store = new PrivateDataStore(dirs.privateDataDir);
});
afterEach(async () => {
  await dirs.remove();
});

const level = fc.constantFrom<DataSensitivity>('public', 'internal', 'confidential', 'secret');

describe('PrivateDataStore', () => {
  it('starts with no private data', async () => {
    expect(await store.read(alice)).toEqual(NO_PRIVATE_DATA);
  });

  it('writes { has_private_data, private_datasets, sensitivity } per user and session', async () => {
    await store.add(alice, 'patients', 'confidential');
    const file = path.join(dirs.privateDataDir, 'alice', 's1', '.private_data');
    expect(store.filePath(alice)).toBe(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      has_private_data: true,
      private_datasets: ['patients'],
      sensitivity: 'confidential',
    });
    // No temporary or lock file is left behind.
    expect(await readdir(path.dirname(file))).toEqual(['.private_data']);
  });

  it('never lowers the level; re-adding a dataset higher raises it', async () => {
    expect((await store.add(alice, 'a', 'secret')).sensitivity).toBe('secret');
    expect((await store.add(alice, 'b', 'internal')).sensitivity).toBe('secret');
    const other = { userId: 'alice', sessionId: 's2' };
    await store.add(other, 'a', 'internal');
    const raised = await store.add(other, 'a', 'confidential');
    expect(raised).toEqual({ hasPrivateData: true, datasets: ['a'], sensitivity: 'confidential' });
  });

  it('keeps levels rising for any sequence of additions (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), level), { minLength: 1, maxLength: 8 }),
        async (adds) => {
          const identity = { userId: 'prop', sessionId: `run-${run++}` };
          let previous = -1;
          for (const [name, sensitivity] of adds) {
            const state = await store.add(identity, name, sensitivity);
            expect(sensitivityRank(state.sensitivity)).toBeGreaterThanOrEqual(previous);
            previous = sensitivityRank(state.sensitivity);
          }
          const final = await store.read(identity);
          const highest = Math.max(...adds.map(([, s]) => sensitivityRank(s)));
          expect(sensitivityRank(final.sensitivity)).toBe(highest);
          expect([...final.datasets].sort()).toEqual([...new Set(adds.map(([n]) => n))].sort());
        },
      ),
      { numRuns: 30 },
    );
  });

  it('loses nothing under concurrent additions', async () => {
    const levels: DataSensitivity[] = ['internal', 'secret', 'public', 'confidential'];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.add(alice, `d${i}`, levels[i % levels.length] ?? 'public'),
      ),
    );
    const state = await store.read(alice);
    expect(state.datasets).toHaveLength(20);
    expect(state.sensitivity).toBe('secret');
  });

  it('keeps two sessions of one user apart', async () => {
    await store.add(alice, 'patients', 'secret');
    expect(await store.read({ userId: 'alice', sessionId: 's2' })).toEqual(NO_PRIVATE_DATA);
    expect(store.filePath(alice)).not.toBe(store.filePath({ userId: 'alice', sessionId: 's2' }));
  });

  it('makes ids safe for paths without merging distinct ids', async () => {
    const tricky = { userId: '../../etc', sessionId: 'a/b' };
    await store.add(tricky, 'x', 'internal');
    const file = store.filePath(tricky);
    expect(path.relative(dirs.privateDataDir, file).split(path.sep)).toEqual([
      '%2E%2E%2F%2E%2E%2Fetc',
      'a%2Fb',
      '.private_data',
    ]);
    expect(await store.read({ userId: '../../etc', sessionId: 'a_b' })).toEqual(NO_PRIVATE_DATA);
  });

  it('breaks a stale lock left by a crashed process', async () => {
    const file = store.filePath(alice);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.lock`, '12345');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    expect((await store.add(alice, 'patients')).sensitivity).toBe('confidential');
  });

  it('refuses a corrupt state file instead of treating it as empty', async () => {
    const file = store.filePath(alice);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify({ has_private_data: 'yes' }));
    await expect(store.read(alice)).rejects.toBeInstanceOf(PrivateDataError);
    await expect(store.add(alice, 'x')).rejects.toBeInstanceOf(PrivateDataError);
  });

  it('refuses a symbolic link or a FIFO in place of the state file, at once, instead of reading it as public', async () => {
    await store.add(alice, 'patients', 'secret');
    const file = store.filePath(alice);
    const lower = path.join(path.dirname(file), 'lower.json');
    await writeFile(
      lower,
      JSON.stringify({ has_private_data: false, private_datasets: [], sensitivity: 'public' }),
    );
    await rm(file);
    await symlink(lower, file);
    await expect(store.read(alice)).rejects.toThrow(/is a symbolic link; expected a regular file/);
    await rm(file);
    await symlink(path.join(path.dirname(file), 'nowhere.json'), file);
    await expect(store.read(alice)).rejects.toBeInstanceOf(PrivateDataError);
    await rm(file);
    const made = spawnSync('mkfifo', ['-m', '600', file]);
    expect(made.status).toBe(0);
    await expect(store.read(alice)).rejects.toThrow(/is a FIFO; expected a regular file/);
  });

  it('counts listed datasets as private even if the flag was edited to false', async () => {
    const file = store.filePath(alice);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(
      file,
      JSON.stringify({ has_private_data: false, private_datasets: ['p'], sensitivity: 'secret' }),
    );
    expect((await store.read(alice)).hasPrivateData).toBe(true);
  });

  it('names bad datasets and levels', async () => {
    await expect(store.add(alice, '  ')).rejects.toThrow(
      'dataset name must be a non-empty string such as "patient_records", got "  "',
    );
    await expect(store.add(alice, 'x', 'top-secret' as DataSensitivity)).rejects.toThrow(
      'sensitivity must be one of public, internal, confidential, secret; got "top-secret"',
    );
    expect(() => new PrivateDataStore('relative/dir')).toThrow(
      'privateDataDir must be an absolute path, got "relative/dir"',
    );
  });
});

describe('privateData facade', () => {
  it('must run inside a defineTool tool', async () => {
    await expect(privateData.add('x')).rejects.toBeInstanceOf(ServerContextError);
    await expect(privateData.read()).rejects.toBeInstanceOf(ServerContextError);
  });
});
