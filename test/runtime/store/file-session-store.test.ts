import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  lchown,
  mkdir,
  rename,
  utimes,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
  chmod,
} from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DataSensitivity } from '../../../src/core/sensitivity.js';
import {
  FileSessionStore,
  defaultSessionDirectory,
  sessionFileName,
} from '../../../src/runtime/store/file-session-store.js';
import { SessionStoreError } from '../../../src/runtime/store/errors.js';
import { Session } from '../../../src/runtime/session.js';
import {
  mergePrivateDataStates,
  privateDataState,
  EMPTY_PRIVATE_DATA,
} from '../../../src/runtime/store/session-store.js';

const LEVELS: readonly DataSensitivity[] = ['public', 'internal', 'confidential', 'secret'];

let root: string;
let directory: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-sections-file-store-'));
  directory = path.join(root, 'state', 'sessions');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function state(
  sensitivity: DataSensitivity,
  datasets: Record<string, DataSensitivity> = {},
): ReturnType<typeof privateDataState> {
  return privateDataState(sensitivity, datasets);
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('FileSessionStore files', () => {
  it('keeps one file per session, mode 0600, in a directory of mode 0700', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('conv-1', state('confidential', { crm: 'confidential' }));
    await store.saveSlices('conv-2', { notes: ['a'] });
    const files = (await readdir(directory)).sort();
    expect(files).toEqual([sessionFileName('conv-1'), sessionFileName('conv-2')].sort());
    for (const file of files) {
      expect((await stat(path.join(directory, file))).mode & 0o777).toBe(0o600);
    }
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
  });

  it('refuses an existing directory that others could read, without changing it', async () => {
    await mkdir(directory, { recursive: true });
    await chmod(directory, 0o755);
    const store = new FileSessionStore({ directory });
    const error = await errorOf(store.mergePrivateData('conv', state('secret', { hr: 'secret' })));
    expect(error).toMatchObject({
      code: 'store-config',
      message: `session directory ${directory} is refused: it has mode 755; expected 700 (nothing for group or others) — run chmod 700 ${directory}`,
    });
    expect((await stat(directory)).mode & 0o777).toBe(0o755);
    expect(await readdir(directory)).toEqual([]);
  });

  it('refuses a directory that is a symbolic link, and leaves its target alone', async () => {
    const target = path.join(root, 'target');
    await mkdir(target, { mode: 0o755 });
    await chmod(target, 0o755);
    await mkdir(path.dirname(directory), { recursive: true, mode: 0o700 });
    await symlink(target, directory);
    const error = await errorOf(new FileSessionStore({ directory }).load('conv'));
    expect(error).toMatchObject({
      code: 'store-config',
      message: `session directory ${directory} is refused: it is a symbolic link; expected a directory of its own (not a link to one)`,
    });
    expect((await stat(target)).mode & 0o777).toBe(0o755);
  });

  it('refuses a path through a directory other users can write', async () => {
    const shared = path.join(root, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    const error = await errorOf(
      new FileSessionStore({ directory: path.join(shared, 'sessions') }).load('conv'),
    );
    expect((error as SessionStoreError).code).toBe('store-config');
    expect((error as Error).message).toContain(`${shared} on the way has mode 777`);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'as root, refuses a link planted by another user in a sticky directory like /tmp',
    async () => {
      const sticky = path.join(root, 'sticky');
      await mkdir(sticky);
      await chmod(sticky, 0o1777);
      const victim = path.join(root, 'victim');
      await mkdir(victim, { mode: 0o755 });
      await chmod(victim, 0o755);
      const planted = path.join(sticky, 'sessions');
      await symlink(victim, planted);
      await lchown(planted, 65534, 65534); // nobody's link
      const error = await errorOf(new FileSessionStore({ directory: planted }).load('conv'));
      expect((error as SessionStoreError).code).toBe('store-config');
      expect((error as Error).message).toContain('symbolic link');
      const inside = path.join(planted, 'deeper');
      const deeper = await errorOf(new FileSessionStore({ directory: inside }).load('conv'));
      expect((deeper as Error).message).toContain(
        `${planted} belongs to uid 65534 in the shared directory ${sticky}`,
      );
      expect((await stat(victim)).mode & 0o777).toBe(0o755);
      expect(await readdir(victim)).toEqual([]);
    },
  );

  it('does not follow the directory once it was replaced after the check', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    const elsewhere = path.join(root, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o700 });
    await rename(directory, path.join(root, 'moved'));
    await symlink(elsewhere, directory);
    for (const call of [
      () => store.mergePrivateData('conv', state('secret', { hr: 'secret' })),
      () => store.load('conv'),
      () => store.version('conv'),
    ]) {
      expect(await errorOf(call())).toMatchObject({
        code: 'store-config',
        message: expect.stringContaining('it is a symbolic link') as unknown,
      });
    }
    expect(await readdir(elsewhere)).toEqual([]);
  });

  it('checks the directory again once it was opened to others after the check, and refuses it', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    await chmod(directory, 0o755);
    for (const call of [
      () => store.mergePrivateData('conv', state('secret', { hr: 'secret' })),
      () => store.load('conv'),
    ]) {
      expect(await errorOf(call())).toMatchObject({
        code: 'store-config',
        message: expect.stringContaining('it has mode 755; expected 700') as unknown,
      });
    }
    expect((await stat(directory)).mode & 0o777).toBe(0o755);
  });

  it('cannot be made to write outside its directory by a session id like ../../etc', async () => {
    const store = new FileSessionStore({ directory });
    const id = '../../etc';
    await store.mergePrivateData(id, state('secret', { hr: 'secret' }));
    await store.saveSlices(id, { notes: 'x' });
    expect(path.dirname(store.pathOf(id))).toBe(directory);
    expect(await readdir(directory)).toEqual([sessionFileName(id)]);
    // Nothing appeared beside or above the directory.
    expect(await readdir(path.dirname(directory))).toEqual(['sessions']);
    expect(await readdir(root)).toEqual(['state']);
    expect((await store.load(id))?.privateData.sensitivity).toBe('secret');
  });

  it('refuses an id with a lone surrogate, which would share a file with another id', async () => {
    const store = new FileSessionStore({ directory });
    await store
      .mergePrivateData('tenant-a\uD800', state('secret', { hr: 'secret' }))
      .catch(() => undefined);
    for (const id of ['tenant-a\uD800', 'tenant-a\uDC00', '\uDFFFx']) {
      expect(() => store.pathOf(id)).toThrow(/lone surrogate/);
      await expect(store.delete(id)).rejects.toThrow(/lone surrogate/);
      await expect(store.load(id)).rejects.toThrow(/lone surrogate/);
    }
    expect(await readdir(directory).catch(() => [])).toEqual([]);
    // A pair is one character, well formed.
    expect(path.dirname(store.pathOf('emoji \uD83D\uDE00'))).toBe(directory);
  });

  it('maps every id to a file directly inside the directory', () => {
    const store = new FileSessionStore({ directory });
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (id) => {
        const file = store.pathOf(id);
        expect(path.dirname(file)).toBe(directory);
        expect(path.basename(file)).toMatch(/^[0-9a-f]{64}\.json$/);
      }),
    );
  });

  it('names the same file for an id however many ids it served between (it remembers some)', () => {
    const store = new FileSessionStore({ directory });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.constantFrom('a', 'b', 'ab', 'ba', 'a ', 'A'), fc.string({ minLength: 1 })),
          {
            maxLength: 200,
          },
        ),
        (ids) => {
          for (const id of ids) {
            expect(store.pathOf(id)).toBe(new FileSessionStore({ directory }).pathOf(id));
          }
        },
      ),
      { numRuns: 30 },
    );
    // A refused id is refused every time, never remembered.
    expect(() => store.pathOf('x\uD800')).toThrow(/lone surrogate/);
    expect(() => store.pathOf('x\uD800')).toThrow(/lone surrogate/);
  });

  it('refuses a directory inside a workspace, also through a symbolic link', async () => {
    const workspace = path.join(root, 'workspace');
    await mkdir(workspace, { recursive: true });
    const inside = (): FileSessionStore =>
      new FileSessionStore({
        directory: path.join(workspace, '.state'),
        workspaceRoots: [workspace],
      });
    expect(inside).toThrow(SessionStoreError);
    expect(inside).toThrow(/inside workspace/);
    expect(
      () => new FileSessionStore({ directory: workspace, workspaceRoots: [workspace] }),
    ).toThrow(/inside workspace/);
    expect(() => new FileSessionStore({ directory: 'relative/sessions' })).toThrow(
      /must be an absolute path/,
    );

    const link = path.join(root, 'looks-outside');
    await symlink(workspace, link);
    const sneaky = new FileSessionStore({
      directory: path.join(link, 'sessions'),
      workspaceRoots: [workspace],
    });
    const error = await errorOf(sneaky.mergePrivateData('conv', state('secret')));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect((error as SessionStoreError).code).toBe('store-config');
    expect(await readdir(workspace)).toEqual(['sessions']); // created, but nothing written in it
    expect(await readdir(path.join(workspace, 'sessions'))).toEqual([]);
  });

  it('accepts a directory beside a workspace whose name starts with "..", and outside ones', () => {
    const workspace = path.join(root, 'ws');
    expect(
      () =>
        new FileSessionStore({
          directory: path.join(root, 'ws-state'),
          workspaceRoots: [workspace],
        }),
    ).not.toThrow();
    expect(
      () =>
        new FileSessionStore({
          directory: path.join(workspace, '..state'),
          workspaceRoots: [workspace],
        }),
    ).toThrow(/inside workspace/);
  });

  it('defaults to a per-user state directory, outside the project', () => {
    expect(defaultSessionDirectory({}, '/home/ada')).toBe(
      '/home/ada/.local/state/mcp-sections/sessions',
    );
    expect(defaultSessionDirectory({ XDG_STATE_HOME: '/var/lib/ada' }, '/home/ada')).toBe(
      '/var/lib/ada/mcp-sections/sessions',
    );
    expect(defaultSessionDirectory({ XDG_STATE_HOME: 'relative' }, '/home/ada')).toBe(
      '/home/ada/.local/state/mcp-sections/sessions',
    );
    const relative = path.relative(process.cwd(), defaultSessionDirectory());
    expect(relative.startsWith('..') || path.isAbsolute(relative)).toBe(true);
    expect(new FileSessionStore().directory).toBe(defaultSessionDirectory());
  });
});

