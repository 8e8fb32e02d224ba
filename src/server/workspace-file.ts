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
 * refused without blocking a thread of libuv's pool.
 *
 * Without `/proc` (not Linux) the file is opened by path after the check
 * and compared with the path afterwards (same file, still inside): a
 * narrow race remains there (docs/server.md).
 */
import { constants, type Stats } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readlink,
  realpath,
  stat,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import { isErrno } from '../core/atomic-file.js';
import { kindOf } from '../core/regular-file.js';
import { WorkspacePathError } from './errors.js';
import { PROC_FD_DIR } from './exclusive-file.js';
import {
  isInside,
  relativeWorkspacePath,
  resolveWorkspaceScope,
  sessionWorkspaceDir,
  workspaceToHostPath,
  type WorkspaceScope,
} from './workspace.js';

/** Largest file {@link readWorkspaceFile} reads unless told otherwise: 10 MiB. */
export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

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
 *   leads outside the session; as `workspaceToHostPath` for a bad path.
 * @throws {ServerContextError} without `scope` outside a tool call.
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
 * Writes a UTF-8 text file of the workspace (created with mode 0600, or
 * replaced), safe from a symlink swapped in while it writes.
 *
 * @throws {WorkspacePathError} as {@link readWorkspaceFile} (`not-found`:
 *   a missing directory with `createDirectories: false`).
 * @throws {ServerContextError} without `scope` outside a tool call.
 */
export async function writeWorkspaceFile(
  workspacePath: string,
  content: string,
  options: WriteWorkspaceFileOptions = {},
): Promise<void> {
  return writeFileIn(workspacePath, content, options, PROC_FD_DIR);
}

