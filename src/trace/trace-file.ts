/**
 * The file a trace is written to, rotated by size: when the next line would
 * take `path` past `maxBytes`, it becomes `<name>.1<ext>` (older parts move
 * up one, the oldest beyond `maxFiles` is deleted) and a new `path` starts
 * with fresh start lines. Lines are queued synchronously, so the order of
 * records is the order of events, and written in batches.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_FILE_MODE, isErrno } from '../core/atomic-file.js';
import { TraceError } from './errors.js';
import { messageOf } from '../core/errors.js';

/** Default of `TraceRecorderOptions.maxBytes`: 64 MiB a file. */
export const DEFAULT_TRACE_MAX_BYTES = 64 * 1024 * 1024;
/** Default of `TraceRecorderOptions.maxFiles`: the current file and three older parts. */
export const DEFAULT_TRACE_MAX_FILES = 4;
/** Smallest `maxBytes` accepted: a file must hold its start lines and some records. */
export const MIN_TRACE_MAX_BYTES = 4_096;
/**
 * Most bytes queued and not yet written before recording stops: a disk
 * that cannot keep up (a hung network mount) would otherwise hold every
 * line in memory.
 */
export const DEFAULT_TRACE_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/** Where part `index` of the trace at `file` lives: the file itself for 0, `<name>.<index><ext>` after. */
export function tracePartPath(file: string, index: number): string {
  if (index === 0) return file;
  const ext = path.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${index}${ext}`;
}

/** Options of {@link RotatingTraceFile}. */
export interface RotatingTraceFileOptions {
  readonly path: string;
  readonly maxBytes: number;
  readonly maxFiles: number;
  /** The lines each file starts with (header, full snapshot), for part `part`. */
  readonly startLines: (part: number) => readonly string[];
  /** @internal Bytes queued past which recording stops. @default DEFAULT_TRACE_MAX_QUEUED_BYTES */
  readonly maxQueuedBytes?: number;
}

const ROTATE = Symbol('rotate');
type Item = string | typeof ROTATE;

/** An append-only, size-rotated JSON Lines file. */
export class RotatingTraceFile {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #maxFiles: number;
  readonly #startLines: (part: number) => readonly string[];
  #queue: Item[] = [];
  /** Bytes in {@link #queue}, not yet handed to the file. */
  #queuedBytes = 0;
  readonly #maxQueuedBytes: number;
  #partBytes = 0;
  #startBytes = 0;
  #part = 0;
  #handle: FileHandle | undefined;
  #draining: Promise<void> | undefined;
  #error: TraceError | undefined;
  #closed = false;

  /** @throws TraceError `trace-options` for a `maxBytes` or `maxFiles` out of range. */
  constructor(options: RotatingTraceFileOptions) {
    if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes < MIN_TRACE_MAX_BYTES) {
      throw new TraceError(
        'trace-options',
        `maxBytes ${String(options.maxBytes)} must be an integer of at least ${MIN_TRACE_MAX_BYTES} (bytes)`,
      );
    }
    if (!Number.isSafeInteger(options.maxFiles) || options.maxFiles < 1) {
      throw new TraceError(
        'trace-options',
        `maxFiles ${String(options.maxFiles)} must be a positive integer (the current file counts)`,
      );
    }
    this.path = path.resolve(options.path);
    this.#maxBytes = options.maxBytes;
    this.#maxFiles = options.maxFiles;
    this.#startLines = options.startLines;
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_TRACE_MAX_QUEUED_BYTES;
    this.#start();
    this.#drain();
  }

  /** The first write failure; once set, nothing more is written. */
  get error(): TraceError | undefined {
    return this.#error;
  }

  /** Queues one line (without its newline); starts a new part first when it would not fit. */
  append(line: string): void {
    if (this.#closed || this.#error !== undefined) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.#partBytes + bytes > this.#maxBytes && this.#partBytes > this.#startBytes) {
      this.#part += 1;
      this.#queue.push(ROTATE);
      this.#start();
    }
    this.#queue.push(line);
    this.#partBytes += bytes;
    this.#queuedBytes += bytes;
    if (this.#queuedBytes > this.#maxQueuedBytes) {
      this.#stop(
        `trace ${JSON.stringify(this.path)} fell more than ${String(this.#maxQueuedBytes)} bytes behind its file (writes do not keep up), recording stopped`,
      );
      return;
    }
    this.#drain();
  }

  /**
   * Resolves when every line queued so far is written.
   * @throws TraceError `trace-write` when a write failed.
   */
  async flush(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
    if (this.#error !== undefined) throw this.#error;
  }

  /** Writes what is queued and closes the file; idempotent. @throws TraceError `trace-write`. */
  async close(): Promise<void> {
    this.#closed = true;
    try {
      await this.flush();
    } finally {
      const handle = this.#handle;
      this.#handle = undefined;
      await handle?.close().catch(() => undefined);
    }
  }

  #start(): void {
    const lines = this.#startLines(this.#part);
    this.#queue.push(...lines);
    this.#startBytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    this.#partBytes = this.#startBytes;
    this.#queuedBytes += this.#startBytes;
  }

  /** Stops recording for good, with `reason` unless it stopped already: what is queued is dropped. */
  #stop(reason: string, cause?: unknown): void {
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#error ??= new TraceError('trace-write', reason, cause === undefined ? {} : { cause });
  }

  #drain(): void {
    if (this.#draining !== undefined) return;
    this.#draining = this.#write().finally(() => {
      this.#draining = undefined;
      if (this.#queue.length > 0 && this.#error === undefined) this.#drain();
    });
  }

  async #write(): Promise<void> {
    try {
      if (this.#handle === undefined) await this.#open();
      while (this.#queue.length > 0) {
        const at = this.#queue.indexOf(ROTATE);
        const batch = at === -1 ? this.#queue : this.#queue.slice(0, at);
        this.#queue = at === -1 ? [] : this.#queue.slice(at + 1);
        if (batch.length > 0) {
          const text = `${batch.join('\n')}\n`;
          this.#queuedBytes -= Buffer.byteLength(text);
          await this.#handle!.write(text);
        }
        if (at !== -1) await this.#rotate();
        if (this.#error !== undefined) return; // stopped while a write was under way
      }
    } catch (error) {
      this.#stop(
        `trace ${JSON.stringify(this.path)} could not be written, recording stopped: ${messageOf(error)}`,
        error,
      );
    }
  }

  /** A new recording replaces an old one at the same path, older parts included. */
  async #open(): Promise<void> {
    await mkdir(path.dirname(this.path), { recursive: true });
    const ext = path.extname(this.path);
    const stem = path.basename(this.path, ext);
    const part = new RegExp(`^${escapeRegExp(stem)}\\.\\d+${escapeRegExp(ext)}$`);
    for (const name of await readdir(path.dirname(this.path))) {
      if (part.test(name)) await rm(path.join(path.dirname(this.path), name), { force: true });
    }
    this.#handle = await openPrivate(this.path);
  }

  async #rotate(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
    await rm(tracePartPath(this.path, this.#maxFiles - 1), { force: true });
    for (let index = this.#maxFiles - 2; index >= 0; index -= 1) {
      await rename(tracePartPath(this.path, index), tracePartPath(this.path, index + 1)).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        },
      );
    }
    this.#handle = await openPrivate(this.path);
  }
}

