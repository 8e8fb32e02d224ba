/**
 * `FilePromptOverridesStore`: overrides as files under one directory,
 * `<dir>/<ns>/<key>/<tag>.json` (or `.yaml`, `.yml`), meant to be edited by
 * hand and committed beside the code.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, readlink, realpath, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { isErrno, writeFileAtomic } from '../../core/atomic-file.js';
import { NotARegularFileError, readRegularFile } from '../../core/regular-file.js';
import { PromptOverridesError } from '../../core/errors.js';
import {
  checkOverridesRef,
  overridesDocument,
  parsePromptOverrides,
  type PromptOverrides,
  type PromptOverridesRef,
} from './prompt-overrides.js';
import type { OverridesStoreCallOptions, PromptOverridesStore } from './store.js';

/** The formats of an overrides file. */
export type OverridesFileFormat = 'json' | 'yaml';

/** The format of the files a store creates when none is named. */
export const DEFAULT_OVERRIDES_FILE_FORMAT: OverridesFileFormat = 'json';

/** Overrides are prompt text, meant to be shared and committed: readable by all, written by the owner. */
const OVERRIDES_FILE_MODE = 0o644;

const EXTENSIONS: Readonly<Record<OverridesFileFormat, readonly string[]>> = Object.freeze({
  json: Object.freeze(['.json']),
  yaml: Object.freeze(['.yaml', '.yml']),
});

/** Options of {@link FilePromptOverridesStore}. */
export interface FilePromptOverridesStoreOptions {
  /** The directory holding `<ns>/<key>/<tag>.<ext>`; created on the first write. */
  readonly dir: string;
  /** The format of a file the store creates; an existing file keeps its own. @default 'json' */
  readonly format?: OverridesFileFormat;
}

/**
 * Keeps each prompt's overrides in `<dir>/<ns>/<key>/<tag>.json` (or
 * `.yaml`/`.yml`). Names are checked against the key rule before they
 * become a path, so no name leaves `dir`; below `dir`, a symbolic link (a
 * directory or a file) is refused, so no link committed beside the
 * overrides leads a read or a write out of `dir` either (`dir` itself may
 * be one). Writes replace a file atomically; a file that does not parse is
 * an error naming the file and the field, never quoting its text.
 *
 * @example
 * const store = new FilePromptOverridesStore({ dir: 'prompts/overrides' });
 * const prompt = await Prompt.withOverrides(template, { store, tag: 'stable' });
 */
export class FilePromptOverridesStore implements PromptOverridesStore {
  /** The directory, absolute. */
  readonly dir: string;
  readonly format: OverridesFileFormat;

  /** @throws PromptOverridesError for an empty `dir` or an unknown `format`. */
  constructor(options: FilePromptOverridesStoreOptions) {
    if (typeof options.dir !== 'string' || options.dir.trim().length === 0) {
      throw new PromptOverridesError(
        `overrides dir must be a non-empty path, received ${JSON.stringify(options.dir) ?? String(options.dir)}`,
      );
    }
    const format = options.format ?? DEFAULT_OVERRIDES_FILE_FORMAT;
    if (!Object.hasOwn(EXTENSIONS, format)) {
      throw new PromptOverridesError(
        `overrides file format ${JSON.stringify(format)} must be one of ${Object.keys(EXTENSIONS).join(', ')}`,
      );
    }
    this.dir = path.resolve(options.dir);
    this.format = format;
    Object.freeze(this);
  }

