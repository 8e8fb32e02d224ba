import { AsyncLocalStorage } from 'node:async_hooks';
import type { Patch } from 'immer';
import { type ArrayEdit, arrayEdits, changedRegion, type Region } from './array-diff.js';
import { followEdits, forgetWriters, LASTING, noteInside, undoEdits } from './array-undo.js';
import {
  GONE,
  outermostArrayPath,
  pathKey,
  type Path,
  valueAt,
  withPatch,
  withValueAt,
} from './value-paths.js';

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

/**
 * A step a rollback left in place, another writer having overwritten its
 * place (`by`): the call's earlier steps at or under `path` are left too.
 */
interface LeftStep {
  readonly slice: string;
  readonly path: Path;
  readonly by: readonly Writer[];
  readonly seq: number;
}

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
 * element by element (see `array-diff.ts`, `array-undo.ts`), kept for the outermost such
 * array: a patch names an element by an index that other calls' writes
 * move.
 */
interface ArrayUndo extends UndoBase {
  readonly kind: 'array';
  /** Where the array is: the outermost array on the written path, reached by object keys only. */
  readonly path: Path;
  /** The array before and after the write. */
  readonly was: readonly unknown[];
  readonly became: readonly unknown[];
  /** What is left to undo, each where its element is now. */
  readonly edits: readonly ArrayEdit[];
  /** True for the edits of another call's undo handed on (see {@link CallJournal.rollback}). */
  readonly inherited?: true;
  /** Writers that later replaced the array itself or a parent of it (not an element). */
  readonly replacedBy: Writer[];
}

/** One undo step of a call. */
type UndoRecord = PatchUndo | ArrayUndo;

