import { AsyncLocalStorage } from 'node:async_hooks';
import type { Patch } from 'immer';

/** Who a running call is, for events about its rollback. */
export interface CallInfo {
  readonly callId: string;
  readonly toolName: string;
}

/**
 * One write to session state that a rollback could not undo, because a
 * later write by someone else touched the same place (`overwritten`), or
 * the place no longer exists (`gone`).
 */
export interface RollbackConflictPath {
  readonly slice: string;
  /** Path inside the slice's value; empty for the whole value. */
  readonly path: readonly (string | number)[];
  readonly reason: 'overwritten' | 'gone';
}

/** Who made a write: a running call, or code outside any call. */
type Writer = CallScope | undefined;

/** What every undo step of a call keeps. */
interface UndoBase {
  /** Global order of the write, so merged records undo newest first. */
  readonly seq: number;
  readonly slice: string;
  /** Writers that touched an overlapping path after this write. */
  readonly overwrittenBy: Writer[];
  /**
   * The slice's value before and after the whole write this step belongs
   * to. While the slice still holds `after`, nobody wrote it since, and
   * undoing is putting `before` back: the very value, not a copy.
   */
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * The undo of a write to a place no array holds: the inverse of one patch.
 * Its path names object keys only, which no other write can move.
 */
interface PatchUndo extends UndoBase {
  readonly kind: 'patch';
  readonly patch: Patch;
}

/**
 * The undo of a write into an array (or into something an array holds),
 * kept as the array before and after the write rather than as patches:
 * a patch names an element by its index, which the writes of other calls
 * move (an append of one call, a removal of another), so a patch applied
 * later can remove or replace another call's element. The undo works
 * element by element instead, finding each element by identity.
 */
interface ArrayUndo extends UndoBase {
  readonly kind: 'array';
  /** Where the array is: the outermost array on the written path, reached by object keys only. */
  readonly path: readonly (string | number)[];
  /** The array before and after the write. */
  readonly was: readonly unknown[];
  readonly became: readonly unknown[];
  /** Set on a step handed on after a conflict: the edits still to make, instead of the whole diff. */
  readonly edits?: readonly ArrayEdit[];
  /** Writers that later replaced the array itself or a parent of it (not an element). */
  readonly replacedBy: Writer[];
}

/** One undo step of a call. */
type UndoRecord = PatchUndo | ArrayUndo;

/**
 * One element-level change a write made to an array, as its undo sees it:
 * the element it added (taken out again), the element it removed (put
 * back), or both (an element replaced, or changed inside: swapped back).
 */
interface ArrayEdit {
  /** The element the write put in, or {@link NONE}. */
  readonly added: unknown;
  /** The element the write took out, or {@link NONE}. */
  readonly removed: unknown;
  /** For an element only removed: the element it followed then ({@link NONE}: the first). */
  readonly follows: unknown;
  /** Its index in the array after the write (the place a conflict names). */
  readonly at: number;
}

/** No element: an array may hold `undefined` itself. */
const NONE: unique symbol = Symbol('none');

/** How the journal reads and changes the session's slices. */
export interface SliceAccess {
  read(slice: string): unknown;
  write(slice: string, value: unknown): void;
}

const currentScope = new AsyncLocalStorage<CallScope>();

/** True while any session's tool call runs on the current async stack (inside its scope). */
export function inAnyCall(): boolean {
  return currentScope.getStore() !== undefined;
}

/**
 * Runs `fn` as code outside any call: the session writes it makes (and
 * those of what it starts) belong to no call, so no call's rollback undoes
 * them. For what happens to the session while a call runs but is not the
 * call's doing: a server's log message or changed tool list, a timeout or
 * a malformed marker that must be recorded even when the call fails.
 */
export function outsideCalls<T>(fn: () => T): T {
  return currentScope.exit(fn);
}

/**
 * The writes of one running tool call. Every slice write made while its
 * `run` callback (and whatever that callback awaits or starts) is on the
 * stack is recorded as inverse patches, so a failure undoes exactly the
 * call's own writes. Created by `Session.beginCall`.
 */
export class CallScope {
  readonly info: CallInfo;
  /** The nearest running call of the same session that started this one. */
  readonly parent: CallScope | undefined;
  /** @internal */ records: UndoRecord[] = [];
  /** @internal */ active = true;
  readonly #journal: CallJournal;

