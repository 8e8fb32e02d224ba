import {
  DATA_SENSITIVITY_LEVELS,
  type DataSensitivity,
  maxSensitivity,
  sensitivityRank,
  datasetRecord,
} from '../../core/sensitivity.js';
import type { PrivateDataState } from '../private-data.js';
import type { JsonValue } from './json-value.js';
import type { SerializedSessionEvent } from './event-serialization.js';

/** Options every store call takes. */
export interface StoreCallOptions {
  /** Abandons the call; the store operation may still complete underneath. */
  readonly signal?: AbortSignal;
}

/** A session's private-data state as a store holds it, with the store's version. */
export interface VersionedPrivateData {
  /**
   * Counts the changes of the stored private-data state: grows by one each
   * time a merge raised something, never otherwise. `0` when nothing is stored.
   */
  readonly version: number;
  readonly privateData: PrivateDataState;
}

/** Everything a store holds for one session. */
export interface StoredSession extends VersionedPrivateData {
  readonly sessionId: string;
  /** Values of the slices marked persistent, by slice name. */
  readonly slices: Readonly<Record<string, JsonValue>>;
}

/**
 * Where a session's private-data state and persistent slices outlive the
 * process. Implementations: `FileSessionStore` (one file per session, the
 * embedded default) and `RedisSessionStore` (several workers on several
 * hosts).
 *
 * The contract that keeps the ratchet one-way across processes:
 * `mergePrivateData` is an atomic maximum — no interleaving of concurrent
 * merges, from any number of processes, can lower a stored level or drop a
 * stored dataset — and `version` changes whenever a merge raised anything.
 */
export interface SessionStore {
  /** What the store holds for `sessionId`, or `undefined` when nothing. */
  load(sessionId: string, options?: StoreCallOptions): Promise<StoredSession | undefined>;
  /** The stored private-data state; cheaper than `load` (no slices). */
  readPrivateData(sessionId: string, options?: StoreCallOptions): Promise<VersionedPrivateData>;
  /**
   * The version of the stored private-data state, as cheaply as the store
   * allows (Redis: no round trip while its change channel vouches for a
   * cached version, else one script call; file: one `stat` while the file is
   * unchanged). It must reflect every change that completed before the
   * call; docs/sessions.md says how each store keeps that promise, and
   * where Redis's change channel bounds it. `0` when nothing is stored.
   */
  version(sessionId: string, options?: StoreCallOptions): Promise<number>;
  /**
   * Merges `state` into the stored state as a maximum, atomically, and
   * returns the result. Raising anything increments the version.
   */
  mergePrivateData(
    sessionId: string,
    state: PrivateDataState,
    options?: StoreCallOptions,
  ): Promise<VersionedPrivateData>;
  /** Writes the given slices (others are kept); the last writer of a slice wins. */
  saveSlices(
    sessionId: string,
    slices: Readonly<Record<string, JsonValue>>,
    options?: StoreCallOptions,
  ): Promise<void>;
  /** Removes everything stored for `sessionId`. */
  delete(sessionId: string, options?: StoreCallOptions): Promise<void>;
  /**
   * Appends an event to the session's event stream, when the store has one
   * (used by `new Session({ mirrorEvents: true })`).
   */
  appendEvent?(
    sessionId: string,
    event: SerializedSessionEvent,
    options?: StoreCallOptions,
  ): Promise<void>;
  /** Releases connections and handles; idempotent. */
  close(): Promise<void>;
}

/** The state of a session that never held private data. */
export const EMPTY_PRIVATE_DATA: PrivateDataState = Object.freeze({
  hasPrivateData: false,
  sensitivity: 'public',
  datasets: Object.freeze(datasetRecord()),
});

/** The pointwise maximum of two private-data states. */
export function mergePrivateDataStates(a: PrivateDataState, b: PrivateDataState): PrivateDataState {
  const datasets = datasetRecord(Object.entries(a.datasets));
  for (const [name, level] of Object.entries(b.datasets)) {
    const known = datasets[name];
    datasets[name] = known === undefined ? level : maxSensitivity(known, level);
  }
  return privateDataState(maxSensitivity(a.sensitivity, b.sensitivity), datasets);
}

/** True when `outer` holds everything `inner` does, at the same level or higher. */
export function coversPrivateData(outer: PrivateDataState, inner: PrivateDataState): boolean {
  if (sensitivityRank(outer.sensitivity) < sensitivityRank(inner.sensitivity)) return false;
  return Object.entries(inner.datasets).every(([name, level]) => {
    const stored = Object.hasOwn(outer.datasets, name) ? outer.datasets[name] : undefined;
    return stored !== undefined && sensitivityRank(stored) >= sensitivityRank(level);
  });
}

/** A frozen state; `sensitivity` is raised to cover every dataset. */
export function privateDataState(
  sensitivity: DataSensitivity,
  datasets: Readonly<Record<string, DataSensitivity>>,
): PrivateDataState {
  let level = sensitivity;
  for (const dataset of Object.values(datasets)) level = maxSensitivity(level, dataset);
  return Object.freeze({
    // The level decides, not the dataset count: a state whose datasets were
    // lost or never named still blocks what its level blocks.
    hasPrivateData: level !== 'public',
    sensitivity: level,
    datasets: Object.freeze(datasetRecord(Object.entries(datasets))),
  });
}

/** The levels, for schemas. */
export const SENSITIVITY_LEVELS = DATA_SENSITIVITY_LEVELS as readonly [
  DataSensitivity,
  ...DataSensitivity[],
];
