/**
 * Per-call rollback against a model. Calls A, B, C and N (a child of A) and
 * application code write into the rows of one slice in many ways: members
 * set, deleted, set twice and turned into objects, nested members, tags,
 * rows replaced, copied, added, moved and removed, the array reversed,
 * sorted and copied, and snapshots restored by application code. The calls
 * commit or fail in any order. Afterwards every member, nested member, tag
 * and row's existence holds its last kept write (or its initial value). A
 * failed call's write may be left in its place, but only when a rollback
 * reported a conflict. No row is doubled, no element is a hole, and the
 * state is frozen with no immer draft left.
 *
 * Ported from the model-based fuzzer of a review that attacked the
 * rollback. `session.restore` run inside a call is
 * left out: rolling such a call back can still leave in place a value that
 * a failed call had written and the restored snapshot held (a known
 * limitation). A restore by application code is in.
 */
import fc from 'fast-check';
import { isDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/index.js';
import type { CallScope, RollbackConflictPath, SessionSnapshot } from '../../src/index.js';

type Writer = 'A' | 'B' | 'N' | 'C' | 'app';
type Call = Exclude<Writer, 'app'>;
type Member = 'x' | 'y';
type Value = string | { readonly v: string };

interface Row {
  id: string;
  x?: Value;
  y?: Value;
  n?: Record<string, string>;
  tags: string[];
}

interface Table {
  rows: Row[];
}

/** A leaf's value: a member's JSON, `true` for a tag or a row that is there, or {@link ABSENT}. */
type Leaf = string | true;
type Leaves = Map<string, Leaf>;

/** One write to a leaf, and who made it. */
interface Written {
  readonly by: Writer;
  readonly value: Leaf;
}

const ABSENT = '<absent>';
const EXISTS = '#exists';
const INITIAL_ROWS: readonly string[] = ['r0', 'r1', 'r2'];
const MEMBERS: readonly Member[] = ['x', 'y'];

/** One write by `by`; `value` is new for every write, so each leaf's history tells writers apart. */
class Write {
  constructor(
    readonly model: Model,
    readonly by: Writer,
    readonly member: Member,
    readonly to: number,
    readonly value: string,
    private readonly before: ReadonlyMap<string, Leaves>,
  ) {}

  apply(recipe: (draft: Table) => void): void {
    this.model.write(this.by, recipe);
  }

  note(id: string, leaf: string, value: Leaf): void {
    this.model.note(this.by, id, leaf, value);
  }

  /** Notes, as this writer's, every leaf of `ids` that `only` names, as it is now or lost. */
  noteNow(ids: Iterable<string>, only: (leaf: string) => boolean = () => true): void {
    this.model.noteNow(this.by, ids, this.before, only);
  }

  /** Where `to` puts an element in an array of `length` elements. */
  place(length: number): number {
    return this.to % (length + 1);
  }
}

/** Writes to one row, `id`, named by its place in the array when the write runs. */
const ROW_WRITES = {
  set: (w: Write, id: string) => {
    w.apply((draft) => void (locate(draft.rows, id).row[w.member] = w.value));
    w.note(id, w.member, json(w.value));
  },
  setTwice: (w: Write, id: string) => {
    w.apply((draft) => void (locate(draft.rows, id).row[w.member] = `${w.value}b`));
    w.apply((draft) => void (locate(draft.rows, id).row[w.member] = w.value));
    w.note(id, w.member, json(w.value));
  },
  toggleObject: (w: Write, id: string) => {
    w.apply((draft) => {
      const { row } = locate(draft.rows, id);
      row[w.member] = typeof row[w.member] === 'object' ? w.value : { v: w.value };
    });
    w.noteNow([id], (leaf) => leaf === w.member);
  },
  delete: (w: Write, id: string) => {
    if (!Object.hasOwn(w.model.existing(id), w.member)) return;
    w.apply((draft) => void delete locate(draft.rows, id).row[w.member]);
    w.note(id, w.member, ABSENT);
  },
  setNested: (w: Write, id: string) => {
    w.apply((draft) => {
      const { row } = locate(draft.rows, id);
      row.n ??= {};
      row.n[w.member] = w.value;
    });
    w.note(id, `n.${w.member}`, json(w.value));
  },
  replaceNested: (w: Write, id: string) => {
    w.apply((draft) => {
      const { row } = locate(draft.rows, id);
      row.n = { ...row.n, [w.member]: w.value };
    });
    w.noteNow([id], (leaf) => leaf.startsWith('n.'));
  },
  replaceRow: (w: Write, id: string) => {
    w.apply((draft) => {
      const { at, row } = locate(draft.rows, id);
      draft.rows[at] = { ...row, [w.member]: w.value };
    });
    w.noteNow([id]);
  },
  copyRow: (w: Write, id: string) => {
    w.apply((draft) => {
      const { at, row } = locate(draft.rows, id);
      draft.rows[at] = { ...row };
    });
    w.noteNow([id]);
  },
  assign: (w: Write, id: string) => {
    w.apply((draft) => {
      Object.assign(locate(draft.rows, id).row, { x: `${w.value}x`, y: `${w.value}y` });
    });
    w.note(id, 'x', json(`${w.value}x`));
    w.note(id, 'y', json(`${w.value}y`));
  },
  pushTag: (w: Write, id: string) => {
    w.apply((draft) => void locate(draft.rows, id).row.tags.push(w.value));
    w.note(id, `tag.${w.value}`, true);
  },
  spreadTag: (w: Write, id: string) => {
    w.apply((draft) => {
      const { row } = locate(draft.rows, id);
      row.tags = [...row.tags, w.value];
    });
    w.noteNow([id], (leaf) => leaf.startsWith('tag.'));
  },
  removeTag: (w: Write, id: string) => {
    const { tags } = w.model.existing(id);
    const tag = tags[w.to % Math.max(tags.length, 1)];
    if (tag === undefined) return;
    w.apply((draft) => {
      const { tags } = locate(draft.rows, id).row;
      tags.splice(tags.indexOf(tag), 1);
    });
    w.note(id, `tag.${tag}`, ABSENT);
  },
  moveAndSet: (w: Write, id: string) => {
    w.apply((draft) => {
      const { at, row } = locate(draft.rows, id);
      draft.rows.splice(at, 1);
      row[w.member] = w.value;
      draft.rows.splice(w.place(draft.rows.length), 0, row);
    });
    w.note(id, w.member, json(w.value));
  },
  unshiftAndSet: (w: Write, id: string) => {
    const added = w.model.newRow();
    w.apply((draft) => {
      locate(draft.rows, id).row[w.member] = w.value;
      draft.rows.unshift({ id: added, tags: [] });
    });
    w.note(id, w.member, json(w.value));
    w.note(added, EXISTS, true);
  },
  insertAndSet: (w: Write, id: string) => {
    const added = w.model.newRow();
    w.apply((draft) => {
      draft.rows.splice(w.place(draft.rows.length), 0, { id: added, tags: [] });
      locate(draft.rows, id).row[w.member] = w.value;
    });
    w.note(id, w.member, json(w.value));
    w.note(added, EXISTS, true);
  },
  removeRow: (w: Write, id: string) => {
    w.apply((draft) => void draft.rows.splice(locate(draft.rows, id).at, 1));
    w.noteNow([id]);
  },
} satisfies Record<string, (w: Write, id: string) => void>;

/** Writes to the array as a whole. */
const ARRAY_WRITES = {
  reverse: (w: Write) => w.apply((draft) => void draft.rows.reverse()),
  sort: (w: Write) =>
    w.apply((draft) => void draft.rows.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))),
  addRow: (w: Write) => {
    const added = w.model.newRow();
    w.apply(
      (draft) => void draft.rows.splice(w.place(draft.rows.length), 0, { id: added, tags: [] }),
    );
    w.note(added, EXISTS, true);
  },
  copyArray: (w: Write) => {
    w.apply((draft) => {
      draft.rows = [...draft.rows];
    });
    w.noteNow(w.model.ids);
  },
} satisfies Record<string, (w: Write) => void>;

