/**
 * A persistent slice of counted entries, for what calls record and a
 * failed call must forget (sections opened, files read): every entry has a
 * place of its own, and every call that records an entry writes it (raising
 * its count), so parallel calls never share a place, and a failed call's
 * rollback removes only what no successful call recorded too.
 */
import type { Session } from './session.js';
import type { Slice } from './slice.js';

/** The value of a counted-entries slice: how many calls recorded each entry. */
export type CountedEntries = Readonly<Record<string, number>>;

/**
 * The session's slice `name` of counted entries, created persistent and
 * empty on first use (with what the session's store kept).
 * @throws SessionStoreError `session-not-loaded` for a session whose store is not loaded yet.
 */
export function countedEntriesSlice(session: Session, name: string): Slice<CountedEntries> {
  try {
    // Made already (by an earlier call, or by application code): share it.
    return session.slice<CountedEntries>(name);
  } catch {
    return session.slice<CountedEntries>(name, { initial: {}, persistent: true });
  }
}

/** Records `entries` for the calling call: each is written, even when recorded before. */
export function recordEntries(slice: Slice<CountedEntries>, entries: Iterable<string>): void {
  slice.update((draft) => {
    for (const entry of entries) draft[entry] = entryCount(draft, entry) + 1;
  });
}

/** How many calls recorded `entry`; 0 for none (or a stored value that is not a count). */
export function entryCount(entries: unknown, entry: string): number {
  if (typeof entries !== 'object' || entries === null || !Object.hasOwn(entries, entry)) return 0;
  const count: unknown = (entries as Record<string, unknown>)[entry];
  return typeof count === 'number' && count > 0 ? count : 0;
}
