/**
 * Reading a file that must be a regular one, at a path that someone else
 * could have replaced (a session's file, a lock, an overrides file): a
 * symbolic link there is not followed (it could lead to a record written
 * to look like another, or out of the directory), and a FIFO neither
 * blocks the open nor, while nobody writes to it, a thread of libuv's pool
 * for ever.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { isErrno } from './atomic-file.js';

/**
 * Read-only, not through a link at the last step, and without waiting for
 * a writer (`O_NOFOLLOW` and `O_NONBLOCK` are not defined on Windows,
 * where the `fstat` below is the check).
 */
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** What stands at a path where a regular file was expected. */
export type NotRegularKind =
  'a symbolic link' | 'a directory' | 'a FIFO' | 'a socket' | 'a device' | 'not a regular file';

/** A path where a regular file was expected holds something else; `kind` says what. */
export class NotARegularFileError extends Error {
  override readonly name: string = 'NotARegularFileError';

  constructor(
    readonly file: string,
    readonly kind: NotRegularKind,
    options?: ErrorOptions,
  ) {
    super(`${file} is ${kind}; expected a regular file`, options);
  }
}

/** An open regular file, and what `fstat` said of it. */
export interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
}

/**
 * A handle on `file`, with its stats, or undefined when nothing is there.
 * @throws NotARegularFileError when it is a symbolic link or not a regular
 *   file (a FIFO, a socket, a device, a directory).
 */
export async function openRegularFile(file: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, FLAGS);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    if (isErrno(error, 'ELOOP')) {
      throw new NotARegularFileError(file, 'a symbolic link', { cause: error });
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotARegularFileError(file, kindOf(stats));
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
  signal?.throwIfAborted();
  const opened = await openRegularFile(file);
  if (opened === undefined) return undefined;
  const { handle } = opened;
  try {
    return await handle.readFile({ encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  } finally {
    await handle.close();
  }
}

/** What `stats` say stands where a regular file was expected. */
export function kindOf(stats: Stats): NotRegularKind {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}
