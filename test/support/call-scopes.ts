/** The running calls the rollback properties write in, and how they end. */
import type { CallScope, RollbackConflictPath } from '../../src/runtime/call-journal.js';
import type { Session } from '../../src/runtime/session.js';

/** Three calls of their own, and `nested`, which `a` started. */
export type CallName = 'a' | 'b' | 'c' | 'nested';

/** A writer: one of the calls, or application code outside any call. */
export type WriterName = CallName | 'app';

/**
 * Calls `a`, `b` and `c` of a session, and `nested` inside `a`, begun at
 * once; each ends once, committing or rolling back, and `a` ends `nested`
 * first, as a caller's end waits for the calls it started.
 */
export class RunningCalls {
  /** What every rollback so far reported it could not undo. */
  readonly conflicts: RollbackConflictPath[] = [];
  readonly #scopes = new Map<CallName, CallScope>();
  readonly #ended = new Set<CallName>();
  readonly #failed = new Set<CallName>();
  readonly #nestedOk: boolean;

  /** `nestedOk`: how `nested` ends when `a` ends before it. */
  constructor(session: Session, nestedOk: boolean) {
    this.#nestedOk = nestedOk;
    for (const name of ['a', 'b', 'c'] as const) {
      this.#scopes.set(name, session.beginCall({ callId: name, toolName: name }));
    }
    const nested = this.#scope('a').run(() => session.beginCall({ callId: 'n', toolName: 'n' }));
    this.#scopes.set('nested', nested);
  }

  /** Runs `write` as `by`'s: inside its call, or outside any for the application. */
  write(by: WriterName, write: () => void): void {
    if (by === 'app') write();
    else this.#scope(by).run(write);
  }

  /** Whether `by` can still write: the application always can, a call until it ends. */
  running(by: WriterName): boolean {
    return by === 'app' || !this.#ended.has(by);
  }

  /** Commits or rolls back `by`, once. */
  end(by: CallName, ok: boolean): void {
    if (this.#ended.has(by)) return;
    if (by === 'a') this.end('nested', this.#nestedOk);
    this.#ended.add(by);
    if (ok) this.#scope(by).commit();
    else {
      this.#failed.add(by);
      this.conflicts.push(...this.#scope(by).rollback());
    }
  }

  /** Whether `by`'s writes were undone: it failed, or (for `nested`) its caller did. */
  lost(by: WriterName): boolean {
    if (by === 'app') return false;
    return this.#failed.has(by) || (by === 'nested' && this.#failed.has('a'));
  }

  #scope(name: CallName): CallScope {
    const scope = this.#scopes.get(name);
    if (scope === undefined) throw new Error(`call ${name} was not begun`);
    return scope;
  }
}
