/**
 * Undoing a write to an array element by element. A patch names an
 * element by its index, and the writes of other calls move indices (an
 * append of one, a removal of another): applied later, an index patch took
 * out or replaced another call's element. So a write is kept as edits
 * (this element put in, that one taken out, this one swapped for that),
 * each at the place its element is now: every later change of the array,
 * by anyone, moves the places of the edits still to make, and an element
 * that a change moved is found again by identity. Undoing checks that each
 * element is still the one the write left before it takes it out or swaps
 * it back; one another writer changed since in place is undone inside it
 * where the two changes do not meet ({@link revertValue}), told from one
 * replaced by where each later change was ({@link noteInside}). A
 * write's moves (a sort, a swap) are undone all together, or not at all
 * once a later change moved them again.
 */
import { isJsonRecord } from '../core/json.js';
import { type Path, shallowCopy } from './value-paths.js';

/**
 * One element-level change of a write, as its undo sees it: `swap` (the
 * write replaced `restore` by `expected`), `drop` (the write added
 * `expected`), `insert` (the write took out the elements `restore`, from
 * the gap before index `at`).
 */
export interface ArrayEdit {
  readonly kind: 'swap' | 'drop' | 'insert';
  /** Where its element is now (a gap's index for an insert); -1 once it is nowhere to be found. */
  at: number;
  /** Where the write left it: the place a conflict names. */
  readonly written: number;
  /** The element the write left at `at` (swap, drop). */
  readonly expected: unknown;
  /** What the undo puts back: an element (swap), the elements taken out (insert). */
  readonly restore: unknown;
  /**
   * A swap whose `restore` the write kept elsewhere in the array (it moved
   * it: a sort, a swap): the write's moves are undone all together or not
   * at all, and never inside an element another writer changed.
   */
  readonly moved?: true;
  /** An insert's anchor: the element its elements came after ({@link NONE}: the first). */
  readonly follows?: unknown;
  /**
   * Where later changes changed the element since the write, as paths in
   * it (`[]`: a writer replaced it), while each said where
   * ({@link noteInside}); null once a write's patches did not. Lets the
   * undo take the write's members out beside another writer's edits of
   * other members ({@link revertValue}).
   */
  inside?: Path[] | null;
  /**
   * The element as the last writer who changed it in place left it (an
   * object the write left, not moved by it): followed by identity, as
   * `expected` is, through later reorders.
   */
  seen?: object;
}

/** No element: an array may hold `undefined` itself. */
const NONE: unique symbol = Symbol('none');

/** What {@link revertValue} returns when another change stands in the way. */
export const FAILED: unique symbol = Symbol('failed');

/** An object's missing member, which differs from a member whose value is `undefined`. */
const ABSENT: unique symbol = Symbol('absent');

/**
 * Where two arrays differ: they share (by identity) their first `start`
 * elements and their elements from `wasEnd` (in `was`) and `becameEnd`
 * (in `became`) on.
 */
export interface Region {
  readonly start: number;
  readonly wasEnd: number;
  readonly becameEnd: number;
}

export function changedRegion(was: readonly unknown[], became: readonly unknown[]): Region {
  let start = 0;
  const shorter = Math.min(was.length, became.length);
  while (start < shorter && Object.is(was[start], became[start])) start += 1;
  let wasEnd = was.length;
  let becameEnd = became.length;
  while (wasEnd > start && becameEnd > start && Object.is(was[wasEnd - 1], became[becameEnd - 1])) {
    wasEnd -= 1;
    becameEnd -= 1;
  }
  return { start, wasEnd, becameEnd };
}

/**
 * The edits that undo the change from `was` to `became`: in the region
 * where they differ, the elements are swapped one for one, then the rest
 * dropped or inserted. Their places are in `became`.
 */
export function arrayEdits(was: readonly unknown[], became: readonly unknown[]): ArrayEdit[] {
  const { start, wasEnd, becameEnd } = changedRegion(was, became);
  const paired = Math.min(wasEnd - start, becameEnd - start);
  const edits: ArrayEdit[] = [];
  const kept = new Set(became.slice(start, becameEnd));
  for (let at = start; at < start + paired; at += 1) {
    if (Object.is(was[at], became[at])) continue;
    const swap = { kind: 'swap', at, written: at, expected: became[at], restore: was[at] } as const;
    edits.push(kept.has(was[at]) ? { ...swap, moved: true } : swap);
  }
  for (let at = start + paired; at < becameEnd; at += 1) {
    edits.push({ kind: 'drop', at, written: at, expected: became[at], restore: undefined });
  }
  if (wasEnd - start > paired) {
    const at = start + paired;
    edits.push({
      kind: 'insert',
      at,
      written: at,
      expected: undefined,
      restore: was.slice(at, wasEnd),
      follows: at === 0 ? NONE : became[at - 1],
    });
  }
  return edits;
}

