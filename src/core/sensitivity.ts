/**
 * Data sensitivity levels and the private-data marker that servers put on
 * tool results. Pure: shared by the client runtime and the server toolkit.
 */

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

/** Reads the private-data marker from a result's `_meta`, if well formed. */
export function readPrivateDataMarker(meta: unknown): PrivateDataMarker | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const marker = (meta as Record<string, unknown>)[PRIVATE_DATA_META_KEY];
  if (typeof marker !== 'object' || marker === null) return undefined;
  const { dataset, sensitivity } = marker as Record<string, unknown>;
  if (typeof dataset !== 'string' || dataset.length === 0) return undefined;
  return { dataset, sensitivity: isDataSensitivity(sensitivity) ? sensitivity : 'confidential' };
}
