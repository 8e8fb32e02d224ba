/**
 * Undoing a write to an array element by element, from its edits
 * (`array-diff.ts`). A patch names an element by its index, and the
 * writes of other calls move indices (an append of one, a removal of
 * another): applied later, an index patch took out or replaced another
 * call's element. So each edit is kept at the place its element is now:
 * every later change of the array, by anyone, moves the places of the
 * edits still to make, and an element that a change moved is found again
 * by identity. Undoing checks that each element is still the one the
 * write left before it takes it out or swaps it back; one another writer
 * changed since in place is undone inside it where the two changes do not
 * meet ({@link revertValue}), told from one replaced by where each later
 * change was ({@link noteInside}). A write's moves (a sort, a swap) are
 * undone all together, or not at all once a later change moved them again.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonRecord } from '../core/json.js';
import { type ArrayEdit, arrayEdits, changedRegion, NONE, type Region } from './array-diff.js';
import { type Path, pathKey, setMember, shallowCopy } from './value-paths.js';

/** What {@link revertValue} returns when another change stands in the way. */
export const FAILED: unique symbol = Symbol('failed');

/** An object's missing member, which differs from a member whose value is `undefined`. */
const ABSENT: unique symbol = Symbol('absent');

/**
 * Moves the places of `edits` through a change of their array from
 * `before` to `after`: a place before the changed region stays, one after
 * it moves with the change, and an element inside it (or one lost before)
 * is looked for where the change put it. One not found keeps its place
 * when the change replaced elements one for one there with new ones (its
 * element was changed in place), and is lost (-1) otherwise.
 *
 * @returns true when the change replaced or removed an element an edit expects.
 */
export function followEdits(
  edits: readonly ArrayEdit[],
  before: readonly unknown[],
  after: readonly unknown[],
  region: Region = changedRegion(before, after),
): boolean {
  const { start, wasEnd, becameEnd } = region;
  const inPlace = wasEnd - start === becameEnd - start;
  const places = new Places(after, start, becameEnd);
  let stayed: Set<unknown> | undefined;
  let touched = false;
  for (const edit of edits) {
    const at = edit.at;
    if (edit.kind === 'insert') {
      edit.at =
        at <= start
          ? at
          : at >= wasEnd
            ? at + becameEnd - wasEnd
            : start + Math.min(at - start, becameEnd - start);
      continue;
    }
    if (at >= 0 && at < start) continue;
    if (at >= wasEnd) {
      edit.at = at + becameEnd - wasEnd;
      continue;
    }
    const found = findElement(places, edit, at >= 0 ? at : start);
    // An element the write moved that a later change moved again (a sort after
    // a reverse): the later order wins, and the write's moves are not undone.
    if (found >= 0 && edit.moved === true && at >= 0 && found !== at) {
      touched = true;
      edit.at = -1;
      continue;
    }
    if (found >= 0) {
      edit.at = found;
      continue;
    }
    if (at >= 0) touched = true;
    // Changed in place only if what stands there now is new: an element the
    // change moved there (a reverse) is another one, and this one is lost.
    stayed ??= new Set(before.slice(start, wasEnd));
    const replacedThere = at >= 0 && inPlace && !stayed.has(after[at]);
    edit.at = replacedThere ? at : -1;
  }
  return touched;
}

/**
 * Notes, for each edit whose element a change of the array (from `before`
 * to `after`, the edits' places already followed into `after`) changed in
 * place, the element as it left it and, for an edited element, where the
 * change was, as the write's call's `own` or another writer's: the paths
 * `patches` gives for the element's index (a write's patch paths, from
 * the element on, read on first need: they tell a member replaced from one
 * edited; a write that changed the element and names none of it replaced
 * something above it), or, for a change without patches (an undo, which
 * puts earlier values back), the members it made differ. Another writer's
 * are kept under `by` (see {@link forgetWriters}).
 */
