/**
 * A lock held across processes around one session file's read-modify-write.
 * Without it two workers merging at once could each read the old state and
 * the second write would drop the first one's escalation.
 *
 * The lock is `<file>.lock`, created complete and atomically by writing the
 * owner (pid, host, token) to a temporary file and hard-linking it into
 * place (`link` fails with EEXIST when the lock exists). A lock whose owner
 * process on this host is gone is broken at once; one from another host, or
 * one whose pid may have been reused, only after `staleMs`. Breaking is
 * itself serialised by a second lock, `<file>.lock.break`, and removes the
 * lock only if it still names the owner that was found stale — so two
 * processes breaking the same stale lock cannot remove a fresh one.
 */
import { randomUUID } from 'node:crypto';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { STORE_FILE_MODE, isErrno } from './atomic-write.js';
import { pause } from './bounded-call.js';
import { SessionStoreError } from './errors.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up waiting for the lock after this long, in milliseconds. */
  readonly timeoutMs: number;
  /** A lock older than this is broken even when its owner cannot be checked, in milliseconds. */
  readonly staleMs: number;
  readonly signal?: AbortSignal;
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

/**
 * Runs `fn` while holding the lock of `lockPath`.
 *
 * @throws SessionStoreError `store-lock-timeout` when the lock is not acquired within `timeoutMs`.
 */
export async function withFileLock<T>(
  lockPath: string,
  options: FileLockOptions,
  fn: () => Promise<T>,
): Promise<T> {
  const token = await acquire(lockPath, options);
  try {
    return await fn();
  } finally {
    await releaseIfOwned(lockPath, token);
  }
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
      throw new SessionStoreError(
        'store-lock-timeout',
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
  await writeFile(temp, JSON.stringify(owner), { mode: STORE_FILE_MODE, flag: 'wx' });
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
    if (now.state === 'held' && now.raw === stale.raw)
      await unlink(lockPath).catch(() => undefined);
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