  /** @internal Created by {@link CallJournal.begin}. */
  constructor(journal: CallJournal, info: CallInfo, parent: CallScope | undefined) {
    this.#journal = journal;
    this.info = info;
    this.parent = parent;
  }

  /** @internal */
  get journal(): CallJournal {
    return this.#journal;
  }

  /** Runs `fn` so that the session writes it makes belong to this call. */
  run<T>(fn: () => T): T {
    return currentScope.run(this, fn);
  }

  /** Keeps the call's writes; a parent call that fails later still undoes them. */
  commit(): void {
    this.#journal.commit(this);
  }

  /**
   * Undoes the call's writes, newest first, except where a later write by
   * someone else touched the same place: that write wins.
   *
   * @returns the writes that were left in place, and why.
   */
  rollback(): readonly RollbackConflictPath[] {
    return this.#journal.rollback(this);
  }

  /** True when `other` is this call or one it started. */
  contains(other: Writer): boolean {
    for (let scope = other; scope !== undefined; scope = scope.parent) {
      if (scope === this) return true;
    }
    return false;
  }
}

/**
 * A session's record of which running call wrote what. It costs nothing
 * while no call runs: the session asks `recording` before it computes patches.
 */
export class CallJournal {
  readonly #active = new Set<CallScope>();
  readonly #slices: SliceAccess;
  #seq = 0;

  constructor(slices: SliceAccess) {
    this.#slices = slices;
  }

  /** True while any call of this session runs, so writes need patches. */
  get recording(): boolean {
    return this.#active.size > 0;
  }