describe('FileSessionStore contents', () => {
  it('loads nothing for an unknown session and version 0', async () => {
    const store = new FileSessionStore({ directory });
    expect(await store.load('nobody')).toBeUndefined();
    expect(await store.version('nobody')).toBe(0);
    expect(await store.readPrivateData('nobody')).toEqual({
      version: 0,
      privateData: EMPTY_PRIVATE_DATA,
    });
  });

  it('never repeats a version after the session file is lost', async () => {
    const store = new FileSessionStore({ directory });
    const before = await store.mergePrivateData('lost', state('internal'));
    await store.delete('lost');
    const after = await store.mergePrivateData('lost', state('secret'));
    expect(after.version).toBeGreaterThan(before.version);
  });

  it('never repeats a version after the file is lost, when saved slices create the new file', async () => {
    const store = new FileSessionStore({ directory });
    await store.saveSlices('resaved', { notes: [] });
    const before = await store.mergePrivateData('resaved', state('internal'));
    await store.delete('resaved');
    await store.saveSlices('resaved', { notes: [] });
    const after = await store.mergePrivateData('resaved', state('secret'));
    expect(after.version).not.toBe(before.version);
    expect(after.version).toBeGreaterThan(before.version);
  });

  it('never repeats a version after an older copy of the file is put back, so a worker that saw the later one reads', async () => {
    const store = new FileSessionStore({ directory });
    const file = path.join(directory, sessionFileName('conv'));
    await store.mergePrivateData('conv', state('internal'));
    const backup = await readFile(file);
    const seen = await store.mergePrivateData('conv', state('confidential'));
    // Another worker, at the later version and its state.
    const other = await Session.open({
      sessionId: 'conv',
      store: new FileSessionStore({ directory }),
    });
    expect(other.privateData.sensitivity).toBe('confidential');
    // A backup restored as a new file (written aside, then renamed over it).
    await writeFile(`${file}.restored`, backup);
    await rename(`${file}.restored`, file);
    const raised = await store.mergePrivateData('conv', state('secret'));
    expect(raised.version).not.toBe(seen.version);
    expect(raised.version).toBeGreaterThan(seen.version);
    await other.syncFromStore();
    expect(other.privateData.sensitivity).toBe('secret');
  });

  it('merges as a maximum and counts a version only when something rose', async () => {
    const store = new FileSessionStore({ directory });
    const first = await store.mergePrivateData(
      'conv',
      state('secret', { hr: 'secret', wiki: 'internal' }),
    );
    // A new file's version starts at the clock: it never repeats one seen before the file was lost.
    expect(first.version).toBeGreaterThan((Date.now() - 60_000) * 1000);
    const lower = await store.mergePrivateData(
      'conv',
      state('internal', { hr: 'public', wiki: 'public' }),
    );
    expect(lower).toEqual(first);
    expect(await store.version('conv')).toBe(first.version);
    const wider = await store.mergePrivateData(
      'conv',
      state('internal', { wiki: 'confidential', crm: 'internal' }),
    );
    expect(wider.version).toBeGreaterThan(first.version);
    expect(wider.privateData).toEqual({
      hasPrivateData: true,
      sensitivity: 'secret',
      datasets: { hr: 'secret', wiki: 'confidential', crm: 'internal' },
    });
    await store.saveSlices('conv', { notes: [1] });
    expect(await store.version('conv')).toBe(wider.version);
  });

  it('keeps other slices when saving some; the last writer of a slice wins', async () => {
    const store = new FileSessionStore({ directory });
    await store.saveSlices('conv', { a: 1, b: { x: [true, null] } });
    await store.saveSlices('conv', { a: 2 });
    expect((await store.load('conv'))?.slices).toEqual({ a: 2, b: { x: [true, null] } });
  });

  it('reports a damaged file or a file of another session as store-corrupt', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('a', state('secret', { hr: 'secret' }));
    await writeFile(store.pathOf('b'), await readFile(store.pathOf('a'), 'utf8'), { mode: 0o600 });
    const wrong = await errorOf(store.load('b'));
    expect((wrong as SessionStoreError).code).toBe('store-corrupt');
    await writeFile(
      store.pathOf('c'),
      '{"format":1,"version":3,"sessionId":"c","privateData":{"sensitivity":"top"',
    );
    const torn = await errorOf(store.readPrivateData('c'));
    expect((torn as SessionStoreError).code).toBe('store-corrupt');
  });

  it('deletes a session and refuses calls after close', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    await store.delete('conv');
    expect(await store.load('conv')).toBeUndefined();
    await store.delete('conv');
    await store.close();
    await store.close();
    expect(((await errorOf(store.version('conv'))) as SessionStoreError).code).toBe('store-closed');
  });

  it('never loses an escalation when several store clients merge at once', async () => {
    const escalation = fc.tuple(
      fc.integer({ min: 0, max: 3 }), // which client
      fc.constantFrom(...['a', 'b', 'c', 'd', 'e']),
      fc.constantFrom(...LEVELS),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(escalation, { minLength: 1, maxLength: 24 }), async (steps) => {
        const dir = await mkdtemp(path.join(root, 'run-'));
        const clients = [0, 1, 2, 3].map(() => new FileSessionStore({ directory: dir }));
        await Promise.all(
          steps.map(([client, name, level]) =>
            clients[client]!.mergePrivateData('shared', state('public', { [name]: level })),
          ),
        );
        const expected = steps.reduce(
          (acc, [, name, level]) => mergePrivateDataStates(acc, state('public', { [name]: level })),
          EMPTY_PRIVATE_DATA,
        );
        const stored = await new FileSessionStore({ directory: dir }).readPrivateData('shared');
        expect(stored.privateData).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});

describe('FileSessionStore lock', () => {
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return child.pid!;
  }

  it('breaks the lock of a process that died holding it', async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 60_000, lockTimeoutMs: 2_000 });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    const owner = { pid: await deadPid(), host: hostname(), token: 'dead', createdAt: Date.now() };
    await writeFile(`${store.pathOf('conv')}.lock`, JSON.stringify(owner));
    const merged = await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    expect(merged.privateData.sensitivity).toBe('secret');
    expect(await readdir(directory)).toEqual([sessionFileName('conv')]);
  });

  it('waits for a live holder and gives up with store-lock-timeout, changing nothing', async () => {
    const store = new FileSessionStore({ directory, lockTimeoutMs: 100 });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    const owner = { pid: process.pid, host: hostname(), token: 'held', createdAt: Date.now() };
    const lock = `${store.pathOf('conv')}.lock`;
    await writeFile(lock, JSON.stringify(owner));
    const error = await errorOf(store.mergePrivateData('conv', state('secret', { hr: 'secret' })));
    expect((error as SessionStoreError).code).toBe('store-lock-timeout');
    expect((await readFile(lock, 'utf8')).includes('held')).toBe(true);
    await rm(lock);
    expect((await store.readPrivateData('conv')).privateData.sensitivity).toBe('internal');
  });

  it('breaks a lock from another host only once it is older than staleLockMs', async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 1_000, lockTimeoutMs: 100 });
    const lock = `${store.pathOf('conv')}.lock`;
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const fresh = { pid: 1, host: 'elsewhere', token: 'fresh', createdAt: Date.now() };
    await writeFile(lock, JSON.stringify(fresh));
    expect(
      ((await errorOf(store.mergePrivateData('conv', state('secret')))) as SessionStoreError).code,
    ).toBe('store-lock-timeout');
    // Its age is measured here (the file's mtime), whatever the owner's clock says.
    const old = new Date(Date.now() - 5_000);
    await utimes(lock, old, old);
    expect((await store.mergePrivateData('conv', state('secret'))).privateData.sensitivity).toBe(
      'secret',
    );
  });

  it('breaks a lock from a host whose clock runs ahead once it is staleLockMs old here', async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 50, lockTimeoutMs: 5_000 });
    await store.load('conv');
    const ahead = { pid: 1, host: 'elsewhere', token: 'ahead', createdAt: Date.now() + 3_600_000 };
    await writeFile(`${store.pathOf('conv')}.lock`, JSON.stringify(ahead));
    expect((await store.mergePrivateData('conv', state('secret'))).privateData.sensitivity).toBe(
      'secret',
    );
  });

  /** Starts a worker that stops itself between reading the session file and renaming the new one. */
  async function stalledWriter(sessionId: string, staleLockMs: number): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(import.meta.dirname, 'stalling-writer.ts'),
        directory,
        sessionId,
        String(staleLockMs),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    workers.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`worker exited with ${code} before stalling`)));
    });
    return child;
  }

  async function resumeAndWait(child: ChildProcess): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The worker says it stalls, then stops itself: on a loaded machine a SIGCONT
    // sent in between is lost, and the worker stops for good. Wait until it has.
    await vi.waitFor(() => expect(processState(child.pid!)).toBe('T'), {
      timeout: 10_000,
      interval: 10,
    });
    child.kill('SIGCONT');
    return exited;
  }

  /** The state letter of a process in /proc (`T`: stopped). */
  function processState(pid: number): string {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  }

  const workers: ChildProcess[] = [];
  afterEach(() => {
    for (const child of workers.splice(0)) {
      child.kill('SIGKILL');
      child.kill('SIGCONT');
    }
  });

  it('never breaks the lock of a stalled worker of this host, so its write cannot lower the level', async () => {
    const store = new FileSessionStore({ directory, staleLockMs: 50, lockTimeoutMs: 1_000 });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    const worker = await stalledWriter('conv', 50);
    const error = await errorOf(store.mergePrivateData('conv', state('secret', { hr: 'secret' })));
    expect((error as SessionStoreError).code).toBe('store-lock-timeout');
    expect(await resumeAndWait(worker)).toBe(0);
    await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    expect((await store.readPrivateData('conv')).privateData).toEqual(
      state('secret', { wiki: 'internal', stalled: 'confidential', hr: 'secret' }),
    );
  });

  it('does not let a stalled worker whose lock was broken write its stale record', async () => {
    const store = new FileSessionStore({ directory, lockTimeoutMs: 5_000 });
    await store.mergePrivateData('conv', state('internal', { wiki: 'internal' }));
    const worker = await stalledWriter('conv', 50);
    // What a process on another host does once it takes the lock for stale.
    await rm(`${store.pathOf('conv')}.lock`);
    await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    expect(await resumeAndWait(worker)).toBe(0);
    expect((await store.readPrivateData('conv')).privateData).toEqual(
      state('secret', { wiki: 'internal', stalled: 'confidential', hr: 'secret' }),
    );
  });
});