  /**
   * The file holding the overrides of `ref`, or `undefined` when there is none.
   * @throws PromptOverridesError for a bad name, a symbolic link below
   *   `dir`, or when two files (say `latest.json` and `latest.yaml`) hold
   *   the same tag.
   */
  async locate(
    ref: PromptOverridesRef,
    options: OverridesStoreCallOptions = {},
  ): Promise<string | undefined> {
    return (await this.#read(ref, options))?.file;
  }

  async resolve(
    ref: PromptOverridesRef,
    options: OverridesStoreCallOptions = {},
  ): Promise<PromptOverrides | undefined> {
    const found = await this.#read(ref, options);
    if (found === undefined) return undefined;
    const { file, text } = found;
    const overrides = parsePromptOverrides(parseText(file, text), {
      source: `overrides file ${JSON.stringify(file)}`,
      requireVersion: true,
      quoteValues: false,
    });
    for (const field of ['ns', 'key', 'tag'] as const) {
      if (overrides[field] !== ref[field]) {
        throw new PromptOverridesError(
          `overrides file ${JSON.stringify(file)}: ${field} is ${JSON.stringify(overrides[field])}, ` +
            `but the file's place in ${JSON.stringify(this.dir)} says ${JSON.stringify(ref[field])}`,
        );
      }
    }
    return overrides;
  }

  async upsert(overrides: PromptOverrides, options: OverridesStoreCallOptions = {}): Promise<void> {
    const checked = parsePromptOverrides(overrides);
    const existing = await this.#read(checked, options);
    const file = existing?.file ?? this.#candidates(checked, this.format)[0]!;
    const document = overridesDocument(checked);
    const text = isYaml(file)
      ? stringify(document, { lineWidth: 0 })
      : `${JSON.stringify(document, null, 2)}\n`;
    options.signal?.throwIfAborted();
    await this.#makeDirectories(checked);
    // A temporary file opened exclusively, then renamed over `file`: a link
    // at either name is replaced, never written through.
    await writeFileAtomic(file, text, OVERRIDES_FILE_MODE);
  }

  async delete(ref: PromptOverridesRef, options: OverridesStoreCallOptions = {}): Promise<boolean> {
    const files = this.#candidates(ref);
    // Through a linked directory, unlink would remove a file outside `dir`.
    if (!(await this.#directoriesExist(ref))) return false;
    let removed = false;
    for (const file of files) {
      options.signal?.throwIfAborted();
      try {
        await unlink(file);
        removed = true;
      } catch (error) {
        if (!isErrno(error, 'ENOENT')) throw error;
      }
    }
    return removed;
  }

  /** The one existing file of `ref` and its text. */
  async #read(
    ref: PromptOverridesRef,
    options: OverridesStoreCallOptions,
  ): Promise<{ readonly file: string; readonly text: string } | undefined> {
    const files = this.#candidates(ref);
    if (!(await this.#directoriesExist(ref))) return undefined;
    const found: { file: string; text: string }[] = [];
    for (const file of files) {
      const text = await readOverridesFile(file, options.signal);
      if (text !== undefined) found.push({ file, text });
    }
    if (found.length > 1) {
      throw new PromptOverridesError(
        `overrides of "${ref.ns}/${ref.key}" tag "${ref.tag}" are in ${found.length} files ` +
          `(${found.map((entry) => JSON.stringify(entry.file)).join(', ')}); keep one`,
      );
    }
    return found[0];
  }

  /**
   * Whether `<dir>/<ns>` and `<dir>/<ns>/<key>` both exist, checked without
   * following links: false as soon as one does not.
   * @throws PromptOverridesError for a symbolic link or a non-directory among them.
   */
  async #directoriesExist(ref: PromptOverridesRef): Promise<boolean> {
    // `dir` may be the caller's link: what it leads to must be no other user's.
    const root = await statOrMissing(this.dir, stat);
    if (root === undefined) return false;
    await this.#checkAncestors();
    this.#checkOwner(this.dir, root);
    for (const directory of this.#directories(ref)) {
      const stats = await statOrMissing(directory, lstat);
      if (stats === undefined) return false;
      this.#checkDirectory(directory, stats);
    }
    return true;
  }

  /** Creates `dir`, then `<ns>` and `<key>` one at a time, refusing a link or a file in their place. */
  async #makeDirectories(ref: PromptOverridesRef): Promise<void> {
    // `dir` is the caller's to choose, links and all; no other user may change it.
    await mkdir(this.dir, { recursive: true });
    await this.#checkAncestors();
    this.#checkOwner(this.dir, await stat(this.dir));
    for (const directory of this.#directories(ref)) {
      try {
        // Not recursive: mkdir on an existing link fails with EEXIST, never follows it.
        await mkdir(directory);
      } catch (error) {
        if (!isErrno(error, 'EEXIST')) throw error;
      }
      this.#checkDirectory(directory, await lstat(directory));
    }
  }

  #checkDirectory(directory: string, stats: Stats): void {
    this.#checkOwner(directory, stats);
    if (stats.isSymbolicLink()) {
      throw new PromptOverridesError(
        `overrides directory ${JSON.stringify(directory)} is a symbolic link; ` +
          `the store reads and writes only real directories below ${JSON.stringify(this.dir)}: ` +
          `replace the link with a directory`,
      );
    }
    if (!stats.isDirectory()) {
      throw new PromptOverridesError(
        `overrides directory ${JSON.stringify(directory)} is not a directory`,
      );
    }
  }

  /**
   * Refuses a directory another user could change: owned by someone other
   * than this user or root, or writable by others without the sticky bit.
   * Such a user could put a link in place of `<ns>` or `<key>` between
   * the check above and the write (the store runs as root in a repository
   * another user can write), and the write would land outside `dir`. A
   * group-writable directory is let be (user private groups make it the
   * common case). Where there are no uids (Windows), nothing is checked.
   */
  #checkOwner(directory: string, stats: Stats): void {
    const uid = typeof process.geteuid === 'function' ? process.geteuid() : undefined;
    if (uid === undefined || stats.isSymbolicLink()) return;
    if (stats.uid !== uid && stats.uid !== 0) {
      throw new PromptOverridesError(
        `overrides directory ${JSON.stringify(directory)} belongs to another user (uid ${stats.uid}); ` +
          `the store reads and writes only directories of this user or root`,
      );
    }
    if ((stats.mode & 0o002) !== 0 && (stats.mode & 0o1000) === 0) {
      throw new PromptOverridesError(
        `overrides directory ${JSON.stringify(directory)} is writable by other users ` +
          `(mode ${(stats.mode & 0o7777).toString(8)}); make it 755 or narrower`,
      );
    }
  }