type RowWriteKind = keyof typeof ROW_WRITES;
type ArrayWriteKind = keyof typeof ARRAY_WRITES;
/** A write; `row` picks the row written by its place when the write runs. */
interface WriteStep {
  readonly kind: RowWriteKind | ArrayWriteKind;
  readonly by: Writer;
  readonly row: number;
  readonly member: Member;
  readonly to: number;
}
type Step =
  | WriteStep
  | { readonly kind: 'restore'; readonly snapshot: number }
  | { readonly kind: 'end'; readonly by: Call; readonly ok: boolean };

const isArrayWrite = (kind: string): kind is ArrayWriteKind => Object.hasOwn(ARRAY_WRITES, kind);

/** The row `id` in `rows` and its place; a write only names a row the array holds. */
function locate(rows: Row[], id: string): { readonly at: number; readonly row: Row } {
  const at = rows.findIndex((row) => row.id === id);
  const row = rows[at];
  if (row === undefined) throw new Error(`row ${id} is not in the array`);
  return { at, row };
}

const json = (value: string): string => JSON.stringify(value);

const sortKey = (row: Row): string => (typeof row.x === 'object' ? row.x.v : (row.x ?? ''));

/** The leaves of `row`: its existence, members, nested members and tags. */
function leavesOf(row: Row | undefined): Leaves {
  const leaves: Leaves = new Map();
  if (row === undefined) return leaves;
  leaves.set(EXISTS, true);
  for (const member of MEMBERS) {
    if (Object.hasOwn(row, member)) leaves.set(member, JSON.stringify(row[member]));
  }
  for (const [key, value] of Object.entries(row.n ?? {})) leaves.set(`n.${key}`, json(value));
  for (const tag of row.tags) leaves.set(`tag.${tag}`, true);
  return leaves;
}

