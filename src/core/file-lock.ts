/**
 * A lock held across processes around one file's read-modify-write, shared
 * by the file session store and the server toolkit's private-data state.
 * Without it two processes updating at once could each read the old state,
 * and the second write would drop the first one's escalation.
 *
 * The lock is a file, created complete and atomically by writing the owner
 * (pid, host, token, and on Linux the process's start time) to a temporary
 * file and hard-linking it into place (`link` fails with EEXIST when the lock
 * exists).
 *
 * Breaking a lock:
 * - an owner on this host is asked directly. Gone (or a zombie, or its pid
 *   now names a process with another start time) — broken at once. Running
 *   — never broken, however long it holds the lock: a worker stalled by
 *   swap, a debugger or SIGSTOP is still between its read and its write,
 *   and breaking its lock would let its stale write land over a newer one.
 *   Where the start time cannot be read (no `/proc`, a lock of an older
 *   version) a running pid is taken to be the owner; a reused pid then costs
 *   timeouts, never a lost escalation.
 * - a lock from another host, or one not written by this module, after it
 *   is `staleMs` old, measured here: the longer of its file's age by this
 *   host's clock and how long this process has seen that same lock. The
 *   owner's own clock is never trusted, so a host whose clock runs ahead
 *   cannot block writes for longer.
 *
 * Breaking is serialised by a second lock, `<lockPath>.break`, and removes
 * the lock only if it still names the owner that was found stale. Because a
 * lock from another host can still be broken under a live owner, `fn` gets
 * the lock as a {@link HeldFileLock} and checks it just before it makes its
 * change visible; a lost lock runs `fn` again under a new one.
 *
 * Callers in one process queue per lock path before touching the file, so
 * they do not poll it against each other.
 *
 * This module is pure (Node's `fs` and `os` only), so the server toolkit can
 * share it with the client side.
 */
import { randomUUID } from 'node:crypto';
import { link, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PRIVATE_FILE_MODE, isErrno } from './atomic-file.js';
import { pause } from './pause.js';
import { processStart } from './process-start.js';
import { readRegularFile } from './regular-file.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /**
   * Give up waiting for another process's lock after this long, in
   * milliseconds. Waiting behind callers of the same process is not counted.
   */
  readonly timeoutMs: number;
  /**
   * A lock whose owner cannot be asked (another host, not written by this
   * module) is broken once it is this old, in milliseconds, measured on this
   * host. A lock of a running process of this host is never broken.
   */
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

/**
 * The lock was broken while `fn` held it (it was taken for stale by a process
 * on another host): `fn` must not make its change visible.
 * {@link withFileLock} then runs `fn` again under a new lock.
 */
export class FileLockLostError extends Error {
  override readonly name: string = 'FileLockLostError';
  readonly code = 'file-lock-lost' as const;
  constructor(
    /** The lock file that no longer names this holder. */
    readonly lockPath: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The lock as `fn` holds it. */
export interface HeldFileLock {
  /** The lock file. */
  readonly lockPath: string;
  /**
   * Checks that the lock file still names this holder. Call it just before
   * the change becomes visible (`writeFileAtomic`'s `beforeRename`).
   *
   * @throws {FileLockLostError} when the lock was broken meanwhile.
   */
  assertHeld(): Promise<void>;
}

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  /** Milliseconds since the epoch, by the owner's clock; informative only. */
  readonly createdAt: number;
  /** The owner process's start (boot id and `/proc/<pid>/stat` field 22), where readable. */
  readonly start?: string;
}

type Holder =
  | { readonly state: 'gone' }
  | { readonly state: 'held'; readonly owner: LockOwner | undefined; readonly raw: string };

/** Longest pause between two attempts, in milliseconds. */
const MAX_RETRY_DELAY_MS = 50;
/** How many times `fn` runs when its lock keeps being broken under it. */
const MAX_RUNS = 3;

// One tail per resolved lock path: it settles when the last caller queued
// for that path is done. Tails never reject.
const queues = new Map<string, Promise<void>>();

// The lock (its exact text) each resolved lock path was last seen holding,
// and since when by this process's monotonic clock: how long a lock has been
// there, measured here. An entry is dropped when this process takes the lock.
const sightings = new Map<string, { readonly raw: string; readonly sinceMs: number }>();

/**
 * Runs `fn` while holding the lock file `lockPath`, after the callers of this
 * process already waiting for it. When `fn` throws the {@link FileLockLostError}
 * of `held.assertHeld()`, it made nothing visible: the lock is taken again
 * and `fn` runs again, up to three times in all.
 *
 * @throws {FileLockTimeoutError} when the lock is not acquired within `timeoutMs`.
 * @throws {FileLockLostError} when the lock was broken under every run of `fn`.
 * @throws the signal's reason when `signal` aborts before the lock is taken.
 *
 * @example
 * ```ts
 * await withFileLock(`${file}.lock`, { timeoutMs: 5_000, staleMs: 30_000 }, async (held) => {
 *   const next = merge(await readFile(file, 'utf8'), change);
 *   await writeFileAtomic(file, next, PRIVATE_FILE_MODE, { beforeRename: () => held.assertHeld() });
 * });
 * ```
 */
export async function withFileLock<T>(
  lockPath: string,
  options: FileLockOptions,
  fn: (held: HeldFileLock) => Promise<T>,
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
    for (let run = 1; ; run += 1) {
      const token = await acquire(lockPath, options);
      try {
        return await fn(heldLock(lockPath, token));
      } catch (error) {
        const lost = error instanceof FileLockLostError && error.lockPath === lockPath;
        if (!lost || run >= MAX_RUNS) throw error;
      } finally {
        await releaseIfOwned(lockPath, token);
      }
    }
  } finally {
    leave();
  }
}

