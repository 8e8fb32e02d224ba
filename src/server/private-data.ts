/**
 * Private-data compliance on the server: which sensitive datasets a
 * session has read, kept outside the workspace so that the agent cannot
 * edit it, in `<privateDataDir>/<user>/<session>/.private_data`:
 *
 * ```json
 * { "has_private_data": true, "private_datasets": ["patient_records"], "sensitivity": "confidential" }
 * ```
 *
 * The level only rises. Updates are atomic (temp file, fsync, rename) and
 * serialised by a lock file, because two deployments of one server (normal
 * and isolated) share the directory: an in-process mutex alone would let two
 * concurrent updates lose one another (and a level could drop).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE, writeFileAtomic } from '../core/atomic-file.js';
import { messageOf } from '../core/errors.js';
import { readRegularFile } from '../core/regular-file.js';
import {
  FileLockLostError,
  FileLockTimeoutError,
  type HeldFileLock,
  withFileLock,
} from '../core/file-lock.js';
import {
  isDataSensitivity,
  MAX_DATASET_NAME_LENGTH,
  maxSensitivity,
  sensitivityRank,
  type DataSensitivity,
  type PrivateDataMarker,
} from '../core/sensitivity.js';
import { PrivateDataError, ServerContextError, ServerOptionsError } from './errors.js';
import { toPathSegment } from './path-segment.js';
import {
  checkIdentityId,
  currentScope,
  requireIdentity,
  type Identity,
} from './request-context.js';

/** Name of the state file inside `<privateDataDir>/<user>/<session>/`. */
export const PRIVATE_DATA_FILE_NAME = '.private_data';

/** Longest dataset name accepted (the one the session keeps as it is). */
export { MAX_DATASET_NAME_LENGTH };

/** How long an update waits for another process's lock on the state file, in milliseconds. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
/**
 * A lock whose owner cannot be asked (another host, or not written by this
 * library) is broken once it is this old, in milliseconds. The lock of a
 * running process of this host is never broken; one of an exited process at once.
 */
export const DEFAULT_LOCK_STALE_MS = 30_000;

/** What a session holds; frozen. */
export interface SessionPrivateData {
  readonly hasPrivateData: boolean;
  /** Dataset names in the order they were first added. */
  readonly datasets: readonly string[];
  /** The highest level ever added; `public` while nothing was. */
  readonly sensitivity: DataSensitivity;
}

/** The state of a session that never read private data. */
export const NO_PRIVATE_DATA: SessionPrivateData = Object.freeze({
  hasPrivateData: false,
  datasets: Object.freeze([]),
  sensitivity: 'public' as const,
});

/** On-disk form; snake_case so that servers in other languages can share it. */
interface StateFile {
  readonly has_private_data: boolean;
  readonly private_datasets: readonly string[];
  readonly sensitivity: DataSensitivity;
}

/**
 * File-backed private-data state of every session under one directory.
 * Tools normally use the {@link privateData} facade instead, which takes
 * the directory and identity from the request context.
 *
 * @example
 * ```ts
 * const store = new PrivateDataStore('/var/lib/mcp/private-data');
 * await store.add({ userId: 'alice', sessionId: 's1' }, 'patient_records', 'confidential');
 * ```
 */
export class PrivateDataStore {
  /** Absolute directory holding `<user>/<session>/.private_data`. */
  readonly dir: string;

  /** @throws {ServerOptionsError} when `dir` is not an absolute path. */
  constructor(dir: string) {
    if (typeof dir !== 'string' || !path.isAbsolute(dir)) {
      throw new ServerOptionsError(
        'privateDataDir',
        `privateDataDir must be an absolute path, got ${JSON.stringify(dir)}`,
      );
    }
    this.dir = path.resolve(dir);
  }

  /**
   * The state file of one session (it may not exist yet).
   *
   * @throws {ServerOptionsError} for an empty or oversized id.
   */
  filePath(identity: Identity): string {
    return path.join(
      this.dir,
      toPathSegment(checkIdentityId('userId', identity.userId)),
      toPathSegment(checkIdentityId('sessionId', identity.sessionId)),
      PRIVATE_DATA_FILE_NAME,
    );
  }

