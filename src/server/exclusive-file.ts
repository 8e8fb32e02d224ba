/**
 * Creating a new file in a directory that someone else may change at the
 * same moment (a sandbox that mounts the workspace, a tool extracting an
 * archive). A path checked and then opened is walked twice, and a symlink
 * swapped in between sends the write elsewhere. Here the directory is
 * opened once, without following a symlink, its real path is read from its
 * descriptor, and the file is created through that descriptor
 * (`/proc/self/fd/<dir>/<name>`), so the kernel never walks the path again.
 *
 * Without `/proc` (not Linux) the file is created by path and checked
 * afterwards by inode: a narrow race remains there (see docs/server.md).
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { WorkspacePathError } from './errors.js';
import { isInside } from './workspace.js';

/** Where Linux shows the path of each open descriptor. */
export const PROC_FD_DIR = '/proc/self/fd';

/** Options of {@link createExclusiveFile}. */
export interface CreateExclusiveFileOptions {
  /** Directory of descriptor links; a directory that does not exist selects the fallback. @default PROC_FD_DIR */
  readonly procFdDir?: string;
}

/**
 * Creates `dir/name` (which must not exist) and writes `text` to it, but
 * only when the file really lies inside `realBase`.
 *
 * @param dir - Host path of the directory; it must exist and must not be a symlink.
 * @param name - A single path segment.
 * @param realBase - A real path (no symlinks) the file must stay inside.
 * @param shownPath - The path the agent sees, for error messages.
 * @throws {WorkspacePathError} `traversal` when `dir` is a symlink or the
 *   created file would lie outside `realBase` (the stray file is removed).
 * @throws An `EEXIST` error when the file exists already.
 */
export async function createExclusiveFile(
  dir: string,
  name: string,
  text: string,
  realBase: string,
  shownPath: string,
  options: CreateExclusiveFileOptions = {},
): Promise<void> {
  const procFdDir = options.procFdDir ?? PROC_FD_DIR;
  const outside = (): WorkspacePathError =>
    new WorkspacePathError(
      'traversal',
      `path ${JSON.stringify(shownPath)} resolves outside the workspace through a symlink; ` +
        `its directory must be a plain directory of the workspace, not a symlink`,
    );
  let dirHandle: FileHandle;
  try {
    dirHandle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    // ELOOP: `dir` is a symlink; ENOTDIR: it is not a directory.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw outside();
    throw error;
  }
  try {
    const realDir = await readlink(path.join(procFdDir, String(dirHandle.fd))).catch(
      () => undefined,
    );
    const dirInside =
      realDir === undefined
        ? await sameDirectoryInside(dirHandle, dir, realBase)
        : isInside(realDir, realBase);
    if (!dirInside) throw outside();
    const target =
      realDir === undefined
        ? path.join(dir, name)
        : path.join(procFdDir, String(dirHandle.fd), name);
    const file = await open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600, // the session's owner only: a saved result may hold private data
    );
    try {
      if (!(await createdInside(file, dirHandle, dir, name, realBase, procFdDir))) {
        throw outside();
      }
      await file.writeFile(text, 'utf8');
    } finally {
      await file.close();
    }
  } finally {
    await dirHandle.close();
  }
}

/**
 * Whether the created file lies inside `realBase`. When it does not, the
 * file (still empty) is unlinked where it really is, if that can be known.
 */
async function createdInside(
  file: FileHandle,
  dirHandle: FileHandle,
  dir: string,
  name: string,
  realBase: string,
  procFdDir: string,
): Promise<boolean> {
  const real = await readlink(path.join(procFdDir, String(file.fd))).catch(() => undefined);
  if (real !== undefined) {
    if (isInside(real, realBase)) return true;
    await unlink(real).catch(() => undefined);
    return false;
  }
  // No /proc: the file now named `dir/name` must be the one created, and
  // `dir` must still be the directory opened, inside `realBase`. A swap
  // back and forth between these checks is not caught.
  const named = path.join(dir, name);
  const [namedStat, fileStat] = await Promise.all([
    lstat(named).catch(() => undefined),
    file.stat(),
  ]);
  const sameFile =
    namedStat !== undefined && namedStat.dev === fileStat.dev && namedStat.ino === fileStat.ino;
  if (sameFile && (await sameDirectoryInside(dirHandle, dir, realBase))) return true;
  if (sameFile) await unlink(named).catch(() => undefined);
  return false;
}

/** Without /proc: whether `dir` is still the directory opened, not a symlink, and inside `realBase`. */
async function sameDirectoryInside(
  dirHandle: FileHandle,
  dir: string,
  realBase: string,
): Promise<boolean> {
  const [named, opened, realDir] = await Promise.all([
    lstat(dir).catch(() => undefined),
    dirHandle.stat(),
    realpath(dir).catch(() => undefined),
  ]);
  return (
    named !== undefined &&
    !named.isSymbolicLink() &&
    named.dev === opened.dev &&
    named.ino === opened.ino &&
    realDir !== undefined &&
    isInside(realDir, realBase)
  );
}