/** The session under test, and what each writer wrote to each leaf, in order. */
class Model {
  readonly session = new Session();
  readonly table = this.session.slice<Table>('t', {
    initial: { rows: INITIAL_ROWS.map((id) => ({ id, tags: [] })) },
  });
  /** Every row id there has been. */
  readonly ids = new Set(INITIAL_ROWS);
  readonly outcome = new Map<Call, boolean>();
  readonly conflicts: RollbackConflictPath[] = [];
  readonly log: string[] = [];
  /** history[row id][leaf]: the writes to that leaf, oldest first. */
  private readonly history = new Map<string, Map<string, Written[]>>();
  private readonly scopes = new Map<Call, CallScope>();
  private readonly snapshots: SessionSnapshot[] = [this.session.snapshot()];
  private counter = 0;

  constructor(private readonly finalOutcome: Readonly<Record<Call, boolean>>) {
    for (const call of ['A', 'B', 'C'] as const) this.scopes.set(call, this.begin(call));
    this.scopes.set(
      'N',
      this.scope('A').run(() => this.begin('N')),
    );
  }

  run(steps: readonly Step[]): void {
    for (const step of steps) this.step(step);
    for (const call of ['A', 'B', 'C'] as const) this.end(call, this.finalOutcome[call]);
  }

  write(by: Writer, recipe: (draft: Table) => void): void {
    const change = (): void => this.table.update((draft) => recipe(draft));
    if (by === 'app') change();
    else this.scope(by).run(change);
  }

  note(by: Writer, id: string, leaf: string, value: Leaf): void {
    const leaves = this.history.get(id) ?? new Map<string, Written[]>();
    this.history.set(id, leaves);
    const writes = leaves.get(leaf) ?? [];
    writes.push({ by, value });
    leaves.set(leaf, writes);
  }

  noteNow(
    by: Writer,
    ids: Iterable<string>,
    before: ReadonlyMap<string, Leaves>,
    only: (leaf: string) => boolean,
  ): void {
    for (const id of ids) {
      const now = leavesOf(this.rowOf(id));
      const names = new Set([...now.keys(), ...(before.get(id)?.keys() ?? [])]);
      for (const leaf of names) if (only(leaf)) this.note(by, id, leaf, now.get(leaf) ?? ABSENT);
    }
  }

  newRow(): string {
    const id = `n${String(++this.counter)}`;
    this.ids.add(id);
    return id;
  }

