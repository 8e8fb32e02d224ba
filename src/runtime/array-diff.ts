/**
 * How a write into an array is kept for its undo: as edits (this element
 * put in, that one taken out, this one swapped for that), each with the
 * place its element has in the array the write left. Where the write kept
 * some objects of the part it changed, in order, each gap between them is
 * diffed on its own, its elements paired by the members they share when
 * the gap grew or shrank (a row inserted before one the write edited, a
 * row moved and changed). `array-undo.ts` follows the edits through later
 * changes and makes them.
 */
import { isJsonRecord } from '../core/json.js';
import type { Path } from './value-paths.js';

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
   * A drop and an insert that together undo one element moved and changed
   * by the write (taken out of one gap between kept elements, put in
   * another, alike): made both, or neither.
   */
  readonly linked?: object;
  /**
   * A swap whose write changed its element in place (its patches went into
   * the element, none replaced it): only such a write's members are taken
   * out beside another writer's edits ({@link revertValue}). A swap the
   * diff paired by place (a removal and an addition in one write) pairs
   * two different elements.
   */
  readonly edited?: true;
  /**
   * Where an edited element was changed since the write, and by whom
   * (`others`' `[]`: another writer replaced it), from the changes'
   * patches or, for an undo, from the members it made differ
   * ({@link noteInside}).
   */
  later?: {
    others: Path[];
    own: Path[];
    /**
     * `others` by the writer whose rollback takes them back (see
     * `array-undo.ts` `forgetWriters`); `null` once too many places or
     * writers were kept apart: then none is ever forgotten.
     */
    by?: Map<unknown, Path[]> | null;
  };
  /**
   * The element as the last writer who changed it in place left it (an
   * object the write left, not moved by it): followed by identity, as
   * `expected` is, through later reorders.
   */
  seen?: object;
}

/** No element: an array may hold `undefined` itself. */
export const NONE: unique symbol = Symbol('none');

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
 * The edits that undo the change from `was` to `became`, their places in
 * `became`. Where the region that differs keeps some of its objects, in
 * their order (a row inserted before one that is edited, a row moved and
 * edited), those stay as they are and each gap between them is diffed on
 * its own; otherwise the elements are swapped one for one, then the rest
 * dropped or inserted. `editedAt` says which elements of `became` the
 * write changed in place (see {@link ArrayEdit.edited}).
 */
export function arrayEdits(
  was: readonly unknown[],
  became: readonly unknown[],
  editedAt?: ReadonlySet<number>,
): ArrayEdit[] {
  const region = changedRegion(was, became);
  const anchors = keptInOrder(was, became, region);
  if (anchors === undefined) return pairedEdits(was, became, region, editedAt);
  const edits: ArrayEdit[] = [];
  let wasFrom = region.start;
  let becameFrom = region.start;
  for (const [wasAt, becameAt] of [...anchors, [region.wasEnd, region.becameEnd]] as const) {
    const gap = { start: becameFrom, wasEnd: wasAt, becameEnd: becameAt };
    edits.push(...gapEdits(was, became, gap, editedAt, wasFrom - becameFrom));
    wasFrom = wasAt + 1;
    becameFrom = becameAt + 1;
  }
  return linkMoves(edits, was);
}

/** Drops times inserts past which a write's moves are not looked for: each pair is compared. */
const MAX_LINK_PAIRS = 4_096;

/**
 * `edits` with each drop linked to an insert of another gap that puts back
 * an element it was (alike, or holding a member that names one element of
 * `was` only, such as its id): the write moved that element and changed
 * it. Undone alone, the insert would bring the element back beside the
 * changed one that another writer kept.
 */
function linkMoves(edits: readonly ArrayEdit[], was: readonly unknown[]): ArrayEdit[] {
  const drops = edits.filter((edit) => edit.kind === 'drop');
  const inserts = edits.filter((edit) => edit.kind === 'insert');
  const pairs = drops.length * inserts.length;
  if (pairs === 0 || pairs > MAX_LINK_PAIRS) return [...edits];
  const names = new UniqueValues(was);
  const linked = new Map<ArrayEdit, object>();
  for (const drop of drops) {
    const insert = inserts.find(
      (edit) =>
        !linked.has(edit) &&
        edit.at !== drop.at &&
        (edit.restore as readonly unknown[]).some(
          (value) => alike(value, drop.expected) > 0 || names.shared(value, drop.expected),
        ),
    );
    if (insert === undefined) continue;
    const link = {};
    linked.set(drop, link).set(insert, link);
  }
  return edits.map((edit) => {
    const link = linked.get(edit);
    return link === undefined ? edit : { ...edit, linked: link };
  });
}

