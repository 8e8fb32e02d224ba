/**
 * Crash-safe file replacement, shared by the session store and the server
 * toolkit: a reader — or the file system after a power cut — sees the old
 * content or the new, never a torn mix.
 *
 * This module is pure (Node's `fs` only), so the server toolkit can share it
 * with the client side.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Permission bits of the private files this library writes: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits of the private directories this library creates: owner only. */
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /**
   * Runs once the content is safe in the temporary file, just before the
   * rename; when it throws, the temporary file is removed and `file` is left
   * as it was. A writer under a lock checks here that it still holds it.
   */
  readonly beforeRename?: () => Promise<void>;
}

/**
 * Replaces `file` with `content`: writes a temporary file beside it, fsyncs
 * it, renames it over `file` (atomic on POSIX file systems), then fsyncs the
 * directory so that the rename itself survives a crash.
 *
 * @default mode PRIVATE_FILE_MODE (0600)
 * @throws the underlying `fs` error, or what `beforeRename` threw, after
 *   removing the temporary file.
 *
 * @example
 * ```ts
 * await writeFileAtomic('/var/lib/app/state.json', JSON.stringify(state));
 * ```
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  mode: number = PRIVATE_FILE_MODE,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  // Opened outside the cleanup below: if `wx` fails, the name belongs to
  // someone else and must not be removed.
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/**
 * Makes a rename in `dir` durable by fsyncing the directory.
 *
 * @throws the underlying `fs` error, except EINVAL and ENOTSUP: a few file
 * systems refuse fsync on a directory, and the rename has happened either way.
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    if (!isErrno(error, 'EINVAL') && !isErrno(error, 'ENOTSUP')) throw error;
  } finally {
    await handle.close();
  }
}

/** True when `error` is a Node system error with code `code` (`ENOENT`, `EEXIST`, ...). */
export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