/** A slice's value before and after a write or an undo. */
interface SliceChange {
  readonly slice: string;
  readonly before: unknown;
  readonly after: unknown;
}

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
  /** @internal Steps of calls it started that their rollbacks left in place. */ left: LeftStep[] =
    [];
  /** @internal */ active = true;
  /** @internal Its steps went to its caller's: it committed while the caller ran. */ merged = false;
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
    const scope = new CallScope(this, info, this.current());
    this.#active.add(scope);
    return scope;
  }

  /**
   * Records a write to `slice`: it is undo work for the call making it; it
   * overwrites what other running calls wrote at overlapping paths, and
   * moves the places of their array edits (see `array-undo.ts`).
   */
  record(
    slice: string,
    patches: readonly Patch[],
    inversePatches: readonly Patch[],
    values: { readonly before: unknown; readonly after: unknown },
  ): void {
    if (patches.length === 0) return;
    const writer = this.current();
    this.#follow({ slice, ...values }, writer, patches);
    if (writer === undefined) return;
    const seq = ++this.#seq;
    const base = { seq, slice, before: values.before, after: values.after };
    const arrays = new Set<string>();
    // Inverse patches undo in reverse order of the forward ones.
    for (let index = inversePatches.length - 1; index >= 0; index -= 1) {
      const patch = inversePatches[index]!;
      const path = outermostArrayPath(values.after, patch.path);
      const was = path === undefined ? undefined : valueAt(values.before, path);
      const became = path === undefined ? undefined : valueAt(values.after, path);
      if (path === undefined || !Array.isArray(was) || !Array.isArray(became)) {
        writer.records.push({ ...base, kind: 'patch', patch: copyPatch(patch), overwrittenBy: [] });
        continue;
      }
      // One step per array and write, whatever number of patches it took.
      const key = pathKey(path);
      if (arrays.has(key)) continue;
      arrays.add(key);
      writer.records.push({
        ...base,
        kind: 'array',
        path,
        was: was as readonly unknown[],
        became: became as readonly unknown[],
        edits: arrayEdits(
          was as readonly unknown[],
          became as readonly unknown[],
          editedElements(pathsByElement(path, patches)),
        ),
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
      // A step handed to both (an inherited one) is kept once.
      parent.records = [...new Set([...parent.records, ...scope.records])].sort(
        (a, b) => a.seq - b.seq,
      );
    }
    if (parent?.active === true) {
      parent.left.push(...scope.left);
      scope.merged = true;
    }
    scope.records = [];
    scope.left = [];
  }

  /** @internal See {@link CallScope.rollback}. */
  rollback(scope: CallScope): readonly RollbackConflictPath[] {
    if (!this.#close(scope)) return [];
    const conflicts: RollbackConflictPath[] = [];
    const records = scope.records;
    scope.records = [];
    // A step left in place because another writer overwrote its place holds
    // the call's earlier steps under it: undoing them would write into the
    // other writer's value (a row removed, then a snapshot restored, then
    // edited by the app came back twice). They are left too, and pass to
    // the same heirs.
    const someoneElse = (writer: Writer): boolean => !scope.contains(writer);
    // Steps of calls it started, left under writes of others: this rollback
    // undoes its own writes, so only those left under someone else's stand.
    const left: LeftStep[] = scope.left.filter((step) => step.by.some(someoneElse));
    scope.left = [];
    for (let index = records.length - 1; index >= 0; index -= 1) {
      const record = records[index]!;
      const at = record.kind === 'array' ? record.path : record.patch.path;
      const above = left.find(
        (step) => step.slice === record.slice && step.seq > record.seq && startsWith(at, step.path),
      );
      if (above !== undefined) {
        conflicts.push({ slice: record.slice, path: [...at], reason: 'overwritten' });
        this.#bequeath(record, above.by, scope);
        continue;
      }
      let first = index;
      while (first > 0 && records[first - 1]!.seq === record.seq) first -= 1;
      const steps = records.slice(first, index + 1);
      const outsider = (step: UndoRecord): boolean =>
        step.overwrittenBy.some(someoneElse) ||
        (step.kind === 'array' && step.replacedBy.some(someoneElse));
      const value = this.#slices.read(record.slice);
      const unchanged = value === record.after && !steps.some(outsider);
      if (unchanged && !steps.some((step) => step.kind === 'array' && step.inherited)) {
        // Untouched since this write: put the value before it back whole,
        // the very value rather than a patched copy, and skip the write's
        // other steps.
        this.#undone(record, value, record.before, scope, records, first);
        index = first;
        continue;
      }
      if (record.kind === 'array') {
        // A step this call took over from another: its own writes since are undone
        // by now (newest first), unless one stays in place there.
        const leftThere = left.some(
          (step) => step.slice === record.slice && overlaps(step.path, record.path),
        );
        if (record.inherited && !leftThere) {
          forgetWriters(record.edits, (writer) => undoneBy(scope, writer as Writer));
        }
        if (record.replacedBy.some((writer) => !scope.contains(writer))) {
          left.push({
            slice: record.slice,
            path: record.path,
            by: record.replacedBy,
            seq: record.seq,
          });
        }
        conflicts.push(...this.#undoArray(record, scope, records, index));
        continue;
      }
      const path = record.patch.path;
      if (outsider(record)) {
        conflicts.push({ slice: record.slice, path: [...path], reason: 'overwritten' });
        this.#bequeath(record, record.overwrittenBy, scope);
        left.push({ slice: record.slice, path, by: record.overwrittenBy, seq: record.seq });
        continue;
      }
      const reverted = withPatch(value, record.patch);
      if (reverted === GONE)
        conflicts.push({ slice: record.slice, path: [...path], reason: 'gone' });
      else this.#undone(record, value, reverted, scope, records, index);
    }
    // Its writes are undone: they no longer overwrite anything of other calls.
    // One left in place stands as long as the writes over it do: under it,
    // those writers overwrote the steps before it in its stead (a snapshot
    // it restored, then edited by a call that commits, holds the array for good).
    for (const other of this.#active) {
      for (const record of other.records) {
        const at = record.kind === 'array' ? record.path : record.patch.path;
        const instead = left
          .filter(
            (step) =>
              step.slice === record.slice && step.seq > record.seq && startsWith(at, step.path),
          )
          .flatMap((step) => step.by.filter(someoneElse));
        replaceWriters(record.overwrittenBy, someoneElse, instead);
        if (record.kind === 'array') {
          replaceWriters(record.replacedBy, someoneElse, instead);
          // Where its writes changed elements no longer stands in their undos' way,
          // unless a step of it stays in place there.
          if (instead.length === 0)
            forgetWriters(record.edits, (writer) => undoneBy(scope, writer as Writer));
        }
      }
    }
    // A caller's earlier steps under one left in place are left by its rollback too.
    if (scope.parent?.active === true) scope.parent.left.push(...left);
    return conflicts;
  }

  /**
   * Undoes a write into an array, element by element (see `array-undo.ts`).
   * What it cannot undo (an element another writer removed or changed in a
   * way the undo would overwrite) stays as that writer left it, a conflict,
   * and passes to the most recent running call among those writers: it is
   * undone if that call rolls back too. An array another writer replaced
   * whole is left as it is, as a patch would be.
   */
  #undoArray(
    record: ArrayUndo,
    scope: CallScope,
    pending: readonly UndoRecord[],
    end: number,
  ): RollbackConflictPath[] {
    const { slice, path } = record;
    const gone = (reason: 'gone' | 'overwritten'): RollbackConflictPath[] => [
      { slice, path: [...path], reason },
    ];
    if (record.replacedBy.some((writer) => !scope.contains(writer))) {
      this.#bequeath(record, record.replacedBy, scope);
      return gone('overwritten');
    }
    const value = this.#slices.read(slice);
    const current = valueAt(value, path);
    if (!Array.isArray(current)) return gone('gone');
    const undone =
      current === record.became && !record.inherited
        ? { next: record.was, missed: [] }
        : undoEdits(current as readonly unknown[], record.edits);
    const next = withValueAt(value, path, Object.freeze(undone.next));
    if (next === GONE) return gone('gone');
    this.#undone(record, value, next, scope, pending, end);
    if (undone.missed.length === 0) return [];
    const overwritten = record.overwrittenBy.some((writer) => !scope.contains(writer));
    const left: ArrayUndo = {
      ...record,
      edits: undone.missed,
      inherited: true,
      overwrittenBy: [],
      replacedBy: [],
    };
    this.#bequeath(left, record.overwrittenBy, scope);
    return undone.missed.map((edit) => ({
      slice,
      path: [...path, edit.written],
      reason: overwritten ? 'overwritten' : 'gone',
    }));
  }

  /**
   * Writes the result of undoing `step`, and moves the array edits of
   * other calls, and of the rolling back call's steps still to undo
   * (`pending` before `end`), with the change.
   */
  #undone(
    step: UndoRecord,
    before: unknown,
    after: unknown,
    scope: CallScope,
    pending: readonly UndoRecord[],
    end: number,
  ): void {
    this.#slices.write(step.slice, after);
    this.#follow({ slice: step.slice, before, after }, scope, undefined, {
      records: pending,
      end,
      undoing: step.seq,
    });
  }

  /**
   * Tells the steps of every running call a change of a slice by `writer`
   * made: a write's `patches` overwrite what they overlap (see
   * {@link noteLaterWrite}), and any change moves the places of array edits
   * (see `array-undo.ts`), those of `pending`, the steps a rollback of
   * `writer` has still to make (before `end`), included; a writer that
   * replaced or removed an element another call's edit expects is noted as
   * having overwritten it. An undo (of the write numbered `undoing`) has
   * no patches. One pass over the steps, one comparison per array the
   * change touched.
   */
  #follow(
    change: SliceChange,
    writer: Writer,
    patches?: readonly Patch[],
    pending?: {
      readonly records: readonly UndoRecord[];
      readonly end: number;
      readonly undoing: number;
    },
  ): void {
    let regions: Map<string, Region> | undefined;
    // The write's patches by element, once an array: read only where an edit's element changed.
    const grouped = new Map<string, Map<string, Path[]>>();
    const byElement = (key: string, path: Path) => (): ReadonlyMap<string, readonly Path[]> => {
      let group = grouped.get(key);
      if (group === undefined) {
        group = pathsByElement(path, patches ?? []);
        grouped.set(key, group);
      }
      return group;
    };
    const move = (record: ArrayUndo, owner: Writer): void => {
      const was = valueAt(change.before, record.path);
      const now = valueAt(change.after, record.path);
      if (was === now) return;
      let touched: boolean;
      if (Array.isArray(was) && Array.isArray(now)) {
        const key = pathKey(record.path);
        regions ??= new Map();
        let region = regions.get(key);
        if (region === undefined) {
          region = changedRegion(was as readonly unknown[], now as readonly unknown[]);
          regions.set(key, region);
        }
        touched = followEdits(record.edits, was, now, region);
        const inside = patches && byElement(key, record.path);
        // An undo of a write made after this step's cancels that write: the
        // rollback that made it takes both back. One of an older write stands.
        const lasting = pending !== undefined && pending.undoing < record.seq;
        const by = lasting ? LASTING : writer;
        noteInside(record.edits, was, now, region, inside, owner?.contains(writer) === true, by);
      } else touched = loseAll(record.edits);
      if (touched && owner?.contains(writer) !== true && !record.overwrittenBy.includes(writer)) {
        record.overwrittenBy.push(writer);
      }
    };
    for (const scope of this.#active) {
      const later = patches !== undefined && !scope.contains(writer);
      for (const record of scope.records) {
        if (record.slice !== change.slice) continue;
        if (later) noteLaterWrite(record, writer, patches);
        if (record.kind === 'array') move(record, scope);
      }
    }
    if (pending === undefined) return;
    for (let index = 0; index < pending.end; index += 1) {
      const record = pending.records[index]!;
      if (record.slice === change.slice && record.kind === 'array') move(record, writer);
    }
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
  current(): Writer {
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

/** A later write by `writer` with `patches` touched what `record` would undo: noted for its rollback. */
function noteLaterWrite(record: UndoRecord, writer: Writer, patches: readonly Patch[]): void {
  if (record.kind === 'patch') {
    if (record.overwrittenBy.includes(writer)) return;
    if (patches.some((patch) => overlaps(patch.path, record.patch.path))) {
      record.overwrittenBy.push(writer);
    }
    return;
  }
  // A write into the array moves its edits (CallJournal's #follow notes who
  // overwrote an element); one to the array's own place or above it replaced it.
  if (record.replacedBy.includes(writer)) return;
  const replaces = (patch: Patch): boolean =>
    patch.path.length <= record.path.length && startsWith(record.path, patch.path);
  if (patches.some(replaces)) record.replacedBy.push(writer);
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

/** The indices of the elements that `byElement` changed in place (every path goes into it), none replaced whole. */
function editedElements(byElement: ReadonlyMap<string, readonly Path[]>): Set<number> {
  const edited = new Set<number>();
  for (const [index, tails] of byElement) {
    if (tails.every((tail) => tail.length > 0)) edited.add(Number(index));
  }
  return edited;
}

/**
 * The paths of `patches` that reach into an element of the array at
 * `path`, by the element's index (as text), each from the element on.
 */
function pathsByElement(path: Path, patches: readonly Patch[]): Map<string, Path[]> {
  const byElement = new Map<string, Path[]>();
  for (const patch of patches) {
    if (patch.path.length <= path.length || !startsWith(patch.path, path)) continue;
    const index = String(patch.path[path.length]);
    const tail = patch.path.slice(path.length + 1);
    const list = byElement.get(index);
    if (list === undefined) byElement.set(index, [tail]);
    else list.push(tail);
  }
  return byElement;
}

/**
 * Keeps in `writers`, in place, those `keep` says; when it drops one, the
 * writers `instead` take its place (each once).
 */
function replaceWriters(
  writers: Writer[],
  keep: (writer: Writer) => boolean,
  instead: readonly Writer[],
): void {
  const kept = writers.filter(keep);
  if (kept.length < writers.length) {
    for (const writer of instead) if (!kept.includes(writer)) kept.push(writer);
  }
  writers.length = 0;
  writers.push(...kept);
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

/** Loses every element edit (its array is gone); true when one was still where it belonged. */
function loseAll(edits: readonly ArrayEdit[]): boolean {
  let touched = false;
  for (const edit of edits) {
    if (edit.kind === 'insert') continue;
    touched ||= edit.at >= 0;
    edit.at = -1;
  }
  return touched;
}

/**
 * True when `scope`'s rollback undid `writer`'s writes: `scope` itself, or
 * a call under it whose steps reached it (each call between committed into
 * its caller while that one ran). A call still running, or one that
 * committed after its caller ended, keeps its writes.
 */
function undoneBy(scope: CallScope, writer: Writer): boolean {
  for (let at = writer; at !== undefined; at = at.parent) {
    if (at === scope) return true;
    if (at.active || !at.merged) return false;
  }
  return false;
}
