/**
 * Interleaved blocks, for figures a single call is too short to read: own
 * CPU time (`process.cpuUsage()` has a microsecond grain and costs about as
 * much as a call) and bytes allocated. Each round runs a block of calls of
 * every contender, in the order of `order.ts`; a probe is read before and
 * after each block.
 */
import type { Caller } from './interleave.js';
import { roundOrder } from './order.js';

/** What a block reading holds: the probe's change, and when the block ran. */
export interface BlockReading {
  readonly delta: number;
  /** `performance.now()` at the start and the end of the block. */
  readonly start: number;
  readonly end: number;
}

/** Rounds and block size. */
export interface BlockPlan {
  readonly warmupRounds: number;
  readonly rounds: number;
  /** Calls per contender per block. */
  readonly block: number;
}

/** How a comparison reads its figure around a block. */
export interface Probe {
  /** Runs right before the probe's first reading (e.g. a full collection). */
  readonly settle?: () => void;
  /** The counter the block changes (CPU microseconds, heap bytes). */
  readonly read: () => number;
}

/** This process's CPU time, user + system, in microseconds (all its threads). */
export const CPU_PROBE: Probe = {
  read: () => {
    const used = process.cpuUsage();
    return used.user + used.system;
  },
};

/** Readings per contender, one per timed round. */
export type BlockReadings = ReadonlyMap<string, readonly BlockReading[]>;

/** Runs `plan.warmupRounds + plan.rounds` rounds of one block per contender. */
export async function interleavedBlocks(
  callers: readonly Caller[],
  plan: BlockPlan,
  probe: Probe,
): Promise<BlockReadings> {
  const n = callers.length;
  const readings = new Map<string, BlockReading[]>(callers.map((c) => [c.name, []]));
  for (let r = -plan.warmupRounds; r < plan.rounds; r += 1) {
    for (const index of roundOrder(n, r)) {
      const caller = callers[index]!;
      probe.settle?.();
      const start = performance.now();
      const before = probe.read();
      for (let i = 0; i < plan.block; i += 1) await caller.call();
      const delta = probe.read() - before;
      if (r >= 0) readings.get(caller.name)!.push({ delta, start, end: performance.now() });
    }
  }
  return readings;
}
