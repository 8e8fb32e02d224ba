/**
 * An exclusive lock around a read-modify-write of one file, held across
 * processes. The normal and the isolated deployment of a server share the
 * private-data directory, so an in-process mutex alone would let two
 * concurrent updates lose one another (and a level could drop).
 *
 * The lock is a `<file>.lock` created with `O_EXCL`; a lock older than
 * `staleMs` is taken to belong to a crashed process and is broken.
 */
import { open, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { PrivateDataError } from './errors.js';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** Give up after this long. @default 5_000 */
  readonly timeoutMs?: number;
  /** A lock file older than this is broken. @default 30_000 */
  readonly staleMs?: number;
}

/** Default of {@link FileLockOptions.timeoutMs}. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
/** Default of {@link FileLockOptions.staleMs}. */
export const DEFAULT_LOCK_STALE_MS = 30_000;

// Callers in this process queue here first, so they do not poll the lock
// file against each other.
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding the lock of `file`.
 *
 * @throws {PrivateDataError} when the lock is not acquired within `timeoutMs`.
 */
export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const previous = queues.get(file) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => withLockFile(file, fn, options));
  const tail = run.catch(() => undefined);
  queues.set(file, tail);
  try {
    return await run;
  } finally {
    if (queues.get(file) === tail) queues.delete(file);
  }
}

async function withLockFile<T>(
  file: string,
  fn: () => Promise<T>,
  options: FileLockOptions,
): Promise<T> {
  const lockPath = `${file}.lock`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const staleMs = options.staleMs ?? DEFAULT_LOCK_STALE_MS;
  const deadline = Date.now() + timeoutMs;
  let delayMs = 5;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = await stat(lockPath).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > staleMs) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new PrivateDataError(
        `could not lock the private-data state within ${timeoutMs} ms; another process holds it`,
      );
    }
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, 100);
  }
  try {
    return await fn();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}
