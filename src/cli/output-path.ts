/**
 * Where `codegen -o` and `debug -o` may write. A symbolic link at the
 * output path, or at a directory on the way to it in a directory others
 * can write to, may have been planted there to send the file somewhere
 * else (over a file of the user's, such as a web root's `index.html`):
 * both are refused.
 */
import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT_CODES } from './exit-codes.js';

/**
 * Checks `file` (an absolute path) before it is written: it must not be a
 * symbolic link or a directory, the nearest part of its path that exists
 * must be a directory (mkdir creates the rest), and no directory on its
 * path, up to the root, may be a symbolic link that sits in a directory
 * others can write to (a link such as macOS's `/tmp`, in `/`, is the
 * system's own).
 *
 * @throws CliError (exit 2) naming the path when one is a symbolic link,
 * when it is a directory, or when a file stands where a directory must.
 */
export async function checkOutputPath(file: string): Promise<void> {
  const own = await lstatOrUndefined(file);
  if (own?.isSymbolicLink() === true) {
    throw new CliError(
      EXIT_CODES.usage,
      `refusing to write ${file}: it is a symbolic link; remove it or choose another path`,
    );
  }
  if (own?.isDirectory() === true) {
    throw new CliError(
      EXIT_CODES.usage,
      `refusing to write ${file}: it is a directory; give the path of a file, e.g. ${path.join(file, 'tools.ts')}`,
    );
  }
  await checkDirectories(file, path.dirname(file), own !== undefined);
}

/**
 * Checks `directory` (an absolute path) before files are written into it
 * by rename: it, and every directory on its path up to the root, must not
 * be a symbolic link that sits in a directory others can write to, and the
 * nearest part of it that exists must be a directory.
 *
 * @throws CliError (exit 2) naming the path, as {@link checkOutputPath}.
 */
export async function checkOutputDirectory(directory: string): Promise<void> {
  await checkDirectories(directory, directory, false);
}

/** The directories from `first` up to the root, for a write of `written` (see {@link checkOutputPath}). */
async function checkDirectories(written: string, first: string, exists: boolean): Promise<void> {
  let existing = exists;
  // Every directory on the way, up to the root: a link planted above the
  // first one that exists leads the path (and what mkdir creates) elsewhere.
  for (let dir = first; ; dir = path.dirname(dir)) {
    const stats = await lstatOrUndefined(dir);
    if (stats?.isSymbolicLink() === true && (await othersCanWrite(path.dirname(dir)))) {
      throw new CliError(
        EXIT_CODES.usage,
        `refusing to write ${written}: ${dir} is a symbolic link in a directory others can write to`,
      );
    }
    if (!existing && stats !== undefined) {
      existing = true;
      // A link allowed above is followed: what it points to must be a directory.
      const target = stats.isSymbolicLink() ? await statOrUndefined(dir) : stats;
      if (target?.isDirectory() !== true) {
        throw new CliError(
          EXIT_CODES.usage,
          `refusing to write ${written}: ${dir} is not a directory`,
        );
      }
    }
    if (path.dirname(dir) === dir) return;
  }
}

async function othersCanWrite(dir: string): Promise<boolean> {
  const stats = await lstatOrUndefined(dir);
  return stats !== undefined && (stats.mode & 0o022) !== 0;
}

async function statOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch {
    return undefined;
  }
}

async function lstatOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch {
    return undefined;
  }
}
