/**
 * Timing and statistics shared by every comparison: rounds that alternate
 * the contenders, medians, per-round ratios, and the result rows that
 * `bench/run.ts` prints and writes to `bench/results.json`.
 */

/** One measured figure of a comparison. */
export interface ResultRow {
  /** What is measured, e.g. `per-call stdio`. */
  readonly comparison: string;
  /** Who is measured, e.g. `invokeTool (bridged)`. */
  readonly contender: string;
  /** The figure, in `unit` (see `statistic`). `null` when the contender could not run. */
  readonly value: number | null;
  readonly unit: string;
  /** How `value` was taken, e.g. `10%-trimmed mean of 3,000 calls`, `median of 15 rounds`. */
  readonly statistic?: string;
  /** This row's figure against `baseline`'s, when there is one. */
  readonly ratio?: number;
  /** The contender the ratio is taken against. */
  readonly baseline?: string;
  /** Spread of the ratio: [min, max] over chunks of calls, or over rounds. */
  readonly ratioRange?: readonly [number, number];
  /** Median per-round ratio of this process's CPU time (see {@link RoundTimes.cpu}). */
  readonly cpuRatio?: number;
  /** The goal this row is judged by, in words, e.g. `≤ 1.10×`. */
  readonly goal?: string;
  /** Whether the goal was met; absent when the row has no goal. */
  readonly met?: boolean;
  /** Anything a reader needs to interpret the row (an error, a count). */
  readonly note?: string;
}

/** What a comparison's child process hands back. */
export interface ComparisonResult {
  readonly name: string;
  readonly rows: readonly ResultRow[];
  readonly seconds: number;
}

/** A contender in an alternating comparison. */
export interface Contender {
  readonly name: string;
  /** Runs one unit of work (one call). */
  readonly run: () => Promise<void>;
  /** Untimed set-up before each block (fresh servers, fresh copies). */
  readonly prepare?: () => Promise<void> | void;
}

/** Options of {@link alternate}. */
export interface AlternateOptions {
  /** Rounds, each running every contender once. @default 15 */
  readonly rounds?: number;
  /** Units per contender per round. @default 200 */
  readonly block?: number;
  /** Units per contender before the first round. @default 30 */
  readonly warmup?: number;
}

/** Milliseconds of each contender's block, one entry per round. */
export type RoundTimes = ReadonlyMap<string, readonly number[]> & {
  /**
   * CPU milliseconds of this process (all its threads) per block, same
   * layout. Other processes' load does not inflate it, so for work done in
   * process (in-memory calls, conversions) it is the steadier figure.
   */
  readonly cpu: ReadonlyMap<string, readonly number[]>;
};

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export function now(): number {
  return performance.now();
}

/** Runs a full collection when the process was started with `--expose-gc`; else nothing. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs `work` and returns how long it took, in milliseconds. */
export async function timeIt(work: () => Promise<unknown>): Promise<number> {
  const started = now();
  await work();
  return now() - started;
}

/**
 * Runs every contender for `block` sequential units per round, `rounds`
 * times, rotating the order each round so that no contender always runs
 * first or last; warms each one up before.
 */
export async function alternate(
  contenders: readonly Contender[],
  options: AlternateOptions = {},
): Promise<RoundTimes> {
  const rounds = options.rounds ?? 15;
  const block = options.block ?? 200;
  const warmup = options.warmup ?? 30;
  for (const contender of contenders) {
    for (let i = 0; i < warmup; i += 1) {
      await contender.prepare?.();
      await contender.run();
    }
  }
  const wall = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  const cpu = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < contenders.length; k += 1) {
      const contender = contenders[(round + k) % contenders.length]!;
      await contender.prepare?.();
      // Start every block from a collected heap, so no block pays for another's garbage.
      collectGarbage();
      const cpuBefore = process.cpuUsage();
      const started = now();
      for (let i = 0; i < block; i += 1) await contender.run();
      wall.get(contender.name)!.push(now() - started);
      const used = process.cpuUsage(cpuBefore);
      cpu.get(contender.name)!.push((used.user + used.system) / 1_000);
    }
  }
  return Object.assign(wall, { cpu });
}

/**
 * The mean of `values` without the lowest and highest `share` of them (10%
 * each side by default): robust to the stalls a shared machine adds, yet
 * unlike a median it still moves with every call's cost.
 */
export function trimmedMean(values: ArrayLike<number>, share = 0.1): number {
  const sorted = Float64Array.from(values).sort();
  const cut = Math.floor(sorted.length * share);
  let sum = 0;
  for (let i = cut; i < sorted.length - cut; i += 1) sum += sorted[i]!;
  return sum / Math.max(1, sorted.length - 2 * cut);
}

/** The median of `values` (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Element-wise `values[i] / baseline[i]`. */
export function ratios(values: readonly number[], baseline: readonly number[]): number[] {
  return values.map((value, i) => value / baseline[i]!);
}

/** Rows for every contender of an {@link alternate} run, per unit, against `baseline`. */
export function rowsFromRounds(
  comparison: string,
  times: RoundTimes,
  options: {
    readonly baseline: string;
    readonly unitsPerRound: number;
    readonly unit: 'ms' | 'µs';
    readonly goals?: Readonly<Record<string, number>>;
    readonly notes?: Readonly<Record<string, string>>;
  },
): ResultRow[] {
  const base = times.get(options.baseline);
  if (base === undefined) throw new Error(`no baseline "${options.baseline}" in the rounds`);
  const scale = options.unit === 'µs' ? 1_000 : 1;
  return [...times].map(([contender, values]) => {
    const perUnit = median(values) / options.unitsPerRound;
    const note = options.notes?.[contender];
    const row: ResultRow = {
      comparison,
      contender,
      value: round(perUnit * scale, 4),
      unit: `${options.unit}/call`,
      statistic: `median of ${values.length} rounds`,
      ...(note === undefined ? {} : { note }),
    };
    if (contender === options.baseline) return row;
    const r = ratios(values, base);
    const ratio = median(r);
    const goal = options.goals?.[contender];
    return {
      ...row,
      ratio: round(ratio, 3),
      baseline: options.baseline,
      ratioRange: [round(Math.min(...r), 3), round(Math.max(...r), 3)],
      cpuRatio: round(cpuRatio(times, contender, options.baseline), 3),
      ...(goal === undefined ? {} : { goal: `≤ ${goal.toFixed(2)}×`, met: ratio <= goal }),
    };
  });
}

/** Median of the per-round CPU-time ratios of `contender` to `baseline`. */
export function cpuRatio(times: RoundTimes, contender: string, baseline: string): number {
  return median(ratios(times.cpu.get(contender) ?? [], times.cpu.get(baseline) ?? []));
}

/** `value` rounded to `digits` significant decimals (for the JSON file). */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A bytes count as `12.3 MB`. */
export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  if (abs >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} B`;
}
