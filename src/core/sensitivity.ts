/**
 * Data sensitivity levels and the private-data marker that servers put on
 * tool results. Pure: shared by the client runtime and the server toolkit.
 */
import { describeSent } from './describe-sent.js';

/** Sensitivity of data in a session, lowest first. */
export type DataSensitivity = 'public' | 'internal' | 'confidential' | 'secret';

/** Every level, in rising order. */
export const DATA_SENSITIVITY_LEVELS: readonly DataSensitivity[] = Object.freeze([
  'public',
  'internal',
  'confidential',
  'secret',
]);

/** Rank of a level: `public` is 0, `secret` is 3. */
export function sensitivityRank(level: DataSensitivity): number {
  return DATA_SENSITIVITY_LEVELS.indexOf(level);
}

/** True when `value` is one of the four levels. */
export function isDataSensitivity(value: unknown): value is DataSensitivity {
  return (
    typeof value === 'string' && (DATA_SENSITIVITY_LEVELS as readonly string[]).includes(value)
  );
}

/** The higher of two levels. */
export function maxSensitivity(a: DataSensitivity, b: DataSensitivity): DataSensitivity {
  return sensitivityRank(a) >= sensitivityRank(b) ? a : b;
}

/** True when `level` is at or above `threshold`. */
export function atLeast(level: DataSensitivity, threshold: DataSensitivity): boolean {
  return sensitivityRank(level) >= sensitivityRank(threshold);
}

/** The longest dataset name kept as it is (a private-data marker, a server's tool, a session file). */
export const MAX_DATASET_NAME_LENGTH = 256;

/**
 * Key under a tool result's `_meta` that tells the client a dataset of the
 * given sensitivity entered the session: `{ dataset, sensitivity }`.
 */
export const PRIVATE_DATA_META_KEY = 'mcp-sections/private-data';

/** Value of the {@link PRIVATE_DATA_META_KEY} marker. */
export interface PrivateDataMarker {
  readonly dataset: string;
  readonly sensitivity: DataSensitivity;
}

/**
 * What a result's `_meta` says about private data: nothing, a well-formed
 * marker, or a marker that is there but cannot be read. A malformed marker
 * still means the server meant to flag private data, so callers fail
 * closed: they raise the session to {@link MALFORMED_MARKER_SENSITIVITY}.
 */
export type PrivateDataMarkerReading =
  | { readonly kind: 'none' }
  | { readonly kind: 'marker'; readonly marker: PrivateDataMarker }
  | { readonly kind: 'malformed'; readonly reason: string };

/** The level a malformed private-data marker raises the session to. */
export const MALFORMED_MARKER_SENSITIVITY: DataSensitivity = 'confidential';

const NO_MARKER: PrivateDataMarkerReading = Object.freeze({ kind: 'none' });

/**
 * Reads the private-data marker from a result's `_meta`. A missing
 * `sensitivity` means `confidential`; anything else that is not
 * `{ dataset: non-empty string, sensitivity?: level }` is malformed.
 */
export function readPrivateDataMarker(meta: unknown): PrivateDataMarkerReading {
  if (typeof meta !== 'object' || meta === null || !Object.hasOwn(meta, PRIVATE_DATA_META_KEY)) {
    return NO_MARKER;
  }
  const marker: unknown = (meta as Record<string, unknown>)[PRIVATE_DATA_META_KEY];
  if (typeof marker !== 'object' || marker === null || Array.isArray(marker)) {
    return malformed(`the marker is ${describeMarkerValue(marker)}, not an object`);
  }
  const dataset = Object.hasOwn(marker, 'dataset')
    ? (marker as Record<string, unknown>)['dataset']
    : undefined;
  const sensitivity = Object.hasOwn(marker, 'sensitivity')
    ? (marker as Record<string, unknown>)['sensitivity']
    : undefined;
  if (typeof dataset !== 'string' || dataset.trim().length === 0) {
    return malformed(`its dataset is ${describeMarkerValue(dataset)}, not a non-empty string`);
  }
  if (sensitivity === undefined) {
    return { kind: 'marker', marker: { dataset, sensitivity: 'confidential' } };
  }
  if (!isDataSensitivity(sensitivity)) {
    return malformed(
      `its sensitivity is ${describeMarkerValue(sensitivity)}, not one of ${DATA_SENSITIVITY_LEVELS.join(', ')}`,
    );
  }
  return { kind: 'marker', marker: { dataset, sensitivity } };
}

function malformed(reason: string): PrivateDataMarkerReading {
  return { kind: 'malformed', reason };
}

/** A marker's value as the server sent it, shown so that masking still finds a secret in it. */
function describeMarkerValue(value: unknown): string {
  return value === undefined ? 'missing' : describeSent(value);
}

/**
 * A record keyed by dataset name with no prototype: a dataset named
 * `__proto__`, `constructor` or `toString` is an own key like any other,
 * never a setter or an inherited member.
 */
export function datasetRecord(
  entries: Iterable<readonly [string, DataSensitivity]> = [],
): Record<string, DataSensitivity> {
  const record = Object.create(null) as Record<string, DataSensitivity>;
  for (const [name, level] of entries) record[name] = level;
  return record;
}
