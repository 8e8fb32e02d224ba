import {
  countedEntriesSlice,
  entryCount,
  recordEntries,
  type CountedEntries,
} from '../../runtime/counted-entries.js';
import type { Session } from '../../runtime/session.js';
import type { Slice } from '../../runtime/slice.js';

/**
 * Name of the session slice that records the sections the model opened. It
 * is persistent (kept by the session's store at `flush()`), and written
 * inside the `open_sections` call, so a failed call leaves it unchanged.
 */
export const OPENED_SECTIONS_SLICE = 'mcp-sections.opened-sections';

/**
 * The value of {@link OPENED_SECTIONS_SLICE}: one entry per opened section,
 * named `<ns>/<key>#<section key>` (see {@link openedEntryName}), holding how
 * many calls opened it. One entry per section keeps the writes of parallel
 * calls apart: a call that fails undoes its own opening and no other.
 */
export type OpenedSections = CountedEntries;

const NOTHING_OPENED: readonly string[] = Object.freeze([]);

/** How a prompt is named in {@link OpenedSections}. */
export function promptId(template: { readonly ns: string; readonly key: string }): string {
  return `${template.ns}/${template.key}`;
}

/**
 * The session's slice of opened sections, created (persistent, empty) on
 * first use.
 * @throws SessionStoreError `session-not-loaded` for a session whose store is not loaded yet.
 */
export function openedSectionsSlice(session: Session): Slice<OpenedSections> {
  return countedEntriesSlice(session, OPENED_SECTIONS_SLICE);
}

/** The entry of {@link OpenedSections} for section `key` of the prompt `id`. */
export function openedEntryName(id: string, key: string): string {
  return `${id}#${key}`;
}

/** Keys found per slice value and prompt: an unchanged slice gives the same frozen list. */
const keysByValue = new WeakMap<object, Map<string, readonly string[]>>();

/** The keys opened in `session` for the prompt `id`, sorted and frozen. */
export function openedKeys(session: Session, id: string): readonly string[] {
  const value: unknown = openedSectionsSlice(session).get();
  // A stored value is whatever the store held: read it defensively.
  if (typeof value !== 'object' || value === null) return NOTHING_OPENED;
  let byPrompt = keysByValue.get(value);
  if (byPrompt === undefined) {
    byPrompt = new Map();
    keysByValue.set(value, byPrompt);
  }
  let keys = byPrompt.get(id);
  if (keys === undefined) {
    const prefix = openedEntryName(id, '');
    const found = Object.entries(value)
      .filter(([name]) => name.startsWith(prefix) && entryCount(value, name) > 0)
      .map(([name]) => name.slice(prefix.length))
      .sort();
    keys = found.length === 0 ? NOTHING_OPENED : Object.freeze(found);
    byPrompt.set(id, keys);
  }
  return keys;
}

/**
 * Records that the calling call opened `keys` of the prompt `id`. Each is
 * a write of its own entry, even when already open: a later call's opening
 * then wins over the rollback of an earlier call that fails.
 */
export function recordOpened(session: Session, id: string, keys: readonly string[]): void {
  recordEntries(
    openedSectionsSlice(session),
    keys.map((key) => openedEntryName(id, key)),
  );
}