/**
 * The members of an array's objects that name one element each (an id, a
 * key, a path), counted per member on first use.
 */
class UniqueValues {
  readonly #list: readonly unknown[];
  readonly #counts = new Map<string, Map<unknown, number>>();

  constructor(list: readonly unknown[]) {
    this.#list = list;
  }

  /**
   * Whether `added` holds a member of `removed` (an element of the list)
   * with the same string or number, one no other element has there.
   */
  shared(removed: unknown, added: unknown): boolean {
    if (!isJsonRecord(removed) || !isJsonRecord(added)) return false;
    for (const [key, value] of Object.entries(removed)) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      if (!Object.hasOwn(added, key) || !Object.is(added[key], value)) continue;
      if (this.#count(key, value) === 1) return true;
    }
    return false;
  }

  #count(key: string, value: unknown): number {
    let counts = this.#counts.get(key);
    if (counts === undefined) {
      counts = new Map();
      for (const element of this.#list) {
        if (!isJsonRecord(element) || !Object.hasOwn(element, key)) continue;
        counts.set(element[key], (counts.get(element[key]) ?? 0) + 1);
      }
      this.#counts.set(key, counts);
    }
    return counts.get(value) ?? 0;
  }
}

/**
 * The objects of `was` in the region that `became` keeps (each once in
 * each), as their places in both, when they are all it keeps and in the
 * same order (none: one gap); undefined when it reordered or repeated them,
 * or keeps a primitive (the pairing by place then marks the moves).
 */
function keptInOrder(
  was: readonly unknown[],
  became: readonly unknown[],
  { start, wasEnd, becameEnd }: Region,
): (readonly [number, number])[] | undefined {
  const places = new Map<unknown, number>();
  const repeated = new Set<unknown>();
  for (let at = start; at < becameEnd; at += 1) {
    if (places.has(became[at])) repeated.add(became[at]);
    places.set(became[at], at);
  }
  const anchors: (readonly [number, number])[] = [];
  const seen = new Set<unknown>();
  for (let at = start; at < wasEnd; at += 1) {
    const element = was[at];
    const place = places.get(element);
    if (place === undefined) continue;
    const object = typeof element === 'object' && element !== null;
    if (!object || repeated.has(element) || seen.has(element)) return undefined;
    seen.add(element);
    if (anchors.length > 0 && place <= anchors[anchors.length - 1]![1]) return undefined;
    anchors.push([at, place]);
  }
  return anchors;
}

/** Gaps longer than this are paired by place: the likeness pairing costs their product. */
const MAX_LIKENESS_GAP = 64;

/**
 * The edits of one gap between kept elements (a region, `was` shifted by
 * `offset`). As many elements as it had are paired by place (edited where
 * they were); more or fewer are paired by likeness, in order, so that a
 * row inserted before another that the same write edited, or removed
 * beside one it edited, is told from that one: each element of `was`
 * goes with the element of `became` that shares most members with it,
 * if they are {@link alike} (none: it was removed, and is inserted back).
 */
function gapEdits(
  was: readonly unknown[],
  became: readonly unknown[],
  gap: Region,
  editedAt: ReadonlySet<number> | undefined,
  offset: number,
): ArrayEdit[] {
  const wasStart = gap.start + offset;
  const removed = was.slice(wasStart, gap.wasEnd);
  const added = became.slice(gap.start, gap.becameEnd);
  const byPlace =
    removed.length === added.length ||
    removed.length === 0 ||
    added.length === 0 ||
    removed.length * added.length > MAX_LIKENESS_GAP * MAX_LIKENESS_GAP;
  if (byPlace) return pairedEdits(was, became, gap, editedAt, offset);
  const edits: ArrayEdit[] = [];
  let from = 0;
  let to = 0;
  for (const [wasAt, becameAt] of [
    ...alignByLikeness(removed, added),
    [removed.length, added.length],
  ] as const) {
    const at = gap.start + to;
    if (wasAt > from) {
      edits.push({
        kind: 'insert',
        at,
        written: at,
        expected: undefined,
        restore: removed.slice(from, wasAt),
        follows: at === 0 ? NONE : became[at - 1],
      });
    }
    for (let place = at; place < gap.start + becameAt; place += 1) {
      edits.push({
        kind: 'drop',
        at: place,
        written: place,
        expected: became[place],
        restore: undefined,
      });
    }
    if (wasAt < removed.length) {
      const place = gap.start + becameAt;
      const swap = {
        kind: 'swap',
        at: place,
        written: place,
        expected: became[place],
        restore: removed[wasAt],
      } as const;
      edits.push(editedAt?.has(place) === true ? { ...swap, edited: true } : swap);
    }
    from = wasAt + 1;
    to = becameAt + 1;
  }
  return edits;
}

