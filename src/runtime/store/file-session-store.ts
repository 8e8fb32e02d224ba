import { type FileHandle, lstat, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_FILE_MODE, isErrno, writeFileAtomic } from '../../core/atomic-file.js';
import {
  FileLockLostError,
  FileLockTimeoutError,
  type HeldFileLock,
  withFileLock,
} from '../../core/file-lock.js';
import type { PrivateDataState } from '../private-data.js';
import { messageOf } from '../../core/errors.js';
import { readRegularFile } from '../../core/regular-file.js';
import { SessionStoreError } from './errors.js';
import { FileVersionCache } from './file-version-cache.js';
import { type CheckedDirectory, prepareSessionDirectory } from './session-directory.js';
import {
  defaultSessionDirectory,
  emptyRecord,
  parseRecord,
  serializeRecord,
  sessionFileName,
  type SessionRecord,
  VERSION_PREFIX,
  VERSION_PREFIX_BYTES,
} from './session-file.js';
import type { JsonValue } from './json-value.js';
import {
  EMPTY_PRIVATE_DATA,
  type SessionStore,
  type StoreCallOptions,
  type StoredSession,
  type VersionedPrivateData,
  coversPrivateData,
  mergePrivateDataStates,
  privateDataState,
} from './session-store.js';
import { assertWellFormedSessionId } from './session-id.js';

export { defaultSessionDirectory, sessionFileName };

/** Default of {@link FileSessionStoreOptions.lockTimeoutMs}. */
export const DEFAULT_FILE_LOCK_TIMEOUT_MS = 5_000;
/** Default of {@link FileSessionStoreOptions.staleLockMs}. */
export const DEFAULT_STALE_LOCK_MS = 30_000;

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /**
   * Absolute directory that holds one file per session. Created with mode
   * 0700 when missing. An existing one must belong to this user with mode
   * 0700 (it is never chmodded), must not be a symbolic link, and no
   * directory on the way may be writable by another user (except, like
   * `/tmp`, with the sticky bit and an entry of root or this user).
   * @default defaultSessionDirectory()
   */
  readonly directory?: string;
  /**
   * Directories the agent can read or write (its workspaces). The store
   * refuses a `directory` inside any of them, so the agent cannot lower its
   * own session's sensitivity by editing a file.
   * @default []
   */
  readonly workspaceRoots?: readonly string[];
  /**
   * How long a write waits for another process's lock on the same session,
   * in milliseconds.
   * @default DEFAULT_FILE_LOCK_TIMEOUT_MS
   */
  readonly lockTimeoutMs?: number;
  /**
   * A lock whose owner cannot be asked (another host) is broken once it is
   * this old, measured on this host, in milliseconds. A lock whose owner
   * process on this host has exited is broken at once; one whose owner still
   * runs, never.
   * @default DEFAULT_STALE_LOCK_MS
   */
  readonly staleLockMs?: number;
}

/** Most session ids whose file paths a store remembers; the oldest is forgotten first. */
const MAX_REMEMBERED_PATHS = 64;

/**
 * The embedded session store: one JSON file per session in a per-user
 * directory outside every workspace. Files are written atomically (temporary
 * file, fsync, rename, fsync of the directory) with mode 0600; every
 * read-modify-write holds a lock file, so concurrent processes merge their
 * escalations instead of overwriting them.
 *
 * @example
 * const store = new FileSessionStore({ workspaceRoots: [workspace] });
 * const session = await Session.open({ sessionId, store });
 */
export class FileSessionStore implements SessionStore {
  /** The absolute directory that holds the session files. */
  readonly directory: string;
  readonly #workspaceRoots: readonly string[];
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  readonly #versions = new FileVersionCache();
  /**
   * The files of the sessions served lately, by id: a file's name is a
   * SHA-256 of the id, and a version check on every tool call would hash
   * it again each time (a few microseconds).
   */
  readonly #paths = new Map<string, string>();
  #checked: Promise<CheckedDirectory> | undefined;
  /** Whether {@link #checked} has passed: a version check then needs no wait for it. */
  #directoryPassed = false;
  #closed = false;

