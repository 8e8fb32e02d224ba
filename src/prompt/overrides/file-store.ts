/**
 * `FilePromptOverridesStore`: overrides as files under one directory,
 * `<dir>/<ns>/<key>/<tag>.json` (or `.yaml`, `.yml`), meant to be edited by
 * hand and committed beside the code.
 */
import { mkdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument, stringify } from 'yaml';
import { isErrno, writeFileAtomic } from '../../core/atomic-file.js';
import { PromptOverridesError, messageOf } from '../../core/errors.js';
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
 * become a path, so no name leaves `dir`; writes replace a file atomically;
 * a file that does not parse is an error naming the file and the field.
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
   * @throws PromptOverridesError for a bad name, or when two files (say
   *   `latest.json` and `latest.yaml`) hold the same tag.
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
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, text, OVERRIDES_FILE_MODE);
  }

  async delete(ref: PromptOverridesRef, options: OverridesStoreCallOptions = {}): Promise<boolean> {
    let removed = false;
    for (const file of this.#candidates(ref)) {
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
    const found: { file: string; text: string }[] = [];
    for (const file of this.#candidates(ref)) {
      try {
        const text = await readFile(file, {
          encoding: 'utf8',
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        found.push({ file, text });
      } catch (error) {
        if (isErrno(error, 'ENOENT')) continue;
        if (isErrno(error, 'EISDIR')) {
          throw new PromptOverridesError(`overrides file ${JSON.stringify(file)} is a directory`, {
            cause: error,
          });
        }
        throw error;
      }
    }
    if (found.length > 1) {
      throw new PromptOverridesError(
        `overrides of "${ref.ns}/${ref.key}" tag "${ref.tag}" are in ${found.length} files ` +
          `(${found.map((entry) => JSON.stringify(entry.file)).join(', ')}); keep one`,
      );
    }
    return found[0];
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

function isYaml(file: string): boolean {
  return EXTENSIONS.yaml.includes(path.extname(file));
}

/** The data in an overrides file. @throws PromptOverridesError naming the file and the syntax error. */
function parseText(file: string, text: string): unknown {
  if (isYaml(file)) {
    const document = parseDocument(text);
    const [error] = document.errors;
    if (error !== undefined) {
      throw new PromptOverridesError(
        `overrides file ${JSON.stringify(file)} is not valid YAML: ${error.message}`,
        { cause: error },
      );
    }
    return document.toJS();
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new PromptOverridesError(
      `overrides file ${JSON.stringify(file)} is not valid JSON: ${messageOf(error)}`,
      { cause: error },
    );
  }
}
