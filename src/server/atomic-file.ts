/**
 * Crash-safe file replacement: a reader sees the old content or the new,
 * never a torn mix, and a power cut after `writeFileAtomic` resolves keeps
 * the new content.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Permission bits of files the toolkit writes for itself: owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Replaces `file` with `content`: writes a temporary file beside it, fsyncs
 * it, renames it over `file` (atomic on POSIX file systems), then fsyncs the
 * directory so that the rename itself is durable.
 *
 * @throws the underlying `fs` error; the temporary file is removed first.
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  mode: number = PRIVATE_FILE_MODE,
): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
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
  await syncDirectory(path.dirname(file));
}

async function syncDirectory(dir: string): Promise<void> {
  // Some file systems refuse fsync on a directory handle; the rename has
  // happened either way, so durability of the entry is best effort there.
  const handle = await open(dir, 'r').catch(() => undefined);
  if (handle === undefined) return;
  try {
    await handle.sync();
  } catch {
    // See above.
  } finally {
    await handle.close();
  }
}
