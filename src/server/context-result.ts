/**
 * Context-sized tool results: a result short enough for the model's context
 * is returned as is; a longer one is saved in full to the caller's workspace
 * and replaced by a message naming the file, with a head-and-tail preview.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import { CONTEXT_PRESETS, type ContextPreset, type ContextPresetName } from './context-presets.js';
import { isErrno } from '../core/atomic-file.js';
import { describeSent } from '../core/describe-sent.js';
import { ContextResultError, WorkspacePathError } from './errors.js';
import { createExclusiveFile } from './exclusive-file.js';
import { buildPreview } from './preview.js';
import { extensionOf, serializeResult, type ResultFormat } from './result-format.js';
import {
  WORKSPACE_PREFIX,
  resolveWorkspaceScope,
  sessionWorkspaceDir,
  workspaceToHostPath,
  type WorkspaceScope,
} from './workspace.js';

/** Where saved results go, as the agent sees it. */
export const RESULTS_DIR = `${WORKSPACE_PREFIX}/results`;

/** Options of {@link contextResult}. */
export interface ContextResultOptions {
  /**
   * A built-in preset name or a preset of your own.
   * @default 'default'
   */
  readonly preset?: ContextPresetName | ContextPreset;
  /** Force the kind instead of detecting it from the content. */
  readonly format?: ResultFormat;
  /** Whose workspace receives the saved file. @default the current caller's */
  readonly workspace?: WorkspaceScope;
}

/**
 * Returns `value` as text sized for the model's context.
 *
 * A string at or under the preset's threshold is returned unchanged; other
 * values are serialised as 2-space JSON first. Over the threshold, the full
 * text is saved to `/workspace/results/result_<8 hex>.<json|csv|txt>` and
 * the return value is
 * `Results saved to <path> (<n> chars)\n\nPreview:\n<preview>`.
 *
 * @throws {ContextResultError} for an unknown preset or a value without a JSON form.
 * @throws {WorkspacePathError} `traversal` when `/workspace/results` is a
 *   symlink or leads outside the workspace, even if swapped in mid-call.
 * @throws {ServerContextError} without `workspace` outside a tool call.
 * @example
 * ```ts
 * handler: async ({ sql }) => contextResult(await db.query(sql), { preset: 'sql_query' })
 * ```
 */
export async function contextResult(
  value: unknown,
  options: ContextResultOptions = {},
): Promise<string> {
  const preset = resolvePreset(options.preset);
  const serialized = serializeResult(value, options.format);
  if (serialized.text.length <= preset.threshold) return serialized.text;

  const scope = resolveWorkspaceScope(options.workspace, 'contextResult()');
  const saved = await saveResult(serialized.text, extensionOf(serialized.format), scope);
  const preview = buildPreview(serialized, preset);
  return `Results saved to ${saved} (${serialized.text.length} chars)\n\nPreview:\n${preview}`;
}

/**
 * Resolves a preset option.
 *
 * @throws {ContextResultError} naming an unknown preset and the known ones.
 */
export function resolvePreset(
  preset: ContextPresetName | ContextPreset | undefined,
): ContextPreset {
  if (preset === undefined) return CONTEXT_PRESETS.default;
  if (typeof preset === 'string') {
    if (Object.hasOwn(CONTEXT_PRESETS, preset)) return CONTEXT_PRESETS[preset];
    throw new ContextResultError(
      `unknown context preset ${JSON.stringify(preset)}; expected one of ${Object.keys(CONTEXT_PRESETS).join(', ')}`,
    );
  }
  if (typeof preset !== 'object' || preset === null) {
    throw new ContextResultError(
      `context preset must be a preset name or an object of sizes, got ${describeSent(preset)}`,
    );
  }
  // Every field of the default preset is needed: a missing one made an empty preview.
  for (const key of Object.keys(CONTEXT_PRESETS.default)) {
    const field: unknown = (preset as unknown as Record<string, unknown>)[key];
    if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < 0) {
      throw new ContextResultError(
        `context preset field ${key} must be a non-negative integer, got ${describeSent(field)}`,
      );
    }
  }
  return preset;
}

/** Attempts at a fresh random name before giving up (collisions are ~1 in 4 billion). */
const MAX_NAME_ATTEMPTS = 5;

/**
 * Saves `text` under a new random name in the results directory; returns
 * its workspace path. The file is created through a descriptor of the
 * directory and its real path checked before anything is written, so a
 * `results` swapped for a symlink mid-call cannot redirect the write.
 */
async function saveResult(text: string, extension: string, scope: WorkspaceScope): Promise<string> {
  const resultsHost = await workspaceToHostPath(RESULTS_DIR, scope);
  try {
    // The session's owner only: a saved result may hold private data.
    await mkdir(resultsHost, { recursive: true, mode: 0o700 });
  } catch (error) {
    // A file (or a FIFO) the agent put where the directory goes: its path to correct.
    if (isErrno(error, 'EEXIST') || isErrno(error, 'ENOTDIR')) {
      throw new WorkspacePathError(
        'wrong-kind',
        `${RESULTS_DIR} is not a directory; remove what is there so that results can be saved`,
        { cause: error },
      );
    }
    throw error;
  }
  const realBase = await realpath(sessionWorkspaceDir(scope));
  for (let attempt = 1; ; attempt++) {
    const name = `result_${randomBytes(4).toString('hex')}.${extension}`;
    const workspacePath = `${RESULTS_DIR}/${name}`;
    try {
      // O_EXCL: never overwrite an earlier result; O_NOFOLLOW: never follow a planted symlink.
      await createExclusiveFile(resultsHost, name, text, realBase, workspacePath);
      return workspacePath;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= MAX_NAME_ATTEMPTS)
        throw error;
    }
  }
}
