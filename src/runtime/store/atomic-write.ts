import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Permission bits of every file the file store writes: owner read/write only. */
export const STORE_FILE_MODE = 0o600;
/** Permission bits of the file store's directory: owner only. */
export const STORE_DIRECTORY_MODE = 0o700;

/**
 * Replaces `file` with `content` so that a reader — or the file system after
 * a crash — sees the old content or the new, never a mix: write a temporary
 * file beside it, fsync it, rename it over `file`, fsync the directory.
 *
 * @throws the underlying `fs` error, after removing the temporary file.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', STORE_FILE_MODE);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes a rename in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // A few file systems refuse fsync on directories; the rename happened either way.
    if (!isErrno(error, 'EINVAL') && !isErrno(error, 'ENOTSUP')) throw error;
  } finally {
    await handle.close();
  }
}

/** True when `error` is a Node system error with code `code`. */
export function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