export function noteInside(
  edits: readonly ArrayEdit[],
  before: readonly unknown[],
  after: readonly unknown[],
  region: Region,
  patches: (() => ReadonlyMap<string, readonly Path[]>) | undefined,
  own: boolean,
  by: unknown,
): void {
  for (const edit of edits) {
    const at = edit.at;
    if (edit.kind !== 'swap' || edit.moved === true) continue;
    if (at < region.start || at >= region.becameEnd) continue;
    const element = after[at];
    // The edit's element itself (moved, or not changed), or one this change did not touch.
    if (Object.is(element, edit.expected) || Object.is(element, edit.seen)) continue;
    if (Object.is(before[at], element)) continue;
    if (typeof element === 'object' && element !== null) edit.seen = element;
    const tails =
      patches === undefined
        ? changedPaths(before[at], element, [], [])
        : (patches().get(String(at)) ?? [[]]);
    edit.later ??= { others: [], own: [] };
    if (own) addPaths(edit.later.own, tails);
    else noteOthers(edit.later, tails, by);
  }
}

/**
 * The key, among the writers of later changes, of the changes no rollback
 * takes back: an undo of a write older than the edit's (its change stands
 * as any other writer's would).
 */
export const LASTING: unique symbol = Symbol('lasting');

/** Adds another writer's `tails` to `later.others`, and under `by` while writers are kept apart. */
function noteOthers(later: NonNullable<ArrayEdit['later']>, tails: readonly Path[], by: unknown) {
  const overflowed = addPaths(later.others, tails);
  if (later.by === null) return;
  if (overflowed) {
    later.by = null;
    return;
  }
  later.by ??= new Map();
  let paths = later.by.get(by);
  if (paths === undefined) {
    if (later.by.size >= MAX_LATER_PATHS) {
      later.by = null;
      return;
    }
    paths = [];
    later.by.set(by, paths);
  }
  addPaths(paths, tails);
}

/**
 * Forgets, in `edits`, the places of later changes kept under the writers
 * `rolledBack` says: their writes, and their undos of writes made after
 * the edit's, are undone (the two cancel out), and stand in no other
 * undo's way. A place another writer changed too stays.
 */
export function forgetWriters(
  edits: readonly ArrayEdit[],
  rolledBack: (writer: unknown) => boolean,
): void {
  for (const edit of edits) {
    const by = edit.later?.by;
    if (by === undefined || by === null) continue;
    let forgot = false;
    for (const writer of by.keys()) {
      if (writer === LASTING || !rolledBack(writer)) continue;
      by.delete(writer);
      forgot = true;
    }
    if (!forgot) continue;
    const others = edit.later!.others;
    others.length = 0;
    for (const paths of by.values()) addPaths(others, paths);
  }
}

/**
 * Most different places of later changes kept for one element, and most
 * writers kept apart: past them it counts as replaced (the undo then
 * leaves it), or its writers are no longer told apart, so that a long
 * call under a stream of other writes keeps a bounded record.
 */
const MAX_LATER_PATHS = 256;

/**
 * Adds `paths` to `list`, once each; one that is `[]`, or past
 * {@link MAX_LATER_PATHS}, `list` becomes the element itself.
 *
 * @returns true when `list` became the element for having too many.
 */
function addPaths(list: Path[], paths: readonly Path[]): boolean {
  if (list.length === 1 && list[0]!.length === 0) return false;
  for (const path of paths) {
    const key = pathKey(path);
    if (list.some((known) => known.length === path.length && pathKey(known) === key)) continue;
    list.push(path);
  }
  const overflowed = list.length > MAX_LATER_PATHS;
  if (overflowed || list.some((path) => path.length === 0)) list.splice(0, list.length, []);
  return overflowed;
}

/**
 * The paths where `after` differs from `before`: into objects both are;
 * into an array both are, at its first changed index (as a write's patch
 * names an element it changed: an undo that took one call's element out of
 * an array another call also added to edited that array, it did not
 * replace it); by identity elsewhere.
 */