  /** The row `id` where it is now, or undefined (also for a hole, which the checks report). */
  rowOf(id: string): Row | undefined {
    const rows: readonly (Row | undefined)[] = this.table.get().rows;
    return rows.find((row) => row?.id === id);
  }

  /** The row `id`, which the step that asks took from the array. */
  existing(id: string): Row {
    const row = this.rowOf(id);
    if (row === undefined) throw new Error(`row ${id} is not in the array`);
    return row;
  }

  /** Application code's writes are kept, and a call's when it and every call above it committed. */
  kept(by: Writer): boolean {
    if (by === 'app') return true;
    return this.outcome.get(by) === true && (by !== 'N' || this.outcome.get('A') === true);
  }

  historyOf(id: string, leaf: string): readonly Written[] {
    return this.history.get(id)?.get(leaf) ?? [];
  }

  leafNames(id: string): Set<string> {
    return new Set(this.history.get(id)?.keys());
  }

  report(): string {
    return [
      ...this.log,
      `outcome ${JSON.stringify(Object.fromEntries(this.outcome))}`,
      `conflicts ${JSON.stringify(this.conflicts)}`,
      `state ${JSON.stringify(this.table.get())}`,
    ].join('\n');
  }

  private begin(call: Call): CallScope {
    return this.session.beginCall({ callId: call, toolName: call });
  }

  private scope(call: Call): CallScope {
    const scope = this.scopes.get(call);
    if (scope === undefined) throw new Error(`call ${call} was not begun`);
    return scope;
  }

  /** Ends `call`; a parent that ends first ends its child before it. */
  private end(call: Call, ok: boolean): void {
    if (this.outcome.has(call)) return;
    if (call === 'A') this.end('N', this.finalOutcome.N);
    this.outcome.set(call, ok);
    this.log.push(`${call}.${ok ? 'commit' : 'rollback'}()`);
    if (ok) this.scope(call).commit();
    else this.conflicts.push(...this.scope(call).rollback());
  }

  /** Runs `step`, unless it is a write by a call that has ended; each step run is snapshotted. */
  private step(step: Step): void {
    if (step.kind === 'end') {
      this.end(step.by, step.ok);
      return;
    }
    if (step.kind === 'restore') this.restore(step.snapshot);
    else if (step.by === 'app' || !this.outcome.has(step.by)) this.change(step);
    else return;
    this.snapshots.push(this.session.snapshot());
  }

  private change(step: WriteStep): void {
    const { rows } = this.table.get();
    const id = rows[step.row % Math.max(rows.length, 1)]?.id;
    const value = `${step.by}${String(++this.counter)}`;
    const write = new Write(this, step.by, step.member, step.to, value, this.leavesNow());
    this.log.push(
      `${step.by}: ${step.kind} row ${id ?? '-'} ${step.member} '${value}' to ${String(step.to)}`,
    );
    if (isArrayWrite(step.kind)) ARRAY_WRITES[step.kind](write);
    else if (id !== undefined) ROW_WRITES[step.kind](write, id);
  }

  private restore(index: number): void {
    const snapshot = this.snapshots[index % this.snapshots.length];
    if (snapshot === undefined) throw new Error('no snapshot');
    const before = this.leavesNow();
    const was = this.table.get();
    this.log.push(`app: restore(snapshot ${String(index % this.snapshots.length)})`);
    this.session.restore(snapshot);
    if (this.table.get() !== was) this.noteNow('app', this.ids, before, () => true);
  }

  private leavesNow(): Map<string, Leaves> {
    return new Map([...this.ids].map((id) => [id, leavesOf(this.rowOf(id))]));
  }
}

/** Drafts and values that are not frozen, anywhere under `value`. */
function frozenProblems(value: unknown, path: string, out: string[] = []): string[] {
  if (isDraft(value)) out.push(`draft at ${path}`);
  if (typeof value === 'object' && value !== null) {
    if (!Object.isFrozen(value)) out.push(`not frozen at ${path}`);
    for (const [key, child] of Object.entries(value)) frozenProblems(child, `${path}.${key}`, out);
  }
  return out;
}

