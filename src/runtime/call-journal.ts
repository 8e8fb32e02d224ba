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

/** One undo step of a call: the inverse of one patch it made to one slice. */
interface UndoRecord {
  /** Global order of the write, so merged records undo newest first. */
  readonly seq: number;
  readonly slice: string;
  /** Its path is rewritten when an undo elsewhere shifts an array. */
  patch: Patch;
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

/** How the journal reads and changes the session's slices. */
export interface SliceAccess {
  read(slice: string): unknown;
  write(slice: string, value: unknown): void;
  /** Applies one undo patch; throws when the patch does not fit the value. */
  apply(slice: string, patch: Patch): void;
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
        if (record.slice !== slice || record.overwrittenBy.includes(writer)) continue;
        if (patches.some((patch) => overlaps(patch.path, record.patch.path))) {
          record.overwrittenBy.push(writer);
        }
      }
    }
    if (writer === undefined) return;
    const seq = ++this.#seq;
    // Inverse patches undo in reverse order of the forward ones.
    for (let index = inversePatches.length - 1; index >= 0; index -= 1) {
      const patch = inversePatches[index]!;
      writer.records.push({
        seq,
        slice,
        patch: copyPatch(patch),
        overwrittenBy: [],
        before: values.before,
        after: values.after,
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
      const path = record.patch.path;
      if (outsider(record)) {
        conflicts.push({ slice: record.slice, path: [...path], reason: 'overwritten' });
        this.#bequeath(record, scope);
        continue;
      }
      try {
        this.#slices.apply(record.slice, record.patch);
      } catch {
        conflicts.push({ slice: record.slice, path: [...path], reason: 'gone' });
        continue;
      }
      this.#shiftIndices(record.slice, record.patch);
    }
    // Its writes are undone: they no longer overwrite anything of other calls.
    for (const other of this.#active) {
      for (const record of other.records) {
        const kept = record.overwrittenBy.filter((writer) => !scope.contains(writer));
        record.overwrittenBy.length = 0;
        record.overwrittenBy.push(...kept);
      }
    }
    return conflicts;
  }

  /**
   * A failed call's write that a later, still running call overwrote stays
   * for now (the later write wins); but if that call fails too, undoing its
   * own write would bring back the failed call's value. So the undo step
   * passes to the most recent running call that overwrote it, ordered
   * before that call's own steps: it runs only if that call rolls back, and
   * is dropped when it commits (its write then stands).
   */
  #bequeath(record: UndoRecord, failed: CallScope): void {
    // A nested call that overwrote it and has committed since handed its own
    // undo steps to its caller: the heir is the nearest call still running.
    // (The failed call's own writes are not overwriters: it has ended too,
    // and its caller must not inherit through it.)
    const heirs = record.overwrittenBy
      .filter((writer) => !failed.contains(writer))
      .map((writer) => {
        let scope = writer;
        while (scope !== undefined && !scope.active) scope = scope.parent;
        return scope;
      })
      .filter((scope): scope is CallScope => scope !== undefined && !failed.contains(scope));
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

  /**
   * An undo that inserts into or removes from an array moves the elements
   * after it; the undo records of other running calls that point past that
   * place must move with them.
   */
  #shiftIndices(slice: string, applied: Patch): void {
    if (applied.op === 'replace' || applied.path.length === 0) return;
    const at = applied.path[applied.path.length - 1];
    if (typeof at !== 'number') return;
    const arrayPath = applied.path.slice(0, -1);
    const delta = applied.op === 'add' ? 1 : -1;
    for (const scope of this.#active) {
      for (const record of scope.records) {
        if (record.slice !== slice) continue;
        const path = record.patch.path;
        if (path.length <= arrayPath.length || !startsWith(path, arrayPath)) continue;
        const index = path[arrayPath.length];
        if (typeof index !== 'number') continue;
        if (applied.op === 'add' ? index >= at : index > at) {
          const moved = [...path];
          moved[arrayPath.length] = index + delta;
          record.patch = { ...record.patch, path: moved };
        }
      }
    }
  }
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