function changedPaths(before: unknown, after: unknown, path: Path, found: Path[]): Path[] {
  if (Object.is(before, after)) return found;
  if (isJsonRecord(before) && isJsonRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      changedPaths(member(before, key), member(after, key), [...path, key], found);
    }
  } else if (Array.isArray(before) && Array.isArray(after)) {
    found.push([...path, changedRegion(before, after).start]);
  } else found.push(path);
  return found;
}

/**
 * `current` with `edits` made (their places in `current`), and the edits
 * it could not make: an element no longer there, or changed since in a
 * way its undo would overwrite. An element not at its place (a stale one,
 * after a reorder) is looked for by identity; one changed inside by
 * another writer is undone inside it ({@link revertValue}), unless the
 * write moved it. A write's moves are undone all together or not at all.
 */
export function undoEdits(
  current: readonly unknown[],
  edits: readonly ArrayEdit[],
): { readonly next: readonly unknown[]; readonly missed: readonly ArrayEdit[] } {
  const replaced = new Map<number, unknown>();
  const dropped = new Set<number>();
  const claimed = (at: number): boolean => replaced.has(at) || dropped.has(at);
  const missed: ArrayEdit[] = [];
  const moves: [number, ArrayEdit][] = [];
  const places = new Places(current, 0, current.length);
  let moveMissed = false;
  for (const edit of edits) {
    if (edit.kind === 'insert') continue;
    let at = edit.at >= 0 && edit.at < current.length ? edit.at : -1;
    // Only an object is told apart by identity; equal values, by their places alone.
    // A moved element is followed exactly, or not at all (see followEdits).
    const object =
      typeof edit.expected === 'object' && edit.expected !== null && edit.moved !== true;
    const here = (index: number): boolean =>
      Object.is(current[index], edit.expected) || Object.is(current[index], edit.seen);
    if (object && (at < 0 || claimed(at) || !here(at))) {
      const found = findElement(places, edit, edit.at, claimed);
      if (found >= 0) at = found;
    }
    if (at >= 0 && !claimed(at) && Object.is(current[at], edit.expected)) {
      if (edit.moved === true) moves.push([at, edit]);
      else if (edit.kind === 'drop') dropped.add(at);
      else replaced.set(at, edit.restore);
      continue;
    }
    // Changed since by another writer: a replacement is still undone inside it
    // where the two changes do not meet; a move or an addition is not.
    const reverted =
      edit.kind === 'swap' && edit.moved !== true && at >= 0 && !claimed(at)
        ? revertSwap(current[at], edit)
        : FAILED;
    if (reverted !== FAILED) replaced.set(at, reverted);
    else {
      missed.push(edit);
      moveMissed ||= edit.moved === true;
    }
  }
  for (const [at, edit] of moves) {
    if (moveMissed) missed.push(edit);
    else replaced.set(at, edit.restore);
  }
  const inserted = new Map<number, unknown[]>();
  const missedLinks = new Set(missed.map((edit) => edit.linked));
  for (const edit of edits) {
    if (edit.kind !== 'insert') continue;
    if (edit.linked !== undefined && missedLinks.has(edit.linked)) {
      missed.push(edit);
      continue;
    }
    const gap = insertionGap(current, edit);
    const list = inserted.get(gap) ?? [];
    for (const value of edit.restore as readonly unknown[]) {
      // An object someone put back already (the very one) is not put back twice.
      const object = typeof value === 'object' && value !== null;
      if (object && places.nearest(value, gap, claimed) >= 0) continue;
      list.push(value);
    }
    inserted.set(gap, list);
  }
  const next: unknown[] = [];
  for (let index = 0; index <= current.length; index += 1) {
    for (const value of inserted.get(index) ?? []) next.push(value);
    if (index === current.length) break;
    if (dropped.has(index)) continue;
    next.push(replaced.has(index) ? replaced.get(index) : current[index]);
  }
  return { next, missed };
}

