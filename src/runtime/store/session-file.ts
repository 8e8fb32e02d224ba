/**
 * The session file: where it lives by default (`session-directory.ts`
 * checks the directory), its name, and its format (JSON, `format` and `version` first so that
 * `version()` reads a few bytes).
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type DataSensitivity, datasetRecord, isDataSensitivity } from '../../core/sensitivity.js';
import type { PrivateDataState } from '../private-data.js';
import { messageOf } from '../../core/errors.js';
import { SessionStoreError } from './errors.js';
import type { JsonValue } from './json-value.js';
import { EMPTY_PRIVATE_DATA, SENSITIVITY_LEVELS, privateDataState } from './session-store.js';

/**
 * The directory sessions are stored in by default: `$XDG_STATE_HOME/mcp-sections/sessions`,
 * or `~/.local/state/mcp-sections/sessions` — per user, outside any project
 * or workspace.
 */
export function defaultSessionDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): string {
  const state = env['XDG_STATE_HOME'];
  const base =
    state !== undefined && path.isAbsolute(state) ? state : path.join(home, '.local', 'state');
  return path.join(base, 'mcp-sections', 'sessions');
}

/**
 * The name of the file that holds `sessionId`: the SHA-256 of the id, so
 * that no id (`../../etc`, `a/b`, a NUL) can name a path outside the
 * directory, and ids of any length fit a file name.
 */
export function sessionFileName(sessionId: string): string {
  return `${createHash('sha256').update(sessionId, 'utf8').digest('hex')}.json`;
}

const FORMAT = 1;
/** Bytes read by `version()`: the record starts with its format and version. */
export const VERSION_PREFIX_BYTES = 64;
export const VERSION_PREFIX = /^\{"format":1,"version":(\d+),/;

const levelSchema = z.enum(SENSITIVITY_LEVELS);
const recordSchema = z.object({
  format: z.literal(FORMAT),
  version: z.number().int().nonnegative(),
  sessionId: z.string(),
  privateData: z.object({
    sensitivity: levelSchema,
    // Checked by readDatasets: z.record would drop a dataset named "__proto__".
    datasets: z.unknown(),
  }),
  slices: z.record(z.string(), z.unknown()),
});

/** One session as the file holds it. */
export interface SessionRecord {
  readonly version: number;
  readonly sessionId: string;
  readonly privateData: PrivateDataState;
  readonly slices: Readonly<Record<string, JsonValue>>;
}

/** The record of a session never written. */
export function emptyRecord(sessionId: string): SessionRecord {
  return { version: 0, sessionId, privateData: EMPTY_PRIVATE_DATA, slices: {} };
}

/** The record's text; `format` and `version` come first so `version()` reads a few bytes. */
export function serializeRecord(record: SessionRecord): string {
  return `${JSON.stringify({
    format: FORMAT,
    version: record.version,
    sessionId: record.sessionId,
    privateData: {
      sensitivity: record.privateData.sensitivity,
      datasets: record.privateData.datasets,
    },
    slices: record.slices,
  })}\n`;
}

/**
 * The record in `text`, read back from `file`.
 * @throws SessionStoreError `store-corrupt` for anything but a record of `sessionId`.
 */
export function parseRecord(text: string, file: string, sessionId: string): SessionRecord {
  let parsed: z.infer<typeof recordSchema>;
  let json: { readonly slices: Record<string, JsonValue> };
  try {
    json = JSON.parse(text) as typeof json;
    parsed = recordSchema.parse(json);
  } catch (error) {
    throw new SessionStoreError(
      'store-corrupt',
      `session file ${file} cannot be read back: ${messageOf(error)}`,
      { cause: error },
    );
  }
  if (parsed.sessionId !== sessionId) {
    throw new SessionStoreError(
      'store-corrupt',
      `session file ${file} holds session ${JSON.stringify(parsed.sessionId)}, not ${JSON.stringify(sessionId)}`,
    );
  }
  return {
    version: parsed.version,
    sessionId,
    privateData: privateDataState(
      parsed.privateData.sensitivity,
      readDatasets(parsed.privateData.datasets, file),
    ),
    // As JSON.parse read them: zod's record assigns keys, and a slice named `__proto__` became a prototype.
    slices: Object.freeze(json.slices),
  };
}

/**
 * The stored datasets as a prototype-free record. Every name is kept,
 * `__proto__` included; a level that is not one of the four is corruption,
 * which fails the load rather than guessing lower.
 */
function readDatasets(value: unknown, file: string): Record<string, DataSensitivity> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SessionStoreError(
      'store-corrupt',
      `session file ${file}: privateData.datasets must be an object of dataset name to level, not ${JSON.stringify(value)}`,
    );
  }
  const datasets = datasetRecord();
  for (const [name, level] of Object.entries(value)) {
    if (!isDataSensitivity(level)) {
      throw new SessionStoreError(
        'store-corrupt',
        `session file ${file}: dataset ${JSON.stringify(name)} has level ${JSON.stringify(level)}, expected one of public, internal, confidential, secret`,
      );
    }
    datasets[name] = level;
  }
  return datasets;
}