  /**
   * The state of one session; {@link NO_PRIVATE_DATA} when it has none.
   *
   * @throws {PrivateDataError} when the file exists but is not a valid state.
   */
  async read(identity: Identity): Promise<SessionPrivateData> {
    const file = this.filePath(identity);
    let text: string | undefined;
    try {
      // Not through a link, and not waiting on a FIFO: either could stand in for a lower state.
      text = await readRegularFile(file);
    } catch (error) {
      throw new PrivateDataError(`cannot read private-data state ${file}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return text === undefined ? NO_PRIVATE_DATA : parseState(text, file);
  }

  /**
   * Records that the session read `dataset` at `sensitivity`. The session's
   * level becomes the maximum of its level and `sensitivity`; it never drops.
   *
   * @default sensitivity 'confidential'
   * @returns The state after the update.
   * @throws {ServerOptionsError} for an empty dataset name or an unknown level.
   * @throws {PrivateDataError} when the state cannot be read or written.
   */
  async add(
    identity: Identity,
    dataset: string,
    sensitivity: DataSensitivity = 'confidential',
  ): Promise<SessionPrivateData> {
    checkDataset(dataset);
    checkSensitivity(sensitivity);
    const file = this.filePath(identity);
    await mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
    return withStateLock(file, async (held) => {
      const before = await this.read(identity);
      const after: SessionPrivateData = Object.freeze({
        hasPrivateData: true,
        datasets: Object.freeze(
          before.datasets.includes(dataset) ? [...before.datasets] : [...before.datasets, dataset],
        ),
        sensitivity: maxSensitivity(before.sensitivity, sensitivity),
      });
      const onDisk: StateFile = {
        has_private_data: after.hasPrivateData,
        private_datasets: after.datasets,
        sensitivity: after.sensitivity,
      };
      await writeFileAtomic(file, JSON.stringify(onDisk, null, 2) + '\n', PRIVATE_FILE_MODE, {
        beforeRename: () => held.assertHeld(),
      });
      return after;
    });
  }
}

/**
 * Runs `fn` holding `<file>.lock`.
 *
 * @throws {PrivateDataError} when the lock is not acquired within
 *   {@link DEFAULT_LOCK_TIMEOUT_MS}, or is broken under every attempt.
 */
async function withStateLock<T>(file: string, fn: (held: HeldFileLock) => Promise<T>): Promise<T> {
  try {
    return await withFileLock(
      `${file}.lock`,
      { timeoutMs: DEFAULT_LOCK_TIMEOUT_MS, staleMs: DEFAULT_LOCK_STALE_MS },
      fn,
    );
  } catch (error) {
    if (error instanceof FileLockTimeoutError) {
      throw new PrivateDataError(
        `could not lock the private-data state within ${DEFAULT_LOCK_TIMEOUT_MS} ms; another process holds it`,
        { cause: error },
      );
    }
    if (error instanceof FileLockLostError) {
      throw new PrivateDataError(
        `the lock on the private-data state was broken by another process during each attempt; nothing was written`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * Private-data compliance for the current tool call: the store is the
 * server's `privateDataDir`, the session is the caller's.
 *
 * @example
 * ```ts
 * defineTool(server, {
 *   name: 'load_sensitive_dataset', permissions: ['read'], ...,
 *   handler: async ({ name }) => {
 *     const rows = await loadRows(name);
 *     await privateData.add(name, 'confidential'); // flags the session, marks the result
 *     return contextResult(rows);
 *   },
 * });
 * ```
 */
export const privateData = Object.freeze({
  /**
   * Records that this session read `dataset`. Writes the state file and
   * puts the `_meta["mcp-sections/private-data"]` marker on this tool's
   * result, so the client ratchets even when it shares no disk with the
   * server.
   *
   * @default sensitivity 'confidential'
   * @throws {ServerContextError} outside a tool registered with `defineTool`.
   * @throws {ServerOptionsError} for an empty dataset name or an unknown level.
   * @throws {PrivateDataError} when the state cannot be read or written.
   */
  async add(
    dataset: string,
    sensitivity: DataSensitivity = 'confidential',
  ): Promise<SessionPrivateData> {
    const { store, identity, markers } = resolve('privateData.add()');
    const state = await store.add(identity, dataset, sensitivity);
    markers.push(Object.freeze({ dataset, sensitivity }));
    return state;
  },

  /**
   * The current session's state.
   *
   * @throws {ServerContextError} outside a tool registered with `defineTool`.
   * @throws {PrivateDataError} when the state file is unreadable.
   */
  async read(): Promise<SessionPrivateData> {
    const { store, identity } = resolve('privateData.read()');
    return store.read(identity);
  },
});

/** The strongest of several markers (the first one among equals). */
export function strongestMarker(
  markers: readonly PrivateDataMarker[],
): PrivateDataMarker | undefined {
  let best: PrivateDataMarker | undefined;
  for (const marker of markers) {
    if (
      best === undefined ||
      sensitivityRank(marker.sensitivity) > sensitivityRank(best.sensitivity)
    ) {
      best = marker;
    }
  }
  return best;
}

function resolve(what: string): {
  store: PrivateDataStore;
  identity: Identity;
  markers: PrivateDataMarker[];
} {
  const scope = currentScope();
  if (scope?.settings === undefined || scope.privateDataMarkers === undefined) {
    throw new ServerContextError(`${what} must run inside a tool registered with defineTool()`);
  }
  return {
    store: new PrivateDataStore(scope.settings.privateDataDir),
    identity: requireIdentity(what),
    markers: scope.privateDataMarkers,
  };
}

function checkDataset(dataset: unknown): void {
  if (typeof dataset !== 'string' || dataset.trim().length === 0) {
    throw new ServerOptionsError(
      'dataset',
      `dataset name must be a non-empty string such as "patient_records", got ${JSON.stringify(dataset)}`,
    );
  }
  if (dataset.length > MAX_DATASET_NAME_LENGTH) {
    throw new ServerOptionsError(
      'dataset',
      `dataset name is ${dataset.length} characters long; at most ${MAX_DATASET_NAME_LENGTH} are allowed`,
    );
  }
}

function checkSensitivity(sensitivity: unknown): void {
  if (!isDataSensitivity(sensitivity)) {
    throw new ServerOptionsError(
      'sensitivity',
      `sensitivity must be one of public, internal, confidential, secret; got ${JSON.stringify(sensitivity)}`,
    );
  }
}

function parseState(text: string, file: string): SessionPrivateData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new PrivateDataError(`private-data state ${file} is not valid JSON`, { cause: error });
  }
  const value = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const { has_private_data: has, private_datasets: datasets, sensitivity } = value;
  if (
    typeof has !== 'boolean' ||
    !Array.isArray(datasets) ||
    !datasets.every((d): d is string => typeof d === 'string') ||
    !isDataSensitivity(sensitivity)
  ) {
    throw new PrivateDataError(
      `private-data state ${file} must hold { has_private_data: boolean, ` +
        `private_datasets: string[], sensitivity: public|internal|confidential|secret }`,
    );
  }
  return Object.freeze({
    // A file that lists datasets counts as private even if the flag says
    // otherwise: a hand-edited flag must not open the connect gate.
    hasPrivateData: has || datasets.length > 0,
    datasets: Object.freeze([...datasets]),
    sensitivity,
  });
}
