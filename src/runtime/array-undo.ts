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
 * it back; one changed inside since (a message added to a thread the call
 * changed) is undone inside it when the two changes touch different
 * places ({@link revertValue}).
 */
import { isObject, shallowCopy } from './value-paths.js';

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
}

/** What {@link revertValue} returns when another change stands in the way. */
export const FAILED: unique symbol = Symbol('failed');

/** An object's missing member, which differs from a member whose value is `undefined`. */
const ABSENT: unique symbol = Symbol('absent');

/**
 * Where two arrays differ: they share (by identity) their first `start`
 * elements and their elements from `wasEnd` (in `was`) and `becameEnd`
 * (in `became`) on.
 */
interface Region {
  readonly start: number;
  readonly wasEnd: number;
  readonly becameEnd: number;
}

function changedRegion(was: readonly unknown[], became: readonly unknown[]): Region {
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
  for (let at = start; at < start + paired; at += 1) {
    if (Object.is(was[at], became[at])) continue;
    edits.push({ kind: 'swap', at, written: at, expected: became[at], restore: was[at] });
  }
  for (let at = start + paired; at < becameEnd; at += 1) {
    edits.push({ kind: 'drop', at, written: at, expected: became[at], restore: undefined });
  }
  if (wasEnd - start > paired) {
    edits.push({
      kind: 'insert',
      at: start + paired,
      written: start + paired,
      expected: undefined,
      restore: was.slice(start + paired, wasEnd),
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
): boolean {
  const region = changedRegion(before, after);
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
    const found = indexNear(after, edit.expected, start, becameEnd, at >= 0 ? at : start);
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
 * `current` with `edits` made (their places in `current`), and the edits
 * it could not make: an element no longer there, or changed since in a
 * way its undo would overwrite.
 */
export function undoEdits(
  current: readonly unknown[],
  edits: readonly ArrayEdit[],
): { readonly next: readonly unknown[]; readonly missed: readonly ArrayEdit[] } {
  const replaced = new Map<number, unknown>();
  const dropped = new Set<number>();
  const inserted = new Map<number, unknown[]>();
  const missed: ArrayEdit[] = [];
  for (const edit of edits) {
    const at = edit.at;
    if (edit.kind === 'insert') {
      const gap = Math.min(Math.max(at, 0), current.length);
      const list = inserted.get(gap) ?? [];
      for (const value of edit.restore as readonly unknown[]) list.push(value);
      inserted.set(gap, list);
      continue;
    }
    if (at < 0 || at >= current.length || replaced.has(at) || dropped.has(at)) {
      missed.push(edit);
      continue;
    }
    const now = current[at];
    if (Object.is(now, edit.expected)) {
      if (edit.kind === 'drop') dropped.add(at);
      else replaced.set(at, edit.restore);
      continue;
    }
    // Changed since: a swap is still undone inside it where the two changes do not meet.
    const reverted = edit.kind === 'swap' ? revertValue(now, edit.restore, edit.expected) : FAILED;
    if (reverted === FAILED) missed.push(edit);
    else replaced.set(at, reverted);
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
 * `current` with the change from `before` to `after` undone where nobody
 * else changed the same place since, as a new frozen value sharing what
 * it does not change; {@link FAILED} when another change stands in the way.
 */
export function revertValue(current: unknown, before: unknown, after: unknown): unknown {
  if (Object.is(current, after)) return before;
  if (Object.is(before, after)) return current;
  if (Array.isArray(current) && Array.isArray(before) && Array.isArray(after)) {
    const edits = arrayEdits(before, after);
    followEdits(edits, after, current);
    const { next, missed } = undoEdits(current, edits);
    return missed.length > 0 ? FAILED : Object.freeze(next);
  }
  if (!isObject(current) || !isObject(before) || !isObject(after)) return FAILED;
  let copy: Record<string | number, unknown> | undefined;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = member(before, key);
    const became = member(after, key);
    if (Object.is(was, became)) continue;
    const now = member(current, key);
    const reverted = revertValue(now, was, became);
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

/** The index in `[from, to)` of `list` that holds `value` (the very value), nearest `hint`; -1 when none. */
function indexNear(
  list: readonly unknown[],
  value: unknown,
  from: number,
  to: number,
  hint: number,
): number {
  const center = Math.min(Math.max(hint, from), to - 1);
  for (let distance = 0; center - distance >= from || center + distance < to; distance += 1) {
    const below = center - distance;
    if (below >= from && Object.is(list[below], value)) return below;
    const above = center + distance;
    if (distance > 0 && above < to && Object.is(list[above], value)) return above;
  }
  return -1;
}