  /**
   * Refuses a `dir` that another user could replace: one of the
   * directories that hold it (on its path as given and on its real path)
   * belongs to someone other
   * than this user or root, or is writable by others without the sticky
   * bit, or has it (as `/tmp`) while the entry on the way belongs to
   * another user. Such a user could swap `dir`, or a directory above it,
   * for a link between the checks and a write.
   */
  async #checkAncestors(): Promise<void> {
    const uid = typeof process.geteuid === 'function' ? process.geteuid() : undefined;
    if (uid === undefined) return;
    const mine = (stats: Stats): boolean => stats.uid === uid || stats.uid === 0;
    // The path as given (a link on it may be re-pointed by whoever holds
    // the link) and the real path (where the link leads): every directory
    // holding an entry of either must be no other user's to change.
    for (const way of [path.resolve(this.dir), await realpath(this.dir)]) {
      let holder = path.parse(way).root;
      let holderStats = await stat(holder);
      for (const name of way.split(path.sep).filter((part) => part !== '')) {
        const entry = path.join(holder, name);
        const entryStats = await lstat(entry);
        const othersWrite = (holderStats.mode & 0o002) !== 0;
        const sticky = (holderStats.mode & 0o1000) !== 0;
        if (!mine(holderStats) || (othersWrite && (!sticky || !mine(entryStats)))) {
          throw new PromptOverridesError(
            `overrides directory ${JSON.stringify(this.dir)}: ${JSON.stringify(holder)} on the way ` +
              `(uid ${holderStats.uid}, mode ${(holderStats.mode & 0o7777).toString(8)}) lets another user ` +
              `replace ${JSON.stringify(entry)}; expected every directory on the way to belong to ` +
              `root or this user, and writable by others only with the sticky bit`,
          );
        }
        if (entryStats.isSymbolicLink()) {
          // The path a link names is walked by the real path only when it has
          // no link of its own: a link through another one is a path nobody checks.
          const target = path.resolve(holder, await readlink(entry));
          if ((await realpath(target)) !== target) {
            throw new PromptOverridesError(
              `overrides directory ${JSON.stringify(this.dir)}: the link ${JSON.stringify(entry)} ` +
                `leads through another link (${JSON.stringify(target)}); link straight to a directory`,
            );
          }
        }
        holder = entry;
        // Through a link, on to what it leads to.
        holderStats = entryStats.isSymbolicLink() ? await stat(entry) : entryStats;
      }
    }
  }

  /** `<dir>/<ns>` and `<dir>/<ns>/<key>`, for a ref checked by {@link #candidates}. */
  #directories(ref: PromptOverridesRef): string[] {
    return [path.join(this.dir, ref.ns), path.join(this.dir, ref.ns, ref.key)];
  }

  /** Where the overrides of `ref` may be, in the given format or in any. */
  #candidates(ref: PromptOverridesRef, format?: OverridesFileFormat): string[] {
    const { ns, key, tag } = checkOverridesRef(ref);
    const extensions = format === undefined ? Object.values(EXTENSIONS).flat() : EXTENSIONS[format];
    return extensions.map((extension) => {
      const file = path.join(this.dir, ns, key, `${tag}${extension}`);
      // The key rule already keeps separators and `..` out; this says so again, in one place.
      const relative = path.relative(this.dir, file);
      if (relative.startsWith('..') || path.isAbsolute(relative)) {
        throw new PromptOverridesError(
          `overrides of "${ns}/${key}" tag "${tag}" would be outside ${JSON.stringify(this.dir)}`,
        );
      }
      return file;
    });
  }
}