/**
 * A swap's element as another writer changed it since, with the write
 * undone inside it ({@link revertValue}): told where the others' changes
 * were when the write edited the element in place; otherwise (it put an
 * element there, perhaps another one) only while no other writer wrote
 * into it, since equal values would be taken for the write's.
 */
function revertSwap(current: unknown, edit: ArrayEdit): unknown {
  if (edit.edited === true) return revertValue(current, edit.restore, edit.expected, edit.later);
  if (edit.later !== undefined && edit.later.others.length > 0) return FAILED;
  return revertValue(current, edit.restore, edit.expected);
}

/** Where an insert puts its elements back: after the element they came after, else at its tracked gap. */
function insertionGap(current: readonly unknown[], edit: ArrayEdit): number {
  if (edit.follows === NONE) return 0;
  const anchor = indexNear(current, edit.follows, 0, current.length, edit.at - 1);
  if (anchor >= 0) return anchor + 1;
  return Math.min(Math.max(edit.at, 0), current.length);
}

/**
 * Where an element was changed since a write, by whom: paths in it, `[]`
 * for the element itself. `others`: writers other than the write's call
 * (a path there means theirs); `own`: the call and the calls it started,
 * whose own later writes and undos come before this one's undo.
 */
export interface LaterChanges {
  readonly others: readonly Path[];
  readonly own: readonly Path[];
}

/** The changes under `key` of `later`, from there on. */
function under(later: LaterChanges, key: string): LaterChanges {
  const tails = (paths: readonly Path[]): Path[] =>
    paths.filter((path) => String(path[0]) === key).map((path) => path.slice(1));
  return { others: tails(later.others), own: tails(later.own) };
}

/**
 * `current` with the change from `before` to `after` undone, as a new
 * frozen value sharing what it does not change, when `current` is what the
 * change left but for changes inside the very members it changed (an
 * array both wrote into), or, when `later` says where every later change
 * was, changes of other members; {@link FAILED} when another change stands
 * in the way: another writer replaced or set a member the change changed
 * (even to the same value), or, without `later`, changed anything else.
 */
export function revertValue(
  current: unknown,
  before: unknown,
  after: unknown,
  later?: LaterChanges,
): unknown {
  // Replaced or set since by another writer (even to the write's own value): theirs.
  if (later?.others.some((path) => path.length === 0) === true) return FAILED;
  if (Object.is(current, after)) return before;
  if (Object.is(before, after)) return current;
  if (Array.isArray(current) && Array.isArray(before) && Array.isArray(after)) {
    const edits = arrayEdits(before, after);
    followEdits(edits, after, current);
    const { next, missed } = undoEdits(current, edits);
    return missed.length > 0 ? FAILED : Object.freeze(next);
  }
  if (!isJsonRecord(current) || !isJsonRecord(before) || !isJsonRecord(after)) return FAILED;
  // Without the places of later changes, only the object the write changed,
  // changed since where the write did too: one whose other members differ
  // was replaced or edited elsewhere, and a member equal by chance must not
  // be taken for the write's. With them, a member another writer changed is
  // told from one replaced by the path of its change, and a member the write
  // did not change that holds what it held (changes since, undone, left a
  // copy) is no other change.
  const explained = (key: string): boolean =>
    later !== undefined &&
    [...later.others, ...later.own].some((path) => path.length === 0 || String(path[0]) === key);
  for (const key of new Set([...Object.keys(current), ...Object.keys(after)])) {
    const became = member(after, key);
    const now = member(current, key);
    if (Object.is(member(before, key), became) && !Object.is(now, became)) {
      // A copy equal to it counts as no change only where later changes are known:
      // without them, identity is the only sign that nobody replaced the member.
      if (!explained(key) && !(later !== undefined && isDeepStrictEqual(now, became))) {
        return FAILED;
      }
    }
  }
  let copy: Record<string | number, unknown> | undefined;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = member(before, key);
    const became = member(after, key);
    if (Object.is(was, became)) continue;
    const now = member(current, key);
    const reverted = revertValue(now, was, became, later && under(later, key));
    if (reverted === FAILED) return FAILED;
    if (Object.is(reverted, now)) continue;
    copy ??= shallowCopy(current);
    if (reverted === ABSENT) delete copy[key];
    else setMember(copy, key, reverted);
  }
  return copy === undefined ? current : Object.freeze(copy);
}