/**
 * A trace holds arguments, failure reasons and (opted in) private results:
 * its files are the owner's alone (0600), like the viewer that shows them,
 * which other users of the machine cannot open without its token.
 *
 * Always a file this process creates (`O_CREAT | O_EXCL | O_NOFOLLOW`):
 * in a directory another user can write, a file they made in its place
 * (readable by them, whatever mode it is given later) or a symbolic link
 * (to a file of ours, which opening for writing would overwrite) must not
 * be written. An earlier file of ours is unlinked first, never truncated
 * in place: a hard link to another file is only unlinked. Anything else
 * there is left alone and recording stops with the reason.
 */
async function openPrivate(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await openExclusive(file);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    checkOwnFile(file, await lstat(file));
    await unlink(file);
    // Another process may put something in its place meanwhile: EEXIST again, thrown.
    handle = await openExclusive(file);
  }
  try {
    const stats = await handle.stat();
    checkOwnFile(file, stats);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
}

function openExclusive(file: string): Promise<FileHandle> {
  // O_NOFOLLOW is not defined on Windows, where O_EXCL alone refuses a link.
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  return open(file, flags, PRIVATE_FILE_MODE);
}

/** Throws unless `stats` are those of a regular file owned by this process's user. */
function checkOwnFile(file: string, stats: Stats): void {
  const shown = JSON.stringify(file);
  if (stats.isSymbolicLink()) {
    throw new Error(`${shown} is a symbolic link: a trace is never written through one`);
  }
  if (!stats.isFile()) throw new Error(`${shown} is not a regular file`);
  // geteuid is not defined on Windows, where files have no numeric owner.
  const uid = process.geteuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new Error(
      `${shown} belongs to another user (uid ${String(stats.uid)}): a trace is written only to a file of its own`,
    );
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