/** `read(file)`'s stats, or undefined when there is nothing there. */
async function statOrMissing(
  file: string,
  read: (file: string) => Promise<Stats>,
): Promise<Stats | undefined> {
  try {
    return await read(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
}

function isYaml(file: string): boolean {
  return EXTENSIONS.yaml.includes(path.extname(file));
}

/**
 * The text of `file`, or `undefined` when there is none. Opened without
 * following a link, so a link in the file's place cannot lead the read out
 * of the store's directory, and checked to be a regular file (a FIFO would
 * block the read): see `core/regular-file.ts`.
 * @throws PromptOverridesError for a link, a directory or another special file.
 */
async function readOverridesFile(
  file: string,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  try {
    return await readRegularFile(file, signal);
  } catch (error) {
    if (!(error instanceof NotARegularFileError)) throw error;
    if (error.kind === 'a symbolic link') throw linkError(file, error);
    throw new PromptOverridesError(
      error.kind === 'a directory'
        ? `overrides file ${JSON.stringify(file)} is a directory`
        : `overrides file ${JSON.stringify(file)} is not a regular file`,
    );
  }
}

function linkError(file: string, cause?: unknown): PromptOverridesError {
  return new PromptOverridesError(
    `overrides file ${JSON.stringify(file)} is a symbolic link; ` +
      `the store reads only regular files: replace the link with the file itself`,
    cause === undefined ? {} : { cause },
  );
}

/**
 * The data in an overrides file.
 * @throws PromptOverridesError naming the file and where the syntax error is.
 *   The parsers' own messages quote the text around the error, which may be
 *   anything a link or a mistake put there (a credential): only the line,
 *   the column and YAML's error code are given, and the parser's error is
 *   not kept as the cause.
 */
function parseText(file: string, text: string): unknown {
  if (isYaml(file)) {
    const document = parseDocument(text);
    const [error] = document.errors;
    if (error !== undefined) {
      const where = error.linePos?.[0];
      const at = where === undefined ? '' : ` at line ${where.line}, column ${where.col}`;
      throw new PromptOverridesError(
        `overrides file ${JSON.stringify(file)} is not valid YAML${at}: ${error.code}`,
      );
    }
    try {
      return document.toJS();
    } catch (error) {
      // yaml's own words would quote the file (an alias's name): named by kind only.
      const what =
        error instanceof ReferenceError
          ? 'too many alias uses, or an alias without its anchor'
          : 'a value it cannot convert (a merge key of something other than a map)';
      throw new PromptOverridesError(
        `overrides file ${JSON.stringify(file)} is not valid YAML: ${what}`,
      );
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // V8 gives a position only for some errors ("… in JSON at position 12").
    const message = error instanceof Error ? error.message : '';
    const position = message.startsWith('Unexpected end of JSON input')
      ? text.length
      : /position (\d+)/.exec(message)?.[1];
    const at = position === undefined ? '' : ` at ${lineAndColumn(text, Number(position))}`;
    throw new PromptOverridesError(`overrides file ${JSON.stringify(file)} is not valid JSON${at}`);
  }
}

function lineAndColumn(text: string, offset: number): string {
  const lines = text.slice(0, offset).split('\n');
  return `line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1}`;
}