  /** Opens the scope of a call; a call started inside another one is its child. */
  begin(info: CallInfo): CallScope {
    const scope = new CallScope(this, info, this.#writer());
    this.#active.add(scope);
    return scope;
  }

  /**
   * Records a write to `slice`: it is undo work for the call making it, and
   * it overwrites what other running calls wrote at overlapping paths.
   */
  record(
    slice: string,
    patches: readonly Patch[],
    inversePatches: readonly Patch[],
    values: { readonly before: unknown; readonly after: unknown },
  ): void {
    if (patches.length === 0) return;
    const writer = this.#writer();
    for (const scope of this.#active) {
      if (scope.contains(writer)) continue;
      for (const record of scope.records) {
        if (record.slice === slice) noteLaterWrite(record, writer, patches);
      }
    }
    if (writer === undefined) return;
    const seq = ++this.#seq;
    const base = { seq, slice, before: values.before, after: values.after };
    const arrays = new Set<string>();
    // Inverse patches undo in reverse order of the forward ones.
    for (let index = inversePatches.length - 1; index >= 0; index -= 1) {
      const patch = inversePatches[index]!;
      const path = outermostArrayPath(values.after, patch.path);
      const was = path === undefined ? undefined : valueAt(values.before, path);
      if (path === undefined || !Array.isArray(was)) {
        writer.records.push({ ...base, kind: 'patch', patch: copyPatch(patch), overwrittenBy: [] });
        continue;
      }
      // One step per array and write, whatever number of patches it took.
      const key = JSON.stringify(path);
      if (arrays.has(key)) continue;
      arrays.add(key);
      writer.records.push({
        ...base,
        kind: 'array',
        path,
        was: was as readonly unknown[],
        became: valueAt(values.after, path) as readonly unknown[],
        overwrittenBy: [],
        replacedBy: [],
      });
    }
  }

  /** @internal See {@link CallScope.commit}. */
  commit(scope: CallScope): void {
    if (!this.#close(scope)) return;
    const parent = scope.parent;
    if (parent?.active === true && scope.records.length > 0) {
      parent.records = [...parent.records, ...scope.records].sort((a, b) => a.seq - b.seq);
    }
    scope.records = [];
  }

  /** @internal See {@link CallScope.rollback}. */
  rollback(scope: CallScope): readonly RollbackConflictPath[] {
    if (!this.#close(scope)) return [];
    const conflicts: RollbackConflictPath[] = [];
    const records = scope.records;
    scope.records = [];
    for (let index = records.length - 1; index >= 0; index -= 1) {
      const record = records[index]!;
      let first = index;
      while (first > 0 && records[first - 1]!.seq === record.seq) first -= 1;
      const steps = records.slice(first, index + 1);
      const outsider = (step: UndoRecord): boolean =>
        step.overwrittenBy.some((writer) => !scope.contains(writer));
      if (this.#slices.read(record.slice) === record.after && !steps.some(outsider)) {
        // Untouched since this write: put the value before it back whole,
        // the very value rather than a patched copy, and skip the write's
        // other steps.
        this.#slices.write(record.slice, record.before);
        index = first;
        continue;
      }
      if (record.kind === 'array') {
        conflicts.push(...this.#undoArray(record, scope));
        continue;
      }
      const path = record.patch.path;
      if (outsider(record)) {
        conflicts.push({ slice: record.slice, path: [...path], reason: 'overwritten' });
        this.#bequeath(record, record.overwrittenBy, scope);
        continue;
      }
      const undone = withPatch(this.#slices.read(record.slice), record.patch);
      if (undone === GONE) conflicts.push({ slice: record.slice, path: [...path], reason: 'gone' });
      else this.#slices.write(record.slice, undone);
    }
    // Its writes are undone: they no longer overwrite anything of other calls.
    const undone = (writer: Writer): boolean => !scope.contains(writer);
    for (const other of this.#active) {
      for (const record of other.records) {
        keepOnly(record.overwrittenBy, undone);
        if (record.kind === 'array') keepOnly(record.replacedBy, undone);
      }
    }
    return conflicts;
  }

  /**
   * Undoes a write into an array, element by element (see {@link ArrayUndo}):
   * an element it added is taken out, or swapped back for the one it
   * replaced, wherever it is now; an element it removed is put back after
   * the element it followed. An element the write added that is no longer
   * there (another writer removed or changed it) is left as that writer
   * made it, a conflict, and its edit passes to every running call that
   * wrote into the array since (taking it out is harmless once more).
   * An array another writer replaced whole is left as it is, as a patch
   * would be.
   */
  #undoArray(record: ArrayUndo, scope: CallScope): RollbackConflictPath[] {
    const outsiders = (writers: readonly Writer[]): boolean =>
      writers.some((writer) => !scope.contains(writer));
    const { slice, path } = record;
    if (outsiders(record.replacedBy)) {
      this.#bequeath(record, record.replacedBy, scope);
      return [{ slice, path: [...path], reason: 'overwritten' }];
    }
    const value = this.#slices.read(slice);
    const current = valueAt(value, path);
    if (!Array.isArray(current)) return [{ slice, path: [...path], reason: 'gone' }];
    if (current === record.became && record.edits === undefined) {
      this.#slices.write(slice, withValueAt(value, path, record.was));
      return [];
    }
    const next = [...(current as unknown[])];
    const missed: ArrayEdit[] = [];
    for (const edit of record.edits ?? arrayEdits(record.was, record.became)) {
      if (edit.added === NONE) {
        const anchor = edit.follows === NONE ? -1 : indexOfSame(next, edit.follows, edit.at - 1);
        const at =
          anchor >= 0 || edit.follows === NONE ? anchor + 1 : Math.min(edit.at, next.length);
        next.splice(at, 0, edit.removed);
        continue;
      }
      const at = indexOfSame(next, edit.added, edit.at);
      if (at < 0) missed.push(edit);
      else if (edit.removed === NONE) next.splice(at, 1);
      else next[at] = edit.removed;
    }
    this.#slices.write(slice, withValueAt(value, path, Object.freeze(next)));
    if (missed.length === 0) return [];
    const reason = outsiders(record.overwrittenBy) ? 'overwritten' : 'gone';
    const left: ArrayUndo = { ...record, edits: missed, overwrittenBy: [], replacedBy: [] };
    for (const heir of runningHeirs(record.overwrittenBy, scope)) {
      heir.records = [...heir.records, left].sort((a, b) => a.seq - b.seq);
    }
    return missed.map((edit) => ({ slice, path: [...path, edit.at], reason }));
  }

  /**
   * A failed call's write that a later, still running call overwrote stays
   * for now (the later write wins); but if that call fails too, undoing its
   * own write would bring back the failed call's value. So the undo step
   * passes to the most recent running call that overwrote it, ordered
   * before that call's own steps: it runs only if that call rolls back, and
   * is dropped when it commits (its write then stands).
   */
  #bequeath(record: UndoRecord, overwriters: readonly Writer[], failed: CallScope): void {
    const heirs = runningHeirs(overwriters, failed);
    const heir = heirs[heirs.length - 1];
    if (heir === undefined) return;
    heir.records = [...heir.records, record].sort((a, b) => a.seq - b.seq);
  }

  /** The innermost running call of this session on the current async stack. */
  current(): CallScope | undefined {
    return this.#writer();
  }

  /** The innermost running call of this session on the current async stack. */
  #writer(): Writer {
    for (let scope = currentScope.getStore(); scope !== undefined; scope = scope.parent) {
      if (scope.journal === this && scope.active) return scope;
    }
    return undefined;
  }

  #close(scope: CallScope): boolean {
    if (!scope.active) return false;
    scope.active = false;
    this.#active.delete(scope);
    return true;
  }
}

type Path = readonly (string | number)[];

/** A later write by `writer` with `patches` touched what `record` would undo: noted for its rollback. */
function noteLaterWrite(record: UndoRecord, writer: Writer, patches: readonly Patch[]): void {
  if (record.kind === 'patch') {
    if (record.overwrittenBy.includes(writer)) return;
    if (patches.some((patch) => overlaps(patch.path, record.patch.path))) {
      record.overwrittenBy.push(writer);
    }
    return;
  }
  for (const patch of patches) {
    if (!overlaps(patch.path, record.path)) continue;
    if (!record.overwrittenBy.includes(writer)) record.overwrittenBy.push(writer);
    // A write to the array's own place or above it replaced the array, not an element.
    if (patch.path.length <= record.path.length && !record.replacedBy.includes(writer)) {
      record.replacedBy.push(writer);
    }
  }
}

/**
 * The running calls that inherit an undo step from `failed`: each of
 * `writers` not part of it, or, for a nested call that has committed since
 * (its steps went to its caller), its nearest running caller. Oldest first.
 */
function runningHeirs(writers: readonly Writer[], failed: CallScope): CallScope[] {
  const heirs: CallScope[] = [];
  for (const writer of writers) {
    // The failed call's own writes are not overwriters: it has ended too,
    // and its caller must not inherit through it.
    if (failed.contains(writer)) continue;
    let scope = writer;
    while (scope !== undefined && !scope.active) scope = scope.parent;
    if (scope !== undefined && !failed.contains(scope) && !heirs.includes(scope)) heirs.push(scope);
  }
  return heirs;
}

/** Keeps in `list`, in place, the members `keep` says. */
function keepOnly<T>(list: T[], keep: (item: T) => boolean): void {
  const kept = list.filter(keep);
  list.length = 0;
  list.push(...kept);
}

/**
 * The path of the outermost array that `path` reaches into in `root`
 * (a prefix of `path` made of object keys), or undefined when it reaches
 * into none. An array that is the very value at `path` does not count: a
 * patch there sets the array whole, under an object's key.
 */
function outermostArrayPath(root: unknown, path: Path): Path | undefined {
  let node = root;
  for (let depth = 0; depth < path.length; depth += 1) {
    if (Array.isArray(node)) return path.slice(0, depth);
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[path[depth]!];
  }
  return undefined;
}

/** The value at `path` in `root` (object keys only), or undefined when there is none. */
function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** What {@link withPatch} returns when a container on the path is no longer there. */
const GONE: unique symbol = Symbol('gone');

/**
 * `root` with `value` at `path`, as a new frozen value that shares
 * everything else (the objects on the path are copied, each with its
 * prototype); {@link GONE} when something on the path is not an object.
 * The value is put in as it is, never copied: other undo steps find
 * elements by identity.
 */
function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return GONE;
  const [key, ...rest] = path as [string | number, ...Path];
  const inner = withValueAt((root as Record<string | number, unknown>)[key], rest, value);
  if (inner === GONE) return GONE;
  const copy = shallowCopy(root);
  copy[key] = inner;
  return Object.freeze(copy);
}

/** A copy of an object's own enumerable members, with its prototype. */
function shallowCopy(object: object): Record<string | number, unknown> {
  const prototype = Object.getPrototypeOf(object) as object | null;
  return Object.assign(Object.create(prototype) as Record<string | number, unknown>, object);
}

/** `root` with an undo patch made on an object key applied (see {@link PatchUndo}). */
function withPatch(root: unknown, patch: Patch): unknown {
  if (patch.op !== 'remove') return withValueAt(root, patch.path, patch.value);
  const parentPath = patch.path.slice(0, -1);
  const parent = valueAt(root, parentPath);
  if (typeof parent !== 'object' || parent === null || Array.isArray(parent)) return GONE;
  const copy = shallowCopy(parent);
  delete copy[patch.path[patch.path.length - 1]!];
  return withValueAt(root, parentPath, Object.freeze(copy));
}

/**
 * The element-level changes from `was` to `became`: the elements both
 * start and end with are kept; in between, the write replaced elements one
 * for one, then added or removed the rest. Computed when a rollback needs
 * it, not at every write.
 */
function arrayEdits(was: readonly unknown[], became: readonly unknown[]): ArrayEdit[] {
  let start = 0;
  const shorter = Math.min(was.length, became.length);
  while (start < shorter && Object.is(was[start], became[start])) start += 1;
  let wasEnd = was.length;
  let becameEnd = became.length;
  while (wasEnd > start && becameEnd > start && Object.is(was[wasEnd - 1], became[becameEnd - 1])) {
    wasEnd -= 1;
    becameEnd -= 1;
  }
  const edits: ArrayEdit[] = [];
  const count = Math.max(wasEnd - start, becameEnd - start);
  for (let offset = 0; offset < count; offset += 1) {
    const at = start + offset;
    edits.push({
      added: at < becameEnd ? became[at] : NONE,
      removed: at < wasEnd ? was[at] : NONE,
      follows: at === 0 ? NONE : was[at - 1],
      at,
    });
  }
  return edits;
}

/** Where `list` holds `value` (the very value): at `hint` when it is there, else the first place. */
function indexOfSame(list: readonly unknown[], value: unknown, hint: number): number {
  if (hint >= 0 && hint < list.length && Object.is(list[hint], value)) return hint;
  return list.findIndex((item) => Object.is(item, value));
}

function copyPatch(patch: Patch): Patch {
  return { ...patch, path: [...patch.path] };
}

/** Two paths overlap when one is a prefix of the other (or they are equal). */
function overlaps(a: readonly (string | number)[], b: readonly (string | number)[]): boolean {
  return a.length <= b.length ? startsWith(b, a) : startsWith(a, b);
}

function startsWith(
  path: readonly (string | number)[],
  prefix: readonly (string | number)[],
): boolean {
  for (let index = 0; index < prefix.length; index += 1) {
    // Array indices may arrive as numbers or as strings: compare their text.
    if (String(path[index]) !== String(prefix[index])) return false;
  }
  return true;
}
