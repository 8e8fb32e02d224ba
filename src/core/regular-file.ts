/**
 * Reading a file that must be a regular one, at a path that someone else
 * could have replaced (a session's file, a lock): a symbolic link there is
 * not followed (it could lead to a record written to look like another),
 * and a FIFO neither blocks the open nor, while nobody writes to it, a
 * thread of libuv's pool for ever.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { isErrno } from './atomic-file.js';

/** Read-only, not through a link at the last step, and without waiting for a writer. */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An open regular file, and what `fstat` said of it. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
}

/**
 * A handle on `file`, with its stats, or undefined when nothing is there.
 * @throws Error naming `file` when it is a symbolic link or not a regular
 *   file (a FIFO, a socket, a device, a directory).
 */
export async function openRegularFile(file: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, FLAGS);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    if (isErrno(error, 'ELOOP')) {
      throw new Error(`${file} is a symbolic link; expected a regular file`, { cause: error });
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${file} is ${kindOf(stats)}; expected a regular file`);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The text of `file`, or undefined when nothing is there.
 * @throws as {@link openRegularFile}, or when reading fails or `signal` aborts.
 */
export async function readRegularFile(
  file: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const opened = await openRegularFile(file);
  if (opened === undefined) return undefined;
  const { handle } = opened;
  try {
    return await handle.readFile({ encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  } finally {
    await handle.close();
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