/** Holes and rows that are in the array twice. */
function arrayProblems(rows: readonly (Row | undefined)[]): string[] {
  const out: string[] = [];
  rows.forEach((row, at) => {
    if (typeof row !== 'object' || row === null) out.push(`hole at rows[${String(at)}]`);
  });
  const ids = rows.map((row) => row?.id);
  if (new Set(ids).size !== ids.length) out.push(`duplicate rows ${ids.join()}`);
  return out;
}

/**
 * Every leaf that is not its last kept write (or its initial value): a
 * failed write after that is allowed in its place only with a conflict.
 */
function leafProblems(model: Model): string[] {
  const out: string[] = [];
  for (const id of model.ids) {
    const row = model.rowOf(id);
    const now = leavesOf(row);
    const initialRow = INITIAL_ROWS.includes(id);
    const names =
      row === undefined ? new Set([EXISTS]) : new Set([...model.leafNames(id), ...now.keys()]);
    if (!initialRow) names.add(EXISTS);
    for (const leaf of names) {
      const writes = model.historyOf(id, leaf);
      const initial: Leaf = leaf === EXISTS && initialRow ? true : ABSENT;
      const value = now.get(leaf) ?? ABSENT;
      const lastKept = writes.findLastIndex((write) => model.kept(write.by));
      const expected = writes[lastKept]?.value ?? initial;
      if (value === expected) continue;
      const failedLater = writes.slice(lastKept + 1).filter((write) => !model.kept(write.by));
      const where = `${id}.${leaf} = ${String(value)}`;
      if (!failedLater.some((write) => write.value === value)) {
        out.push(`${where}, expected ${String(expected)} (writes ${JSON.stringify(writes)})`);
      } else if (model.conflicts.length === 0) {
        out.push(`${where}: a failed write left in place with no conflict`);
      }
    }
  }
  return out;
}

const writer = fc.constantFrom<Writer>('A', 'B', 'N', 'C', 'app');
const writeStep = (kinds: readonly (RowWriteKind | ArrayWriteKind)[]) =>
  fc.record({
    kind: fc.constantFrom(...kinds),
    by: writer,
    row: fc.nat(5),
    member: fc.constantFrom<Member>('x', 'y'),
    to: fc.nat(5),
  });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 14,
    arbitrary: writeStep([
      'set',
      'setTwice',
      'toggleObject',
      'delete',
      'setNested',
      'replaceNested',
      'replaceRow',
      'copyRow',
      'assign',
      'pushTag',
      'spreadTag',
      'removeTag',
      'moveAndSet',
      'removeRow',
    ]),
  },
  {
    weight: 4,
    arbitrary: writeStep([
      'reverse',
      'sort',
      'addRow',
      'copyArray',
      'unshiftAndSet',
      'insertAndSet',
    ]),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('restore' as const), snapshot: fc.nat(30) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('end' as const),
      by: fc.constantFrom<Call>('A', 'B', 'N', 'C'),
      ok: fc.boolean(),
    }),
  },
);
const finalOutcome = fc.record({
  A: fc.boolean(),
  B: fc.boolean(),
  C: fc.boolean(),
  N: fc.boolean(),
});

describe('rollback against a model of every write, property', () => {
  it("leaves each leaf's last kept write, a failed one only with a conflict, and a sound array", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), finalOutcome, (steps, ends) => {
        const model = new Model(ends);
        model.run(steps);
        const state = model.table.get();
        const problems = [
          ...frozenProblems(state, 'state'),
          ...arrayProblems(state.rows),
          ...leafProblems(model),
        ];
        expect(problems, model.report()).toEqual([]);
      }),
      {
        numRuns: 2_000,
        examples: [
          // An undo of a call's write made after another call's step cancels that
          // write: the other call's undo is not blocked by either (it left 'C2b',
          // the first of C's two values, with a conflict).
          [
            [
              { kind: 'set', by: 'A', row: 0, member: 'x', to: 0 },
              { kind: 'setTwice', by: 'C', row: 0, member: 'y', to: 0 },
              { kind: 'reverse', by: 'A', row: 0, member: 'x', to: 0 },
              { kind: 'set', by: 'A', row: 5, member: 'y', to: 0 },
            ],
            { A: false, B: false, C: false, N: false },
          ],
        ],
      },
    );
  });
});
