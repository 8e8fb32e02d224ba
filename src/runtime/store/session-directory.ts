/**
 * The session directory: a path no other user can change, checked one
 * name at a time (links followed by hand, missing directories created
 * private), and its identity kept so that a later call notices when it
 * was replaced.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIRECTORY_MODE, isErrno } from '../../core/atomic-file.js';
import { SessionStoreError } from './errors.js';

/** The session directory as checked: what it really is, to notice it was replaced. */
export interface CheckedDirectory {
  /** The directory's path with every symbolic link resolved. */
  readonly realPath: string;
  readonly dev: number;
  readonly ino: number;
  /** Its mode and owner when checked: a change to either is a reason to check it again. */
  readonly mode: number;
  readonly uid: number;
}

/** Symbolic links followed on the way before giving up, as the kernel does (ELOOP). */
const MAX_SYMLINKS = 40;

/**
 * Creates the session directory (mode 0700, with any missing parents) and
 * checks that no other user can read it or put another directory in its
 * place: it is not a symbolic link, belongs to this user and has no bits for
 * group or others; every directory on the way to it, symbolic links
 * followed, belongs to root or this user and is writable by nobody else —
 * or, like `/tmp`, has the sticky bit and the entry taken from it belongs to
 * root or this user. A directory is never chmodded: one too open is refused.
 * Where there are no uids (Windows), only the symbolic link is refused.
 *
 * @throws SessionStoreError `store-config` naming the path and what is expected.
 */
export async function prepareSessionDirectory(directory: string): Promise<CheckedDirectory> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const parent =
    uid === undefined
      ? await mkdir(path.dirname(directory), {
          recursive: true,
          mode: PRIVATE_DIRECTORY_MODE,
        }).then(() => ({ real: path.dirname(directory), info: undefined }))
      : await walkToDirectory(directory, path.dirname(directory), uid);
  const realPath = path.join(parent.real, path.basename(directory));
  const info = await lstatOrCreate(realPath);
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw directoryError(
      directory,
      `it is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; expected a directory of its own (not a link to one)`,
    );
  }
  if (uid !== undefined && parent.info !== undefined) {
    assertSafeEntry(directory, parent.real, parent.info, realPath, info, uid);
    if (info.uid !== uid) {
      throw directoryError(
        directory,
        `it belongs to uid ${info.uid}; expected uid ${uid}, this user — choose a directory of your own`,
      );
    }
    if ((info.mode & 0o077) !== 0) {
      throw directoryError(
        directory,
        `it has mode ${modeText(info)}; expected 700 (nothing for group or others) — run chmod 700 ${realPath}`,
      );
    }
  }
  return Object.freeze({ realPath, dev: info.dev, ino: info.ino, mode: info.mode, uid: info.uid });
}

/**
 * Resolves `target` one name at a time, following symbolic links and
 * creating missing directories, checking each entry against the directory
 * that holds it. Returns the real path and its `stat`.
 */
async function walkToDirectory(
  directory: string,
  target: string,
  uid: number,
): Promise<{ readonly real: string; readonly info: Stats }> {
  const names = target.split(path.sep).filter((name) => name !== '');
  let real = path.parse(target).root;
  let info = await stat(real);
  let links = 0;
  for (let name = names.shift(); name !== undefined; name = names.shift()) {
    if (name === '.') continue;
    if (name === '..') {
      real = path.dirname(real);
      info = await stat(real);
      continue;
    }
    const next = path.join(real, name);
    const entry = await lstatOrCreate(next);
    assertSafeEntry(directory, real, info, next, entry, uid);
    if (entry.isSymbolicLink()) {
      links += 1;
      if (links > MAX_SYMLINKS) {
        throw directoryError(
          directory,
          `more than ${MAX_SYMLINKS} symbolic links on the way; expected a path that resolves`,
        );
      }
      const link = await readlink(next);
      names.unshift(...link.split(path.sep).filter((part) => part !== ''));
      if (path.isAbsolute(link)) {
        real = path.parse(link).root;
        info = await stat(real);
      }
      continue;
    }
    if (!entry.isDirectory()) {
      throw directoryError(directory, `${next} on the way is not a directory`);
    }
    real = next;
    info = entry;
  }
  return { real, info };
}

/**
 * Refuses `entry` (with `entryInfo`, from `lstat`) of `dir` (with `dirInfo`)
 * when a user other than root and this one could replace it.
 */
function assertSafeEntry(
  directory: string,
  dir: string,
  dirInfo: Stats,
  entry: string,
  entryInfo: Stats,
  uid: number,
): void {
  const expected = 'expected every directory on the way to belong to root or this user';
  if (dirInfo.uid !== 0 && dirInfo.uid !== uid) {
    throw directoryError(
      directory,
      `${dir} on the way belongs to uid ${dirInfo.uid}, who could replace ${entry}; ${expected}`,
    );
  }
  if ((dirInfo.mode & 0o022) === 0) return;
  if ((dirInfo.mode & 0o1000) === 0) {
    throw directoryError(
      directory,
      `${dir} on the way has mode ${modeText(dirInfo)}: other users can write it and could replace ${entry}; ${expected} and be writable by nobody else, or to have the sticky bit (like /tmp)`,
    );
  }
  if (entryInfo.uid !== 0 && entryInfo.uid !== uid) {
    throw directoryError(
      directory,
      `${entry} belongs to uid ${entryInfo.uid} in the shared directory ${dir} (mode ${modeText(dirInfo)}), so that user could replace it; expected it to belong to root or this user`,
    );
  }
}

/** `lstat` of `file`; a missing one is created as a private directory first. */
async function lstatOrCreate(file: string): Promise<Stats> {
  try {
    return await lstat(file);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
  await mkdir(file, { mode: PRIVATE_DIRECTORY_MODE }).catch((error: unknown) => {
    if (!isErrno(error, 'EEXIST')) throw error;
  });
  return lstat(file);
}

function modeText(info: Stats): string {
  return (info.mode & 0o7777).toString(8);
}

function directoryError(directory: string, problem: string): SessionStoreError {
  return new SessionStoreError(
    'store-config',
    `session directory ${directory} is refused: ${problem}`,
  );
}