function member(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : ABSENT;
}

/**
 * Where `edit`'s element is, nearest `hint`: as the last writer who
 * changed it left it, else as the write left it (what came between was
 * undone, or put back); -1 when none.
 */
function findElement(
  places: Places,
  edit: ArrayEdit,
  hint: number,
  taken?: (index: number) => boolean,
): number {
  if (edit.seen !== undefined) {
    const found = places.nearest(edit.seen, hint, taken);
    if (found >= 0) return found;
  }
  return places.nearest(edit.expected, hint, taken);
}

/**
 * Where each value stands in `[from, to)` of a list, indexed on first use:
 * finding every edit's element costs one pass over the range, not one scan
 * each (a call edited every row of a long array, and another wrote over
 * them: 8,000 rows took 2.7 s a write).
 */
class Places {
  readonly #list: readonly unknown[];
  readonly #from: number;
  readonly #to: number;
  #index: Map<unknown, number[]> | undefined;

  constructor(list: readonly unknown[], from: number, to: number) {
    this.#list = list;
    this.#from = from;
    this.#to = to;
  }

  /** The place of `value` (the very value) nearest `hint`, the lower of two as near, not `taken`; -1 when none. */
  nearest(value: unknown, hint: number, taken?: (index: number) => boolean): number {
    // A map keys 0 and -0 as one: those are looked for as they are.
    if (value === 0) return indexNear(this.#list, value, this.#from, this.#to, hint, taken);
    const places = this.#places().get(value);
    if (places === undefined) return -1;
    const center = Math.min(Math.max(hint, this.#from), this.#to - 1);
    // Places are in order: start at the first one at or after the center.
    let above = 0;
    for (let low = 0, high = places.length; low < high;) {
      const middle = (low + high) >>> 1;
      if (places[middle]! < center) low = above = middle + 1;
      else high = above = middle;
    }
    let below = above - 1;
    const free = (index: number): boolean => taken?.(index) !== true;
    while (below >= 0 || above < places.length) {
      const down = below >= 0 ? places[below]! : -Infinity;
      const up = above < places.length ? places[above]! : Infinity;
      if (center - down <= up - center) {
        if (free(down)) return down;
        below -= 1;
      } else {
        if (free(up)) return up;
        above += 1;
      }
    }
    return -1;
  }

  #places(): Map<unknown, number[]> {
    if (this.#index !== undefined) return this.#index;
    const index = new Map<unknown, number[]>();
    for (let at = this.#from; at < this.#to; at += 1) {
      const value = this.#list[at];
      const places = index.get(value);
      if (places === undefined) index.set(value, [at]);
      else places.push(at);
    }
    this.#index = index;
    return index;
  }
}

/** The index in `[from, to)` of `list` that holds `value` (the very value), nearest `hint`; -1 when none. */
function indexNear(
  list: readonly unknown[],
  value: unknown,
  from: number,
  to: number,
  hint: number,
  taken: (index: number) => boolean = () => false,
): number {
  const center = Math.min(Math.max(hint, from), to - 1);
  const fits = (index: number): boolean => Object.is(list[index], value) && !taken(index);
  for (let distance = 0; center - distance >= from || center + distance < to; distance += 1) {
    const below = center - distance;
    if (below >= from && fits(below)) return below;
    const above = center + distance;
    if (distance > 0 && above < to && fits(above)) return above;
  }
  return -1;
}
