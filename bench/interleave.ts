/**
 * Per-call comparisons that hold up on a shared, noisy machine: every
 * contender makes one call in turn, the order changing on every round
 * (`order.ts`), so that a stall (another process, a collection) and the
 * state the previous call leaves behind land on all of them alike;
 * then 10%-trimmed means over all calls, and the ratio's spread over chunks
 * of calls. Measured this way a 1.10 vs 1.13 question settles; blocks of
 * calls per contender, taken in 9–15 rounds, do not.
 */
import { roundOrder } from './order.js';
import { type ResultRow, round, trimmedMean } from './stats.js';

/** One way of making one call. */
export interface Caller {
  readonly name: string;
  /** Makes one call and resolves with its result when it is done. */
  readonly call: () => Promise<unknown>;
  /**
   * Throws unless `result` is the answer expected. `interleave` runs it on
   * every call after the clock stops (blocks do not check), so that a
   * contender that fails fast cannot look cheap, and none pays for its check.
   */
  readonly check?: (result: unknown) => void;
  /** Untimed work right before each call (close the last cycle, copy the input). */
  readonly prepare?: () => Promise<void> | void;
}

/** How many rounds; one round is one call of each contender. */
export interface InterleavePlan {
  /** Untimed rounds first (JIT, caches, pools). */
  readonly warmup: number;
  /** Timed rounds. */
  readonly rounds: number;
  /** Rounds per chunk for the spread (`rounds` should be a multiple). */
  readonly chunk: number;
}

/** The method: 300 warm-up rounds, then 3,000 in chunks of 1,000. */
export const FULL_PLAN: InterleavePlan = { warmup: 300, rounds: 3_000, chunk: 1_000 };

/** A smoke run: the same shape, a tenth of the calls. */
export const QUICK_PLAN: InterleavePlan = { warmup: 50, rounds: 300, chunk: 100 };

/** Whether this run is a `--quick` one (the runner sets `BENCH_QUICK=1`). */
export function isQuick(): boolean {
  return process.env.BENCH_QUICK === '1';
}

/** {@link FULL_PLAN} or {@link QUICK_PLAN}, scaled by `factor` (for slow calls). */
export function plan(factor = 1): InterleavePlan {
  const base = isQuick() ? QUICK_PLAN : FULL_PLAN;
  const chunk = Math.max(1, Math.round(base.chunk * factor));
  return { warmup: Math.max(1, Math.round(base.warmup * factor)), rounds: chunk * 3, chunk };
}

/** Milliseconds of every timed call, per contender, in round order. */
export type CallTimes = ReadonlyMap<string, Float64Array>;

/**
 * Runs `plan.warmup + plan.rounds` rounds, one call of each contender per
 * round, in the order of {@link roundOrder}: each goes first, last and in
 * between equally often, and, within a round, after each of the others
 * equally often.
 */
export async function interleave(
  callers: readonly Caller[],
  p: InterleavePlan,
): Promise<CallTimes> {
  const n = callers.length;
  const times = callers.map(() => new Float64Array(p.rounds));
  for (let r = -p.warmup; r < p.rounds; r += 1) {
    for (const index of roundOrder(n, r)) {
      const caller = callers[index]!;
      await caller.prepare?.();
      const before = performance.now();
      const result = await caller.call();
      const elapsed = performance.now() - before;
      caller.check?.(result);
      if (r >= 0) times[index]![r] = elapsed;
    }
  }
  return new Map(callers.map((caller, i) => [caller.name, times[i]!]));
}

/** Each contender's times over consecutive runs, run after run; only contenders in every run. */
export function joinRuns(runs: readonly CallTimes[]): CallTimes {
  const names = [...(runs[0]?.keys() ?? [])].filter((name) => runs.every((run) => run.has(name)));
  return new Map(
    names.map((name) => [
      name,
      concatenated(runs.map((run) => run.get(name) ?? new Float64Array())),
    ]),
  );
}

/**
 * The times of `members` pooled as one contender's, set by set (a run's
 * calls of every member, then the next run's), so that a chunk of
 * `members.length` times a run's rounds is one run of all of them.
 * @throws Error when a member is missing from a run.
 */
export function pooledBySet(runs: readonly CallTimes[], members: readonly string[]): Float64Array {
  return concatenated(
    runs.flatMap((run) =>
      members.map((member) => {
        const times = run.get(member);
        if (times === undefined) throw new Error(`no calls of «${member}» to pool`);
        return times;
      }),
    ),
  );
}

/** `parts` one after the other. */
function concatenated(parts: readonly Float64Array[]): Float64Array {
  const joined = new Float64Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/**
 * Trimmed-mean ratio of `values` to `base` in each chunk of `chunk` rounds.
 * @throws Error when the two do not hold the same rounds.
 */
export function chunkRatios(values: Float64Array, base: Float64Array, chunk: number): number[] {
  if (values.length !== base.length) {
    throw new Error(`${values.length} calls cannot pair with a baseline of ${base.length}`);
  }
  const out: number[] = [];
  for (let from = 0; from + chunk <= values.length; from += chunk) {
    out.push(
      trimmedMean(values.subarray(from, from + chunk)) /
        trimmedMean(base.subarray(from, from + chunk)),
    );
  }
  return out;
}

/** How to turn {@link CallTimes} into rows. */
export interface PerCallRowsOptions {
  /** The contender ratios are taken against. */
  readonly baseline: string;
  /** Contenders compared with another baseline: the like-for-like raw call. */
  readonly baselines?: Readonly<Record<string, string>>;
  readonly plan: InterleavePlan;
  /** Upper bounds on the ratio, by contender. */
  readonly goals?: Readonly<Record<string, number>>;
  readonly notes?: Readonly<Record<string, string>>;
  /** `ms` (stdio) or `µs` (in memory). @default 'µs' */
  readonly unit?: 'ms' | 'µs';
}

/** One row per contender: trimmed mean per call, ratio to the baseline, spread over chunks. */
export function perCallRows(
  comparison: string,
  times: CallTimes,
  options: PerCallRowsOptions,
): ResultRow[] {
  const baseOf = (name: string): Float64Array => {
    const values = times.get(name);
    if (values === undefined) throw new Error(`no baseline "${name}" in the run`);
    return values;
  };
  const base = baseOf(options.baseline);
  const unit = options.unit ?? 'µs';
  const scale = unit === 'µs' ? 1_000 : 1;
  const statistic = `10%-trimmed mean of ${base.length.toLocaleString('en-US')} interleaved calls`;
  return [...times].map(([contender, values]): ResultRow => {
    const mean = trimmedMean(values);
    const note = options.notes?.[contender];
    const row: ResultRow = {
      comparison,
      contender,
      value: round(mean * scale, unit === 'µs' ? 2 : 4),
      unit: `${unit}/call`,
      statistic,
      ...(note === undefined ? {} : { note }),
    };
    if (contender === options.baseline) return row;
    const baseline = options.baselines?.[contender] ?? options.baseline;
    const ratio = mean / trimmedMean(baseOf(baseline));
    const spread = chunkRatios(values, baseOf(baseline), options.plan.chunk);
    const goal = options.goals?.[contender];
    return {
      ...row,
      ratio: round(ratio, 3),
      baseline,
      ratioRange: [round(Math.min(...spread), 3), round(Math.max(...spread), 3)],
      ...(goal === undefined ? {} : { goal: `≤ ${goal.toFixed(2)}×`, met: ratio <= goal }),
    };
  });
}