  /**
   * @throws SessionStoreError `store-config` when `directory` is relative or
   *   inside one of `workspaceRoots` (the other checks of the directory come
   *   with the first call, which rejects with `store-config`).
   */
  constructor(options: FileSessionStoreOptions = {}) {
    const directory = options.directory ?? defaultSessionDirectory();
    if (!path.isAbsolute(directory)) {
      throw new SessionStoreError(
        'store-config',
        `session directory "${directory}" must be an absolute path outside every workspace`,
      );
    }
    this.directory = path.resolve(directory);
    this.#workspaceRoots = (options.workspaceRoots ?? []).map((root) => path.resolve(root));
    for (const root of this.#workspaceRoots) assertOutside(this.directory, root);
    this.#lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_FILE_LOCK_TIMEOUT_MS;
    this.#staleLockMs = options.staleLockMs ?? DEFAULT_STALE_LOCK_MS;
  }

  /** The absolute path of the file that holds `sessionId` (it may not exist yet). */
  pathOf(sessionId: string): string {
    const known = this.#paths.get(sessionId);
    if (known !== undefined) return known;
    const file = path.join(this.directory, sessionFileName(checkSessionId(sessionId)));
    if (this.#paths.size >= MAX_REMEMBERED_PATHS) {
      this.#paths.delete(this.#paths.keys().next().value as string);
    }
    this.#paths.set(sessionId, file);
    return file;
  }

  async load(
    sessionId: string,
    options: StoreCallOptions = {},
  ): Promise<StoredSession | undefined> {
    const file = await this.#prepare(sessionId, options);
    const record = await this.#read(file, sessionId, options.signal);
    return record === undefined ? undefined : Object.freeze({ ...record });
  }

  async readPrivateData(
    sessionId: string,
    options: StoreCallOptions = {},
  ): Promise<VersionedPrivateData> {
    const file = await this.#prepare(sessionId, options);
    const record = await this.#read(file, sessionId, options.signal);
    return versioned(record?.version ?? 0, record?.privateData ?? EMPTY_PRIVATE_DATA);
  }

  /**
   * One `stat` while the session's file is the one this store read last;
   * otherwise the first bytes of the new file. The directory is not looked
   * at again here: in a replaced directory the file is another one (another
   * inode), its version differs, and the read that follows checks the
   * directory before it trusts anything.
   */
  async version(sessionId: string, options: StoreCallOptions = {}): Promise<number> {
    const prepared = this.#prepare(sessionId, options, false);
    const file = typeof prepared === 'string' ? prepared : await prepared;
    try {
      const version = this.#versions.version(file, (handle) =>
        readVersion(handle, file, sessionId),
      );
      return typeof version === 'number' ? version : await version;
    } catch (error) {
      throw this.#ioError('read', sessionId, error);
    }
  }

