/**
 * A lock held across processes around one file's read-modify-write, shared
 * by the file session store and the server toolkit's private-data state.
 * Without it two processes updating at once could each read the old state,
 * and the second write would drop the first one's escalation.
 *
 * The lock is a file, created complete and atomically by writing the owner
 * (pid, host, token) to a temporary file and hard-linking it into place
 * (`link` fails with EEXIST when the lock exists). A lock whose owner
 * process on this host is gone is broken at once; one from another host, one
 * whose pid may have been reused, or one not written by this module, only
 * after `staleMs`. Breaking is itself serialised by a second lock,
 * `<lockPath>.break`, and removes the lock only if it still names the owner
 * that was found stale — so two processes breaking the same stale lock
 * cannot remove a fresh one.
 *
 * Callers in one process queue per lock path before touching the file, so
 * they do not poll it against each other.
 *
 * This module is pure (Node's `fs` and `os` only), so the server toolkit can
 * share it with the client side.
 */
import { randomUUID } from 'node:crypto';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { PRIVATE_FILE_MODE, isErrno } from './atomic-file.js';
import { pause } from './pause.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /**
   * Give up waiting for another process's lock after this long, in
   * milliseconds. Waiting behind callers of the same process is not counted.
   */
  readonly timeoutMs: number;
  /** A lock older than this is broken even when its owner cannot be checked, in milliseconds. */
  readonly staleMs: number;
  /** Stops waiting, in the queue or for the lock; `fn` is then never called. */
  readonly signal?: AbortSignal;
}

/** The lock was not acquired within `timeoutMs`: another process holds it. */
export class FileLockTimeoutError extends Error {
  override readonly name: string = 'FileLockTimeoutError';
  readonly code = 'file-lock-timeout' as const;
  constructor(
    /** The lock file that could not be created. */
    readonly lockPath: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
}

type Holder =
  | { readonly state: 'gone' }
  | { readonly state: 'held'; readonly owner: LockOwner | undefined; readonly raw: string };

/** Longest pause between two attempts, in milliseconds. */
const MAX_RETRY_DELAY_MS = 50;

// One tail per resolved lock path: it settles when the last caller queued
// for that path is done. Tails never reject.
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` while holding the lock file `lockPath`, after the callers of this
 * process already waiting for it.
 *
 * @throws {FileLockTimeoutError} when the lock is not acquired within `timeoutMs`.
 * @throws the signal's reason when `signal` aborts before the lock is taken.
 *
 * @example
 * ```ts
 * await withFileLock(`${file}.lock`, { timeoutMs: 5_000, staleMs: 30_000 }, async () => {
 *   await writeFileAtomic(file, merge(await readFile(file, 'utf8'), change));
 * });
 * ```
 */
export async function withFileLock<T>(
  lockPath: string,
  options: FileLockOptions,
  fn: () => Promise<T>,
): Promise<T> {
  const key = path.resolve(lockPath);
  const previous = queues.get(key) ?? Promise.resolve();
  let leave!: () => void;
  const turn = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const tail = previous.then(() => turn);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  try {
    await waitTurn(previous, options.signal);
    const token = await acquire(lockPath, options);
    try {
      return await fn();
    } finally {
      await releaseIfOwned(lockPath, token);
    }
  } finally {
    leave();
  }
}

/** Resolves when `previous` does; throws the signal's reason if it aborts first. */
async function waitTurn(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return previous;
  if (!signal.aborted) {
    let stop!: () => void;
    const aborted = new Promise<void>((resolve) => {
      stop = resolve;
    });
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([previous, aborted]);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
  signal.throwIfAborted();
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomUUID(),
    createdAt: Date.now(),
  };
  const deadline = Date.now() + options.timeoutMs;
  let delayMs = 1;
  for (;;) {
    options.signal?.throwIfAborted();
    if (await createExclusive(lockPath, owner)) return owner.token;
    const holder = await readHolder(lockPath);
    if (holder.state === 'gone') continue;
    if (await isStale(lockPath, holder, options.staleMs)) {
      await breakStale(lockPath, holder, options.staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder.owner === undefined ? 'another process' : `process ${holder.owner.pid}`;
      throw new FileLockTimeoutError(
        lockPath,
        `could not lock ${lockPath} within ${options.timeoutMs} ms; ${who} holds it`,
      );
    }
    await pause(delayMs, options.signal);
    delayMs = Math.min(delayMs * 2, MAX_RETRY_DELAY_MS);
  }
}

/** Creates `lockPath` holding `owner`, complete, or returns false when it exists. */
async function createExclusive(lockPath: string, owner: LockOwner): Promise<boolean> {
  const temp = `${lockPath}.${owner.token}.tmp`;
  await writeFile(temp, JSON.stringify(owner), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if (isErrno(error, 'EEXIST')) return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function readHolder(lockPath: string): Promise<Holder> {
  let raw: string;
  try {
    raw = await readFile(lockPath, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { state: 'gone' };
    throw error;
  }
  return { state: 'held', owner: parseOwner(raw), raw };
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (
      typeof value.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.token === 'string' &&
      typeof value.createdAt === 'number'
    ) {
      return value as LockOwner;
    }
  } catch {
    // Not ours or damaged: judged by its age alone.
  }
  return undefined;
}

async function isStale(file: string, holder: Holder, staleMs: number): Promise<boolean> {
  if (holder.state === 'gone') return false;
  const { owner } = holder;
  if (owner !== undefined) {
    if (owner.host === hostname() && !isProcessAlive(owner.pid)) return true;
    return Date.now() - owner.createdAt > staleMs;
  }
  // Not written by this module (locks are created complete): judge by its age alone.
  const modified = await stat(file).then(
    (s) => s.mtimeMs,
    () => Date.now(),
  );
  return Date.now() - modified > staleMs;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrno(error, 'EPERM');
  }
}

async function breakStale(lockPath: string, stale: Holder, staleMs: number): Promise<void> {
  if (stale.state === 'gone') return;
  const breakPath = `${lockPath}.break`;
  const breaker: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomUUID(),
    createdAt: Date.now(),
  };
  if (!(await createExclusive(breakPath, breaker))) {
    // Someone else is breaking it; a breaker that died doing so is cleared the same way.
    const other = await readHolder(breakPath);
    if (await isStale(breakPath, other, staleMs)) await unlinkIfSame(breakPath, other);
    return;
  }
  try {
    const now = await readHolder(lockPath);
    if (now.state === 'held' && now.raw === stale.raw) {
      await unlink(lockPath).catch(() => undefined);
    }
  } finally {
    await releaseIfOwned(breakPath, breaker.token);
  }
}

async function unlinkIfSame(file: string, seen: Holder): Promise<void> {
  if (seen.state === 'gone') return;
  const now = await readHolder(file);
  if (now.state === 'held' && now.raw === seen.raw) await unlink(file).catch(() => undefined);
}

async function releaseIfOwned(lockPath: string, token: string): Promise<void> {
  const holder = await readHolder(lockPath).catch((): Holder => ({ state: 'gone' }));
  if (holder.state === 'held' && holder.owner?.token === token) {
    await unlink(lockPath).catch(() => undefined);
  }
}