/**
 * The pairs of places (in `removed`, in `added`), in order, that share the
 * most members in all, each pair {@link alike}.
 */
function alignByLikeness(
  removed: readonly unknown[],
  added: readonly unknown[],
): (readonly [number, number])[] {
  const rows = removed.length + 1;
  const columns = added.length + 1;
  const best = new Array<number>(rows * columns).fill(0);
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < columns; j += 1) {
      const shared = alike(removed[i - 1], added[j - 1]);
      best[i * columns + j] = Math.max(
        best[(i - 1) * columns + j]!,
        best[i * columns + j - 1]!,
        shared > 0 ? best[(i - 1) * columns + j - 1]! + shared : 0,
      );
    }
  }
  const pairs: (readonly [number, number])[] = [];
  for (let i = removed.length, j = added.length; i > 0 && j > 0;) {
    const here = best[i * columns + j]!;
    if (here === best[(i - 1) * columns + j]) i -= 1;
    else if (here === best[i * columns + j - 1]) j -= 1;
    else {
      pairs.push([i - 1, j - 1]);
      i -= 1;
      j -= 1;
    }
  }
  return pairs.reverse();
}

/**
 * How many members two objects share (equal primitives, or the very
 * object), or elements two arrays share ({@link alikeArrays}), when they
 * may be one element before and after a change, else 0:
 * they share at least half the members of the larger (a row and its edit
 * share all but the edited ones; two rows of three members that share only
 * a `status` are two rows).
 */
function alike(a: unknown, b: unknown): number {
  if (Array.isArray(a) && Array.isArray(b)) return alikeArrays(a, b);
  if (!isJsonRecord(a) || !isJsonRecord(b)) return 0;
  const keys = Object.keys(a);
  let shared = 0;
  for (const key of keys) {
    if (Object.hasOwn(b, key) && Object.is(a[key], b[key])) shared += 1;
  }
  return shared > 0 && shared * 2 >= Math.max(keys.length, Object.keys(b).length) ? shared : 0;
}

/**
 * {@link alike} for two arrays (a row of a matrix, and its copy): how many
 * elements they share (each of `b` matched once, equal primitives or the
 * very object), when that is at least half the longer one's.
 */
function alikeArrays(a: readonly unknown[], b: readonly unknown[]): number {
  const left = new Map<unknown, number>();
  for (const item of b) left.set(item, (left.get(item) ?? 0) + 1);
  let shared = 0;
  for (const item of a) {
    const count = left.get(item) ?? 0;
    if (count === 0) continue;
    left.set(item, count - 1);
    shared += 1;
  }
  return shared > 0 && shared * 2 >= Math.max(a.length, b.length) ? shared : 0;
}

/**
 * The edits of a region (`start` and `becameEnd` in `became`, `wasEnd` in
 * `was` shifted by `offset`) paired by place: swapped one for one, the
 * rest dropped or inserted.
 */
function pairedEdits(
  was: readonly unknown[],
  became: readonly unknown[],
  { start, wasEnd, becameEnd }: Region,
  editedAt: ReadonlySet<number> | undefined,
  offset = 0,
): ArrayEdit[] {
  const wasStart = start + offset;
  const paired = Math.min(wasEnd - wasStart, becameEnd - start);
  const edits: ArrayEdit[] = [];
  const kept = new Set(became.slice(start, becameEnd));
  for (let index = 0; index < paired; index += 1) {
    const at = start + index;
    const restore = was[wasStart + index];
    if (Object.is(restore, became[at])) continue;
    const swap = { kind: 'swap', at, written: at, expected: became[at], restore } as const;
    if (kept.has(restore)) edits.push({ ...swap, moved: true });
    else edits.push(editedAt?.has(at) === true ? { ...swap, edited: true } : swap);
  }
  for (let at = start + paired; at < becameEnd; at += 1) {
    edits.push({ kind: 'drop', at, written: at, expected: became[at], restore: undefined });
  }
  if (wasEnd - wasStart > paired) {
    const at = start + paired;
    edits.push({
      kind: 'insert',
      at,
      written: at,
      expected: undefined,
      restore: was.slice(wasStart + paired, wasEnd),
      follows: at === 0 ? NONE : became[at - 1],
    });
  }
  return edits;
}