/** @internal {@link readWorkspaceFile} with another directory of descriptor links (tests: one that does not exist selects the fallback). */
export async function readFileIn(
  workspacePath: string,
  options: ReadWorkspaceFileOptions,
  procFdDir: string,
): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${String(maxBytes)}`);
  }
  const file = await openFile(workspacePath, options, procFdDir, 'read');
  try {
    if (file.stats.size > maxBytes) throw tooLarge(workspacePath, file.stats.size, maxBytes);
    return await readBounded(file.handle, workspacePath, maxBytes, options.signal);
  } finally {
    await file.handle.close();
  }
}

/** @internal {@link writeWorkspaceFile} with another directory of descriptor links (see {@link readFileIn}). */
export async function writeFileIn(
  workspacePath: string,
  content: string,
  options: WriteWorkspaceFileOptions,
  procFdDir: string,
): Promise<void> {
  const file = await openFile(workspacePath, options, procFdDir, 'write');
  try {
    await file.handle.truncate(0);
    options.signal?.throwIfAborted();
    await file.handle.writeFile(content, {
      encoding: 'utf8',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } finally {
    await file.handle.close();
  }
}

/** An open regular file of the workspace. */
interface OpenedFile {
  readonly handle: FileHandle;
  readonly stats: Stats;
}

async function openFile(
  workspacePath: string,
  options: WriteWorkspaceFileOptions,
  procFdDir: string,
  mode: 'read' | 'write',
): Promise<OpenedFile> {
  options.signal?.throwIfAborted();
  const relative = relativeWorkspacePath(workspacePath);
  const scope = resolveWorkspaceScope(options.scope, `${mode}WorkspaceFile()`);
  if (relative === '') throw wrongKind(workspacePath, 'the workspace directory itself');
  const create = mode === 'write' && options.createDirectories !== false;
  const base = sessionWorkspaceDir(scope);
  // The session directory is the server's (the agent's sandbox mounts it, not its parent).
  if (create) await mkdir(base, { recursive: true, mode: DIRECTORY_MODE });
  const realBase = await realpath(base).catch((error: unknown) => {
    if (isErrno(error, 'ENOENT')) throw notFound(workspacePath);
    throw error;
  });
  const parts = relative.split('/');
  const name = parts.pop() as string;
  const flags = mode === 'read' ? constants.O_RDONLY : constants.O_WRONLY;
  if (!(await hasDescriptorLinks(procFdDir))) {
    return openByPath(workspacePath, scope, realBase, flags, create);
  }
  let dir = await open(realBase, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    if ((await readlink(path.join(procFdDir, String(dir.fd)))) !== realBase) {
      throw outside(workspacePath);
    }
    for (const part of parts) {
      options.signal?.throwIfAborted();
      const next = await openDirectory(procFdDir, dir, part, workspacePath, create);
      await dir.close();
      dir = next;
      const real = await readlink(path.join(procFdDir, String(dir.fd)));
      if (!isInside(real, realBase)) throw outside(workspacePath);
    }
    const { handle } = await openOrCreate(
      path.join(procFdDir, String(dir.fd), name),
      flags,
      workspacePath,
    );
    return await checkedFile(handle, workspacePath, async () =>
      isInside(await readlink(path.join(procFdDir, String(handle.fd))), realBase),
    );
  } finally {
    await dir.close();
  }
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
  const at = path.join(procFdDir, String(dir.fd), name);
  try {
    return await open(at, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
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

/**
 * Without descriptor links: the path is checked, opened (no symlink at the
 * last step, no wait), and checked again afterwards: still inside, and
 * still naming the file opened.
 */
async function openByPath(
  workspacePath: string,
  scope: WorkspaceScope,
  realBase: string,
  flags: number,
  create: boolean,
): Promise<OpenedFile> {
  const host = await workspaceToHostPath(workspacePath, scope);
  if (create) {
    await mkdir(path.dirname(host), { recursive: true, mode: DIRECTORY_MODE });
    await workspaceToHostPath(workspacePath, scope); // the directories made are still inside
  }
  const { handle, created } = await openOrCreate(host, flags, workspacePath);
  const opened = await handle.stat();
  return checkedFile(
    handle,
    workspacePath,
    async () => {
      const [named, real] = await Promise.all([
        stat(host).catch(() => undefined),
        realpath(host).catch(() => undefined),
      ]);
      return (
        named !== undefined &&
        real !== undefined &&
        named.dev === opened.dev &&
        named.ino === opened.ino &&
        isInside(real, realBase)
      );
    },
    // A file this call created through a swapped directory is removed where
    // the path still leads to it (swapped back already, it is not found).
    async () => {
      if (!created) return;
      const named = await lstat(host).catch(() => undefined);
      if (named?.dev === opened.dev && named.ino === opened.ino) await unlink(host).catch(() => {});
    },
  );
}

/**
 * Opens `target` with `flags` (no symlink at the last step, no wait); to
 * write, an absent file is created (mode 0600), exclusively so that the
 * caller knows it made it.
 */
async function openOrCreate(
  target: string,
  flags: number,
  workspacePath: string,
): Promise<{ readonly handle: FileHandle; readonly created: boolean }> {
  try {
    return { handle: await open(target, flags | NO_SURPRISES), created: false };
  } catch (error) {
    if (!isErrno(error, 'ENOENT') || (flags & constants.O_WRONLY) === 0) {
      throw openRefusal(error, workspacePath);
    }
  }
  const exclusive = flags | NO_SURPRISES | constants.O_CREAT | constants.O_EXCL;
  try {
    return { handle: await open(target, exclusive, FILE_MODE), created: true };
  } catch (error) {
    // Made by someone else meanwhile: open theirs, as if it had been there.
    if (!isErrno(error, 'EEXIST')) throw openRefusal(error, workspacePath);
  }
  try {
    return { handle: await open(target, flags | NO_SURPRISES), created: false };
  } catch (error) {
    throw openRefusal(error, workspacePath);
  }
}

/**
 * `handle` when it is a regular file and `inside` says it lies in the
 * session; closed otherwise (and `discard` run when it lies outside).
 */
async function checkedFile(
  handle: FileHandle,
  workspacePath: string,
  inside: () => Promise<boolean>,
  discard?: () => Promise<void>,
): Promise<OpenedFile> {
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw wrongKind(workspacePath, kindOf(stats));
    if (!(await inside())) {
      await discard?.();
      throw outside(workspacePath);
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
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

/** Whether `procFdDir` shows descriptors as links (Linux's `/proc/self/fd`). */
async function hasDescriptorLinks(procFdDir: string): Promise<boolean> {
  const info = await stat(procFdDir).catch(() => undefined);
  return info?.isDirectory() === true;
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
    case 'ENXIO': // a FIFO nobody reads, opened to write without waiting
      return wrongKind(workspacePath, 'a FIFO or a device');
    case 'ENAMETOOLONG':
      return new WorkspacePathError('invalid', `path ${shown} has a name longer than allowed`, {
        cause: error,
      });
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
