/**
 * Reading and writing a file of the caller's workspace through
 * descriptors, for tools whose agent may change the workspace at the same
 * moment (a sandbox that mounts it, a tool extracting an archive there).
 *
 * A path checked by `workspaceToHostPath` and then opened by path is
 * walked twice by the kernel: a directory swapped for a symlink in between
 * sends the open anywhere the server can reach (`/proc/self/environ` and
 * its secrets included). Here the session directory is opened once and
 * every later step is taken from the descriptor of the step before
 * (`/proc/self/fd/<dir>/<name>`): a directory on the way may be a symlink,
 * and is checked where it really led (its descriptor's real path) before
 * anything is opened in it; the file itself is opened without following a
 * symlink and without waiting for a writer, and must be a regular file.
 * So no swap can redirect the open, and a FIFO, a socket or a device is
 * refused without blocking a thread of libuv's pool. A write goes to a new
 * file beside the target, renamed onto it once whole.
 *
 * Without `/proc` (not Linux) nothing is opened: Node has no open relative
 * to a directory descriptor, and by path the race cannot be closed.
 */
import { constants, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  access,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readlink,
  realpath,
  rename,
  stat,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { isErrno } from '../core/atomic-file.js';
import { kindOf } from '../core/regular-file.js';
import { ServerContextError, WorkspacePathError } from './errors.js';
import { PROC_FD_DIR } from './exclusive-file.js';
import {
  isInside,
  relativeWorkspacePath,
  resolveWorkspaceScope,
  sessionWorkspaceDir,
  type WorkspaceScope,
} from './workspace.js';

/** Largest file {@link readWorkspaceFile} reads unless told otherwise: 10 MiB. */
export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** Longest host path Linux opens (PATH_MAX, its terminating NUL included). */
const MAX_PATH_BYTES = 4096;

/** Mode of the files and directories these functions create: the session's owner only. */
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;

/** Neither follow a symlink at the last step, nor wait for a FIFO's other end, nor take a terminal. */
const NO_SURPRISES = constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Options of {@link readWorkspaceFile} and {@link writeWorkspaceFile}. */
export interface WorkspaceFileOptions {
  /** Whose workspace. @default the current caller's (inside a `defineTool` handler) */
  readonly scope?: WorkspaceScope;
  /** Stops the work between steps and between chunks (the tool call's `extra.signal`). */
  readonly signal?: AbortSignal;
}

/** Options of {@link readWorkspaceFile}. */
export interface ReadWorkspaceFileOptions extends WorkspaceFileOptions {
  /** Largest file read, in bytes; a larger one is refused (`too-large`). @default DEFAULT_MAX_READ_BYTES */
  readonly maxBytes?: number;
}

/** Options of {@link writeWorkspaceFile}. */
export interface WriteWorkspaceFileOptions extends WorkspaceFileOptions {
  /** Create the missing directories on the way (mode 0700). @default true */
  readonly createDirectories?: boolean;
}

/**
 * Reads a UTF-8 text file of the workspace (`/workspace/...` or a path
 * relative to it), safe from a symlink swapped in while it reads.
 *
 * @throws {WorkspacePathError} `not-found` when nothing is there;
 *   `wrong-kind` for a directory, a symlink, a FIFO, a socket or a device;
 *   `too-large` past `maxBytes`; `traversal` when a directory on the way
 *   leads outside the session; `not-permitted` when permissions keep the
 *   server out; as `workspaceToHostPath` for a bad path.
 * @throws {ServerContextError} without `scope` outside a tool call, and
 *   where `/proc/self/fd` is missing (not Linux).
 * @example
 * ```ts
 * handler: async ({ path }, extra) => contextResult(await readWorkspaceFile(path, { signal: extra.signal }))
 * ```
 */
export async function readWorkspaceFile(
  workspacePath: string,
  options: ReadWorkspaceFileOptions = {},
): Promise<string> {
  return readFileIn(workspacePath, options, PROC_FD_DIR);
}

/**
 * Writes a UTF-8 text file of the workspace, safe from a symlink swapped
 * in while it writes: the text goes to a new file beside the target,
 * renamed onto it once whole, so a reader or another writer never sees a
 * mix. A new file is mode 0600; one that replaces a file keeps its
 * permission bits (set-id ones aside) and, when the server runs as root,
 * its owner. A file the server may not write is `not-permitted`, and so
 * is one in a directory it may not write (a rename needs it). A hard link
 * to the old file keeps the old text.
 *
 * @throws {WorkspacePathError} as {@link readWorkspaceFile} (`not-found`:
 *   a missing directory with `createDirectories: false`).
 * @throws {ServerContextError} as {@link readWorkspaceFile}.
 */
export async function writeWorkspaceFile(
  workspacePath: string,
  content: string,
  options: WriteWorkspaceFileOptions = {},
): Promise<void> {
  return writeFileIn(workspacePath, content, options, PROC_FD_DIR);
}

/** @internal {@link readWorkspaceFile} with another directory of descriptor links (tests). */
export async function readFileIn(
  workspacePath: string,
  options: ReadWorkspaceFileOptions,
  procFdDir: string,
): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${String(maxBytes)}`);
  }
  const { dir, name, realBase } = await openParent(workspacePath, options, procFdDir, false);
  try {
    let handle: FileHandle;
    try {
      handle = await open(linkOf(procFdDir, dir, name), constants.O_RDONLY | NO_SURPRISES);
    } catch (error) {
      throw openRefusal(error, workspacePath);
    }
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw wrongKind(workspacePath, kindOf(stats));
      await checkInside(procFdDir, handle, realBase, workspacePath);
      if (stats.size > maxBytes) throw tooLarge(workspacePath, stats.size, maxBytes);
      return await readBounded(handle, workspacePath, maxBytes, options.signal);
    } finally {
      await handle.close();
    }
  } finally {
    await dir.close();
  }
}

/**
 * @internal {@link writeWorkspaceFile} with another directory of descriptor
 * links (tests). The text goes to a new file beside the target, renamed
 * onto it once whole: a reader sees the old text or the new, and two
 * writers one or the other, never a mix (a rename replaces a symlink
 * there, never follows it).
 */
export async function writeFileIn(
  workspacePath: string,
  content: string,
  options: WriteWorkspaceFileOptions,
  procFdDir: string,
): Promise<void> {
  const create = options.createDirectories !== false;
  const { dir, name } = await openParent(workspacePath, options, procFdDir, create);
  try {
    const target = linkOf(procFdDir, dir, name);
    const standing = await lstat(target).catch((error: unknown) => {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw openRefusal(error, workspacePath);
    });
    if (standing !== undefined) {
      if (!standing.isFile()) throw wrongKind(workspacePath, kindOf(standing));
      // A file the server may not write stays as it is (as root, it may).
      await access(target, constants.W_OK).catch((error: unknown) => {
        throw openRefusal(error, workspacePath);
      });
    }
    const temporary = linkOf(procFdDir, dir, `.workspace-write-${randomBytes(8).toString('hex')}`);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_SURPRISES;
    try {
      const handle = await open(temporary, flags, FILE_MODE);
      try {
        if (standing !== undefined) await keepOwnerAndMode(handle, standing);
        await handle.writeFile(content, {
          encoding: 'utf8',
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
      } finally {
        await handle.close();
      }
      await rename(temporary, target);
    } catch (error) {
      await unlink(temporary).catch(() => {});
      throw openRefusal(error, workspacePath);
    }
  } finally {
    await dir.close();
  }
}

/**
 * Gives the file replacing `standing` its owner (when the server runs as
 * root: the agent's sandbox may run as another user) and its permission
 * bits, the set-id ones aside: an edit keeps a script executable and a
 * file readable by whom it was.
 */
async function keepOwnerAndMode(handle: FileHandle, standing: Stats): Promise<void> {
  if (process.getuid?.() === 0) await handle.chown(standing.uid, standing.gid);
  await handle.chmod(standing.mode & 0o777);
}

/** The directory a workspace path names its file in, open, checked inside the session. */
interface OpenedParent {
  readonly dir: FileHandle;
  readonly name: string;
  readonly realBase: string;
}

/**
 * Opens the session directory, then each directory of `workspacePath` from
 * the descriptor of the one before (created when missing and `create`
 * says so), each checked where it really leads; returns the last one and
 * the file's name in it.
 */
async function openParent(
  workspacePath: string,
  options: WorkspaceFileOptions,
  procFdDir: string,
  create: boolean,
): Promise<OpenedParent> {
  options.signal?.throwIfAborted();
  const relative = relativeWorkspacePath(workspacePath);
  const what = create ? 'writeWorkspaceFile()' : 'readWorkspaceFile()';
  const scope = resolveWorkspaceScope(options.scope, what);
  if (relative === '') throw wrongKind(workspacePath, 'the workspace directory itself');
  if (!(await hasDescriptorLinks(procFdDir))) {
    // By path, a directory swapped for a symlink between a check and the open redirects it.
    throw new ServerContextError(
      `${what} needs ${procFdDir} (Linux) to open workspace files through descriptors; ` +
        'without it no file is opened',
    );
  }
  const base = sessionWorkspaceDir(scope);
  // The session directory is the server's (the agent's sandbox mounts it, not its parent).
  if (create) await mkdir(base, { recursive: true, mode: DIRECTORY_MODE });
  const realBase = await realpath(base).catch((error: unknown) => {
    if (isErrno(error, 'ENOENT')) throw notFound(workspacePath);
    throw error;
  });
  // Refused before any directory is made: the kernel would refuse it only deep down.
  if (Buffer.byteLength(realBase) + 1 + Buffer.byteLength(relative) >= MAX_PATH_BYTES) {
    throw new WorkspacePathError(
      'invalid',
      `path ${JSON.stringify(workspacePath)} is longer than the file system allows`,
    );
  }
  const parts = relative.split('/');
  const name = parts.pop() as string;
  let dir = await open(realBase, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await checkInside(procFdDir, dir, realBase, workspacePath);
    for (const part of parts) {
      options.signal?.throwIfAborted();
      const next = await openDirectory(procFdDir, dir, part, workspacePath, create);
      await dir.close();
      dir = next;
      await checkInside(procFdDir, dir, realBase, workspacePath);
    }
    return { dir, name, realBase };
  } catch (error) {
    await dir.close();
    throw error;
  }
}

/** `name` in `dir`, as a path the kernel walks from the descriptor, not from the directory's path. */
function linkOf(procFdDir: string, dir: FileHandle, name: string): string {
  return path.join(procFdDir, String(dir.fd), name);
}

/** Refuses what `handle` is open on when it lies outside the real session directory. */
async function checkInside(
  procFdDir: string,
  handle: FileHandle,
  realBase: string,
  workspacePath: string,
): Promise<void> {
  let real: string;
  try {
    real = await readlink(path.join(procFdDir, String(handle.fd)));
  } catch (error) {
    throw openRefusal(error, workspacePath);
  }
  if (!isInside(real, realBase)) throw outside(workspacePath);
}

/**
 * The directory `name` in `dir`, opened through `dir`'s descriptor link (a
 * symlink there is followed: where it led is checked by the caller),
 * created first when missing and `create` says so.
 */
async function openDirectory(
  procFdDir: string,
  dir: FileHandle,
  name: string,
  workspacePath: string,
  create: boolean,
): Promise<FileHandle> {
  const at = linkOf(procFdDir, dir, name);
  try {
    return await open(at, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    if (isErrno(error, 'ELOOP')) {
      throw new WorkspacePathError(
        'traversal',
        `path ${JSON.stringify(workspacePath)} leads through too many levels of symbolic links`,
      );
    }
    if (!isErrno(error, 'ENOENT') || !create) throw openRefusal(error, workspacePath);
  }
  try {
    await mkdir(at, { mode: DIRECTORY_MODE });
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw openRefusal(error, workspacePath);
  }
  try {
    // Made here (or by someone else meanwhile): not through a symlink planted since.
    return await open(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    throw openRefusal(error, workspacePath);
  }
}

/** Reads at most `maxBytes` (the file may grow after its size was read), as UTF-8. */
async function readBounded(
  handle: FileHandle,
  workspacePath: string,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    signal?.throwIfAborted();
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes - total + 1));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(workspacePath, total, maxBytes);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** Whether each directory of descriptor links exists, looked at once (it does not come and go). */
const descriptorLinks = new Map<string, Promise<boolean>>();

/** Whether `procFdDir` shows descriptors as links (Linux's `/proc/self/fd`). */
function hasDescriptorLinks(procFdDir: string): Promise<boolean> {
  let known = descriptorLinks.get(procFdDir);
  if (known === undefined) {
    known = stat(procFdDir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    descriptorLinks.set(procFdDir, known);
  }
  return known;
}

/** What an open of the agent's path failing says to the agent. */
function openRefusal(error: unknown, workspacePath: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const shown = JSON.stringify(workspacePath);
  switch (code) {
    case 'ENOENT':
      return notFound(workspacePath);
    case 'ENOTDIR':
      return new WorkspacePathError(
        'not-found',
        `path ${shown} goes through a file as if it were a directory`,
        { cause: error },
      );
    case 'ELOOP':
      return wrongKind(workspacePath, 'a symbolic link (give the path of the file itself)');
    case 'EISDIR':
      return wrongKind(workspacePath, 'a directory');
    case 'ENXIO': // a FIFO nobody reads, or a socket, opened without waiting
      return wrongKind(workspacePath, 'a FIFO or a socket');
    case 'ENAMETOOLONG':
      return new WorkspacePathError('invalid', `path ${shown} is longer than allowed`, {
        cause: error,
      });
    case 'EACCES':
    case 'EPERM':
      return new WorkspacePathError(
        'not-permitted',
        `path ${shown} cannot be opened: its permissions do not let the server in`,
        { cause: error },
      );
    default:
      return error;
  }
}

function notFound(workspacePath: string): WorkspacePathError {
  return new WorkspacePathError(
    'not-found',
    `no file at ${JSON.stringify(workspacePath)}; check the path or write the file first`,
  );
}

function wrongKind(workspacePath: string, kind: string): WorkspacePathError {
  return new WorkspacePathError(
    'wrong-kind',
    `path ${JSON.stringify(workspacePath)} is ${kind}; expected a regular file`,
  );
}

function tooLarge(workspacePath: string, size: number, maxBytes: number): WorkspacePathError {
  return new WorkspacePathError(
    'too-large',
    `file ${JSON.stringify(workspacePath)} is ${size} bytes or more; files up to ${maxBytes} bytes can be read`,
  );
}

function outside(workspacePath: string): WorkspacePathError {
  return new WorkspacePathError(
    'traversal',
    `path ${JSON.stringify(workspacePath)} resolves outside the workspace through a symlink; ` +
      `use a path that stays under /workspace/`,
  );
}