function heldLock(lockPath: string, token: string): HeldFileLock {
  return Object.freeze({
    lockPath,
    async assertHeld(): Promise<void> {
      const holder = await readHolder(lockPath);
      if (holder.state === 'held' && holder.owner?.token === token) return;
      throw new FileLockLostError(
        lockPath,
        `lock ${lockPath} was broken while this process held it; nothing was written`,
      );
    },
  });
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
  const owner = await newOwner();
  const deadline = Date.now() + options.timeoutMs;
  let delayMs = 1;
  for (;;) {
    options.signal?.throwIfAborted();
    if (await createExclusive(lockPath, owner)) {
      sightings.delete(path.resolve(lockPath));
      return owner.token;
    }
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

async function newOwner(): Promise<LockOwner> {
  const start = await processStart(process.pid);
  return {
    pid: process.pid,
    host: hostname(),
    token: randomUUID(),
    createdAt: Date.now(),
    ...(start === undefined ? {} : { start: start.start }),
  };
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
  // A FIFO put there would block the read for ever; a link is not followed.
  const raw = await readRegularFile(lockPath);
  if (raw === undefined) return { state: 'gone' };
  return { state: 'held', owner: parseOwner(raw), raw };
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (
      typeof value.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.token === 'string' &&
      typeof value.createdAt === 'number' &&
      (value.start === undefined || typeof value.start === 'string')
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
  if (owner !== undefined && owner.host === hostname()) return !(await isRunning(owner));
  return (await ageHereMs(file, holder.raw)) > staleMs;
}

/**
 * Whether the process that wrote `owner`, on this host, still runs. A pid
 * that answers is that process unless its start time shows it was reused;
 * without a start time to compare, it is taken to be the owner (never
 * breaking a live owner's lock matters more than freeing a reused pid's).
 */
async function isRunning(owner: LockOwner): Promise<boolean> {
  if (!isProcessAlive(owner.pid)) return false;
  const now = await processStart(owner.pid);
  if (now === undefined) return true;
  if (now.zombie) return false;
  return owner.start === undefined || owner.start === now.start;
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

/**
 * How old the lock in `file` (whose text is `raw`) is, measured on this
 * host: the longer of its age by the file's mtime and how long this process
 * has seen this same lock. A clock running ahead where it was written makes
 * the first negative; the second still grows.
 */
async function ageHereMs(file: string, raw: string): Promise<number> {
  const key = path.resolve(file);
  const nowMs = performance.now();
  const seen = sightings.get(key);
  if (seen?.raw !== raw) sightings.set(key, { raw, sinceMs: nowMs });
  const seenForMs = seen?.raw === raw ? nowMs - seen.sinceMs : 0;
  const modifiedAgoMs = await stat(file).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
  return Math.max(seenForMs, modifiedAgoMs);
}

async function breakStale(lockPath: string, stale: Holder, staleMs: number): Promise<void> {
  if (stale.state === 'gone') return;
  const breakPath = `${lockPath}.break`;
  const breaker = await newOwner();
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
