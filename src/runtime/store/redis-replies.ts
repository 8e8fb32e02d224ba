/** Replies of Redis (and of the store's scripts) read back into session data; anything unexpected is corruption. */
import { type DataSensitivity, datasetRecord, isDataSensitivity } from '../../core/sensitivity.js';
import type { PrivateDataState } from '../private-data.js';
import { SessionStoreError } from './errors.js';
import type { RemoteSessionEvent } from './event-serialization.js';
import type { JsonValue } from './json-value.js';
import { privateDataState } from './session-store.js';

export function asArray(reply: unknown, length: number): unknown[] {
  if (!Array.isArray(reply) || reply.length < length) {
    throw new SessionStoreError(
      'store-corrupt',
      `unexpected reply from Redis: expected a list of ${length} items, received ${describeReply(reply)}`,
    );
  }
  return reply as unknown[];
}

/** A reply in a message: a list by its length, a short string as it is, nil as nil. */
function describeReply(reply: unknown): string {
  if (Array.isArray(reply)) return `a list of ${reply.length} item${reply.length === 1 ? '' : 's'}`;
  if (reply === null || reply === undefined) return 'nil';
  if (typeof reply === 'string') {
    return reply.length <= 40 ? JSON.stringify(reply) : `a string of ${reply.length} characters`;
  }
  return typeof reply === 'number' ? String(reply) : `a ${typeof reply}`;
}

/**
 * The session's version as a script of `redis-scripts.ts` read it.
 * @throws SessionStoreError `store-corrupt` when it is not a count, or when
 *   the session's private-data state is gone while its version is kept:
 *   its level is then unknown, and nothing may go on as if it were public.
 */
export function storedVersion(value: unknown, sessionId: string): number {
  if (value === 'lost') {
    throw new SessionStoreError(
      'store-corrupt',
      `session ${JSON.stringify(sessionId)}: its private-data state is gone from Redis while its version is kept (evicted under an allkeys-* maxmemory policy, or deleted by hand), so its level is unknown; delete the session or restore its keys, and keep session keys from eviction (noeviction or a volatile-* policy)`,
    );
  }
  return toVersion(value);
}

export function toVersion(value: unknown): number {
  // Only digits: `Number('')`, `Number(' 5 ')` or `Number('0x10')` would read garbage as a count.
  const version =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new SessionStoreError('store-corrupt', `stored version ${String(value)} is not a count`);
  }
  return version;
}

/** Pairs of a flat HGETALL reply from a script; anything else is corruption, never "nothing stored". */
function pairs(fields: unknown, sessionId: string): [string, string][] {
  if (!Array.isArray(fields) || fields.length % 2 !== 0) {
    throw new SessionStoreError(
      'store-corrupt',
      `session ${JSON.stringify(sessionId)}: expected a list of field/value pairs from Redis, received ${Array.isArray(fields) ? `${fields.length} items` : typeof fields}`,
    );
  }
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    out.push([String(fields[i]), String(fields[i + 1])]);
  }
  return out;
}

export function parsePrivateData(sessionId: string, fields: unknown): PrivateDataState {
  let level: DataSensitivity = 'public';
  const datasets = datasetRecord();
  for (const [field, value] of pairs(fields, sessionId)) {
    if (!isDataSensitivity(value)) {
      throw new SessionStoreError(
        'store-corrupt',
        `session ${JSON.stringify(sessionId)}: stored level ${JSON.stringify(value)} of ${JSON.stringify(field)} is not one of public, internal, confidential, secret`,
      );
    }
    if (field === 'level') level = value;
    else if (field.startsWith('d:')) datasets[field.slice(2)] = value;
  }
  return privateDataState(level, datasets);
}

export function parseSlices(
  sessionId: string,
  fields: unknown,
): Readonly<Record<string, JsonValue>> {
  // Null-prototype: a slice named `__proto__` is a member like any other.
  const slices = Object.create(null) as Record<string, JsonValue>;
  for (const [name, text] of pairs(fields, sessionId)) {
    try {
      slices[name] = JSON.parse(text) as JsonValue;
    } catch (error) {
      throw new SessionStoreError(
        'store-corrupt',
        `session ${JSON.stringify(sessionId)}: slice ${JSON.stringify(name)} is not JSON`,
        { cause: error },
      );
    }
  }
  return Object.freeze(slices);
}

export function parseStreamEntry(
  sessionId: string,
  id: string,
  fields: readonly string[],
): RemoteSessionEvent | undefined {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] ?? '', fields[i + 1] ?? '');
  const type = map.get('type');
  const data = map.get('data');
  if (type === undefined || data === undefined) return undefined;
  try {
    const parsed = JSON.parse(data) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    return Object.freeze({
      id,
      sessionId,
      type,
      fields: Object.freeze(parsed as Record<string, unknown>),
    });
  } catch {
    return undefined;
  }
}