describe('FileSessionStore and what else stands at a file’s path', () => {
  const messageOf = (error: unknown): string =>
    error instanceof Error ? error.message : String(error);

  /** A FIFO at `file`: nobody ever writes to it, so an ordinary open for reading waits for ever. */
  function fifoAt(file: string): void {
    const made = spawnSync('mkfifo', ['-m', '600', file]);
    if (made.status !== 0) throw new Error(`mkfifo ${file}: ${made.stderr.toString()}`);
  }

  it('refuses a FIFO as a session file at once, naming it, and reads the other sessions', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('ok', state('secret', { hr: 'secret' }));
    fifoAt(store.pathOf('fifo'));
    for (const attempt of [
      () => store.readPrivateData('fifo'),
      () => store.version('fifo'),
      () => store.load('fifo'),
      () => Session.open({ sessionId: 'fifo', store }),
    ]) {
      const error = await errorOf(attempt());
      expect(error).toBeInstanceOf(SessionStoreError);
      expect(String((error as Error).message)).toContain('is a FIFO; expected a regular file');
    }
    expect(messageOf(await errorOf(store.readPrivateData('fifo')))).toContain(
      'is a FIFO; expected a regular file',
    );
    // Nothing is left waiting in the thread pool: the other sessions are read as ever.
    expect((await store.readPrivateData('ok')).privateData.sensitivity).toBe('secret');
    await store.close();
  });

  it('never follows a symbolic link put in place of a session file: no resume at a lower level', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('high', state('secret', { hr: 'secret' }));
    await store.mergePrivateData('low', state('public'));
    await store.close();
    const high = store.pathOf('high');
    await rm(high);
    await symlink(store.pathOf('low'), high);
    const reopened = new FileSessionStore({ directory });
    const error = await errorOf(Session.open({ sessionId: 'high', store: reopened }));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(error).toMatchObject({ code: 'session-not-loaded' });
    expect(String((error as Error).message)).toContain('is a symbolic link');
    expect(messageOf(await errorOf(reopened.readPrivateData('high')))).toContain(
      'is a symbolic link; expected a regular file',
    );
    // Dangling, it does not read as nothing stored either.
    await rm(high);
    await symlink(path.join(root, 'nowhere.json'), high);
    expect(messageOf(await errorOf(reopened.readPrivateData('high')))).toContain(
      'is a symbolic link',
    );
    await reopened.close();
  });

  it('refuses a FIFO at a session’s lock at once instead of waiting on it', async () => {
    const store = new FileSessionStore({ directory });
    await store.mergePrivateData('locked', state('internal'));
    fifoAt(`${store.pathOf('locked')}.lock`);
    const error = await errorOf(store.mergePrivateData('locked', state('secret')));
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain('is a FIFO; expected a regular file');
    await store.close();
  });
});
