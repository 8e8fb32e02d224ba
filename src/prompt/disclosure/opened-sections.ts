import type { Session } from '../../runtime/session.js';
import type { Slice } from '../../runtime/slice.js';

/**
 * Name of the session slice that records the sections the model opened. It
 * is persistent (kept by the session's store at `flush()`), and written
 * inside the `open_sections` call, so a failed call leaves it unchanged.
 */
export const OPENED_SECTIONS_SLICE = 'mcp-sections.opened-sections';

/**
 * The value of {@link OPENED_SECTIONS_SLICE}: for each prompt (`ns/key`),
 * the keys opened, sorted.
 */
export type OpenedSections = Readonly<Record<string, readonly string[]>>;

const NOTHING_OPENED: readonly string[] = Object.freeze([]);
const slices = new WeakMap<Session, Slice<OpenedSections>>();

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
  let slice = slices.get(session);
  if (slice !== undefined) return slice;
  try {
    slice = session.slice<OpenedSections>(OPENED_SECTIONS_SLICE);
  } catch {
    // Not created yet (the usual case): create it, loading what the store kept.
    slice = session.slice<OpenedSections>(OPENED_SECTIONS_SLICE, {
      initial: {},
      persistent: true,
    });
  }
  slices.set(session, slice);
  return slice;
}

/** The keys opened in `session` for the prompt `id`, sorted and frozen. */
export function openedKeys(session: Session, id: string): readonly string[] {
  const value: unknown = openedSectionsSlice(session).get();
  // A stored value is whatever the store held: read it defensively.
  if (typeof value !== 'object' || value === null) return NOTHING_OPENED;
  const keys: unknown = Object.hasOwn(value, id) ? (value as OpenedSections)[id] : undefined;
  return Array.isArray(keys) ? (keys as readonly string[]) : NOTHING_OPENED;
}

/** Adds `keys` to what is opened for the prompt `id`. */
export function recordOpened(session: Session, id: string, keys: readonly string[]): void {
  openedSectionsSlice(session).update((draft) => {
    const before = Object.hasOwn(draft, id) ? (draft[id] ?? []) : [];
    draft[id] = [...new Set([...before, ...keys])].sort();
  });
}