  async mergePrivateData(
    sessionId: string,
    state: PrivateDataState,
    options: StoreCallOptions = {},
  ): Promise<VersionedPrivateData> {
    const file = await this.#prepare(sessionId, options);
    const incoming = privateDataState(state.sensitivity, state.datasets);
    return this.#update(file, sessionId, options, (current) => {
      const before = current?.privateData ?? EMPTY_PRIVATE_DATA;
      if (coversPrivateData(before, incoming)) return undefined;
      return {
        version: nextVersion(current?.version),
        sessionId,
        privateData: mergePrivateDataStates(before, incoming),
        slices: current?.slices ?? {},
      };
    }).then((record) => versioned(record.version, record.privateData));
  }

  async saveSlices(
    sessionId: string,
    slices: Readonly<Record<string, JsonValue>>,
    options: StoreCallOptions = {},
  ): Promise<void> {
    if (Object.keys(slices).length === 0) return;
    const file = await this.#prepare(sessionId, options);
    await this.#update(file, sessionId, options, (current) => ({
      version: current?.version ?? firstVersion(),
      sessionId,
      privateData: current?.privateData ?? EMPTY_PRIVATE_DATA,
      slices: { ...current?.slices, ...slices },
    }));
  }

  async delete(sessionId: string, options: StoreCallOptions = {}): Promise<void> {
    const file = await this.#prepare(sessionId, options);
    await this.#locked(file, options, async (held) => {
      await held.assertHeld();
      await unlink(file).catch((error: unknown) => {
        if (!isErrno(error, 'ENOENT')) throw this.#ioError('delete', sessionId, error);
      });
    });
  }

  /** Marks the store closed and closes the files `version()` holds open. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#versions.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Checks the id and that the directory is still the one checked (one
   * `lstat`, unless `recheck` is false); returns the session's file. A
   * directory that was replaced or removed is checked again from the start,
   * and refused unless it passes. Without a recheck, once the directory has
   * passed, the file is returned at once (a version check, on every call of
   * a tool, waits for nothing); callers await it either way, so what it
   * throws reaches them as a rejection.
   */
  #prepare(sessionId: string, options: StoreCallOptions, recheck = true): string | Promise<string> {
    if (this.#closed) {
      throw new SessionStoreError('store-closed', `session store ${this.directory} is closed`);
    }
    options.signal?.throwIfAborted();
    const file = this.pathOf(sessionId);
    if (!recheck && this.#directoryPassed) return file;
    return this.#prepareDirectory(file, recheck);
  }

  async #prepareDirectory(file: string, recheck: boolean): Promise<string> {
    const checked = (this.#checked ??= this.#checkDirectory());
    if (!recheck) {
      await checked;
      return file;
    }
    if (await isStill(this.directory, await checked)) return file;
    if (this.#checked === checked) {
      this.#directoryPassed = false;
      this.#checked = this.#checkDirectory();
    }
    await this.#checked;
    return file;
  }

  async #checkDirectory(): Promise<CheckedDirectory> {
    try {
      const checked = await prepareSessionDirectory(this.directory);
      // Symbolic links must not smuggle the directory into a workspace.
      for (const root of this.#workspaceRoots) {
        assertOutside(checked.realPath, await realpath(root).catch(() => root));
      }
      this.#directoryPassed = true;
      return checked;
    } catch (error) {
      this.#checked = undefined;
      this.#directoryPassed = false;
      if (error instanceof SessionStoreError) throw error;
      throw new SessionStoreError(
        'store-unavailable',
        `session directory ${this.directory} cannot be prepared: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  async #read(
    file: string,
    sessionId: string,
    signal: AbortSignal | undefined,
  ): Promise<SessionRecord | undefined> {
    let text: string | undefined;
    try {
      text = await readRegularFile(file, signal);
    } catch (error) {
      if (signal?.aborted === true) throw error;
      throw this.#ioError('read', sessionId, error);
    }
    return text === undefined ? undefined : parseRecord(text, file, sessionId);
  }

  /**
   * Read-modify-write under the session's lock. `change` returns the new
   * record, or undefined to leave the file as it is.
   */
  async #update(
    file: string,
    sessionId: string,
    options: StoreCallOptions,
    change: (current: SessionRecord | undefined) => SessionRecord | undefined,
  ): Promise<SessionRecord> {
    return this.#locked(file, options, async (held) => {
      const current = await this.#read(file, sessionId, options.signal);
      const next = change(current);
      if (next === undefined) return current ?? emptyRecord(sessionId);
      try {
        // A lock broken while this process stalled must not let its stale
        // record land over a newer one: withFileLock then runs this again.
        await writeFileAtomic(file, serializeRecord(next), PRIVATE_FILE_MODE, {
          beforeRename: () => held.assertHeld(),
        });
      } catch (error) {
        if (error instanceof FileLockLostError) throw error;
        throw this.#ioError('write', sessionId, error);
      }
      return next;
    });
  }

  /**
   * Runs `fn` under the file lock, after the calls of this process already
   * waiting for it.
   *
   * @throws SessionStoreError `store-lock-timeout` when the lock is not acquired within `lockTimeoutMs`.
   */
  async #locked<T>(
    file: string,
    options: StoreCallOptions,
    fn: (held: HeldFileLock) => Promise<T>,
  ): Promise<T> {
    try {
      return await withFileLock(
        `${file}.lock`,
        {
          timeoutMs: this.#lockTimeoutMs,
          staleMs: this.#staleLockMs,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
        fn,
      );
    } catch (error) {
      if (error instanceof FileLockTimeoutError) {
        throw new SessionStoreError('store-lock-timeout', error.message, { cause: error });
      }
      if (error instanceof FileLockLostError) {
        throw new SessionStoreError(
          'store-unavailable',
          `${error.message}, three times in a row: other processes keep breaking the lock`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  #ioError(action: string, sessionId: string, error: unknown): SessionStoreError {
    if (error instanceof SessionStoreError) return error;
    return new SessionStoreError(
      'store-unavailable',
      `could not ${action} session ${JSON.stringify(sessionId)} in ${this.directory}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/**
 * Whether `directory` is still, not through a symbolic link, the directory
 * checked, with the same mode and owner (a directory opened to others after
 * its check is checked again, and refused).
 */
async function isStill(directory: string, checked: CheckedDirectory): Promise<boolean> {
  const info = await lstat(directory).catch(() => undefined);
  return (
    info?.isDirectory() === true &&
    info.dev === checked.dev &&
    info.ino === checked.ino &&
    info.mode === checked.mode &&
    info.uid === checked.uid
  );
}

/** The version at the start of a session file, or in the whole record when it is not there. */
async function readVersion(handle: FileHandle, file: string, sessionId: string): Promise<number> {
  const buffer = Buffer.alloc(VERSION_PREFIX_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, VERSION_PREFIX_BYTES, 0);
  const match = VERSION_PREFIX.exec(buffer.subarray(0, bytesRead).toString('utf8'));
  if (match?.[1] !== undefined) return Number(match[1]);
  // Not written by this version of the store: read it whole.
  const text = await handle.readFile({ encoding: 'utf8' });
  return parseRecord(text, file, sessionId).version;
}

function versioned(version: number, privateData: PrivateDataState): VersionedPrivateData {
  return Object.freeze({ version, privateData });
}

function checkSessionId(sessionId: string): string {
  if (typeof sessionId !== 'string' || sessionId.length === 0) {
    throw new TypeError(`session id ${JSON.stringify(sessionId)} must be a non-empty string`);
  }
  assertWellFormedSessionId(sessionId);
  return sessionId;
}

function assertOutside(directory: string, root: string): void {
  const relative = path.relative(root, directory);
  const outside =
    relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (!outside) {
    throw new SessionStoreError(
      'store-config',
      `session directory ${directory} is inside workspace ${root}; the agent could edit its own session state — choose a directory outside every workspace`,
    );
  }
}

/**
 * The version a new session file starts at, whichever write creates it:
 * the clock in microseconds. Rises come slower than one a microsecond, so a
 * version never repeats after the file was lost, and a worker that saw one
 * before reads the new file.
 */
function firstVersion(): number {
  return Date.now() * 1000;
}

/**
 * The version of a merge that raised something: above the stored one and
 * the clock both, so that it is never one handed out before, not even after
 * an older copy of the file was put back (a backup, a snapshot) and a
 * worker that saw the later version would skip its read.
 */
function nextVersion(stored: number | undefined): number {
  return Math.max((stored ?? 0) + 1, firstVersion());
}