/**
 * Moves the places of `edits` through a change of their array from
 * `before` to `after`: a place before the changed region stays, one after
 * it moves with the change, and an element inside it (or one lost before)
 * is looked for where the change put it. One not found keeps its place
 * when the change replaced elements one for one there (its element was
 * changed in place), and is lost (-1) otherwise.
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
    const found = findElement(after, edit, start, becameEnd, at >= 0 ? at : start);
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
    edit.at = at >= 0 && inPlace ? at : -1;
  }
  return touched;
}

/**
 * Notes, for each edit whose element a change of the array (from `before`
 * to `after`, the edits' places already followed into `after`) changed in
 * place, the element as it left it, and where it changed it: the paths
 * `patches` name in the element (the change's patch paths from the array
 * on, an element's index first: a write's, which tell a member replaced
 * from one edited), or, for a change without patches (an undo, which
 * puts earlier values back), the members it differs in. A write whose
 * patches name none of the element leaves its places unknown (null) for good.
 */
export function noteInside(
  edits: readonly ArrayEdit[],
  before: readonly unknown[],
  after: readonly unknown[],
  region: Region,
  patches: readonly Path[] | undefined,
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
    if (edit.inside === null) continue;
    const tails =
      patches === undefined
        ? changedPaths(before[at], element, [], [])
        : patches.filter((path) => String(path[0]) === String(at)).map((path) => path.slice(1));
    edit.inside = tails.length === 0 ? null : [...(edit.inside ?? []), ...tails];
  }
}

/** The paths where `after` differs from `before`: into objects both are, by identity elsewhere. */
function changedPaths(before: unknown, after: unknown, path: Path, found: Path[]): Path[] {
  if (Object.is(before, after)) return found;
  if (isJsonRecord(before) && isJsonRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      changedPaths(member(before, key), member(after, key), [...path, key], found);
    }
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
      const found = findElement(current, edit, 0, current.length, edit.at, claimed);
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
        ? revertValue(current[at], edit.restore, edit.expected, edit.inside)
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
  for (const edit of edits) {
    if (edit.kind !== 'insert') continue;
    const gap = insertionGap(current, edit);
    const list = inserted.get(gap) ?? [];
    for (const value of edit.restore as readonly unknown[]) list.push(value);
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

/** Where an insert puts its elements back: after the element they came after, else at its tracked gap. */
function insertionGap(current: readonly unknown[], edit: ArrayEdit): number {
  if (edit.follows === NONE) return 0;
  const anchor = indexNear(current, edit.follows, 0, current.length, edit.at - 1);
  if (anchor >= 0) return anchor + 1;
  return Math.min(Math.max(edit.at, 0), current.length);
}

/**
 * `current` with the change from `before` to `after` undone, as a new
 * frozen value sharing what it does not change, when `current` is what the
 * change left but for changes inside the very members it changed (an
 * array both wrote into), or, when `inside` says where every later change
 * of an object was, changes of other members; {@link FAILED} when another
 * change stands in the way.
 */
export function revertValue(
  current: unknown,
  before: unknown,
  after: unknown,
  inside?: readonly Path[] | null,
): unknown {
  if (Object.is(current, after)) return before;
  if (Object.is(before, after)) return current;
  if (Array.isArray(current) && Array.isArray(before) && Array.isArray(after)) {
    const edits = arrayEdits(before, after);
    followEdits(edits, after, current);
    const { next, missed } = undoEdits(current, edits);
    return missed.length > 0 ? FAILED : Object.freeze(next);
  }
  if (!isJsonRecord(current) || !isJsonRecord(before) || !isJsonRecord(after)) return FAILED;
  const known = inside ?? undefined;
  // Replaced since: the members equal to the write's are the other writer's.
  if (known?.some((path) => path.length === 0) === true) return FAILED;
  // Without the places of later changes, only the object the write changed,
  // changed since where the write did too: one whose other members differ
  // was replaced or edited elsewhere, and a member equal by chance must not
  // be taken for the write's. With them, a member another writer changed is
  // told from one replaced by the path of its change.
  for (const key of new Set([...Object.keys(current), ...Object.keys(after)])) {
    const became = member(after, key);
    if (Object.is(member(before, key), became) && !Object.is(member(current, key), became)) {
      if (known === undefined || !known.some((path) => String(path[0]) === key)) return FAILED;
    }
  }
  let copy: Record<string | number, unknown> | undefined;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = member(before, key);
    const became = member(after, key);
    if (Object.is(was, became)) continue;
    const now = member(current, key);
    const under = known?.filter((path) => String(path[0]) === key).map((path) => path.slice(1));
    const reverted = revertValue(now, was, became, under);
    if (reverted === FAILED) return FAILED;
    if (Object.is(reverted, now)) continue;
    copy ??= shallowCopy(current);
    if (reverted === ABSENT) delete copy[key];
    else copy[key] = reverted;
  }
  return copy === undefined ? current : Object.freeze(copy);
}

function member(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : ABSENT;
}

/**
 * Where `edit`'s element is in `[from, to)` of `list`, nearest `hint`: as
 * the last writer who changed it left it, else as the write left it (what
 * came between was undone: the later places are forgotten); -1 when none.
 */
function findElement(
  list: readonly unknown[],
  edit: ArrayEdit,
  from: number,
  to: number,
  hint: number,
  taken?: (index: number) => boolean,
): number {
  if (edit.seen !== undefined) {
    const found = indexNear(list, edit.seen, from, to, hint, taken);
    if (found >= 0) return found;
  }
  const found = indexNear(list, edit.expected, from, to, hint, taken);
  if (found >= 0 && edit.seen !== undefined) {
    delete edit.seen;
    delete edit.inside;
  }
  return found;
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
