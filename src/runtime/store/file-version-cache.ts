/**
 * Versions of session files, checked with one `stat` while a file is not
 * replaced.
 *
 * Session files are never written in place: every write renames a new file
 * over the old one (`writeFileAtomic`). So while the path still names the
 * inode whose version was read, that version is current. The cache keeps
 * that inode open, which stops the file system from giving its number to a
 * new file: equal device and inode numbers then mean the same, unchanged file.
 */
import type { FileHandle } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import { openRegularFile } from '../../core/regular-file.js';

/** Bound on the files held open; the oldest is closed first. */
const MAX_OPEN_FILES = 64;

interface Entry {
  readonly handle: FileHandle;
  readonly dev: number;
  readonly ino: number;
  readonly version: number;
}

/**
 * Reads the version of a session file through a handle of its own.
 *
 * @internal Used by `FileSessionStore`.
 */
export type ReadVersion = (handle: FileHandle) => Promise<number>;

/** @internal Used by `FileSessionStore.version`. */
export class FileVersionCache {
  readonly #entries = new Map<string, Entry>();
  // Windows may refuse to replace a file another handle holds open.
  readonly #enabled = process.platform !== 'win32';
  /** Bumped by `clear()`: a read begun before it installs no handle after it. */
  #generation = 0;

  /**
   * The version of `file`: one `stat` when the file is the one read last
   * time, answered at once; otherwise it is opened and read with `read`.
   * `0` when it does not exist.
   *
   * @throws the `fs` error of `stat` (thrown), `open` or `read` (rejected), except ENOENT.
   */
  version(file: string, read: ReadVersion): number | Promise<number> {
    const known = this.#entries.get(file);
    if (known !== undefined) {
      // Synchronous: a metadata lookup on a local disk takes microseconds, while the
      // thread pool's round trip for an asynchronous one costs a call tens of them.
      // Not through a link: a link swapped in is another file, read (and refused) anew.
      const info = lstatSync(file, { throwIfNoEntry: false });
      if (info === undefined) {
        this.#forget(file, known);
        return 0;
      }
      // Its handle is open, so the inode cannot have been reused: same inode, same file.
      if (info.dev === known.dev && info.ino === known.ino) {
        this.#entries.delete(file); // now the most recently used
        this.#entries.set(file, known);
        return known.version;
      }
    }
    return this.#read(file, read);
  }

  /** Opens `file`, reads its version, and keeps the handle when the cache may. */
  async #read(file: string, read: ReadVersion): Promise<number> {
    const generation = this.#generation;
    const opened = await openRegularFile(file);
    if (opened === undefined) return 0;
    const { handle, stats } = opened;
    let entry: Entry;
    try {
      entry = { handle, dev: stats.dev, ino: stats.ino, version: await read(handle) };
    } catch (error) {
      await handle.close();
      throw error;
    }
    // Closed meanwhile (clear()), or caching is off: nothing may keep the handle.
    if (!this.#enabled || generation !== this.#generation) {
      await handle.close();
      return entry.version;
    }
    this.#install(file, entry);
    return entry.version;
  }

  /** Closes every handle; the cache stays usable. */
  async clear(): Promise<void> {
    this.#generation += 1;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.handle.close().catch(() => undefined)));
  }

  #install(file: string, entry: Entry): void {
    const previous = this.#entries.get(file);
    if (previous !== undefined) this.#forget(file, previous);
    if (this.#entries.size >= MAX_OPEN_FILES) {
      const [oldestFile, oldest] = this.#entries.entries().next().value ?? [];
      if (oldestFile !== undefined && oldest !== undefined) this.#forget(oldestFile, oldest);
    }
    this.#entries.set(file, entry);
  }

  #forget(file: string, entry: Entry): void {
    if (this.#entries.get(file) === entry) this.#entries.delete(file);
    entry.handle.close().catch(() => undefined);
  }
}
