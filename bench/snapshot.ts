/**
 * Comparison 4: `session.snapshot()` + `session.restore()` with 10, 10,000
 * and 100,000 entries in state. Snapshots share the frozen state, so the
 * pair should cost the same whatever the size.
 */
import type { Session } from '../src/index.js';
import { isQuick } from './interleave.js';
import { type Library, loadLibrary } from './library.js';
import { alternate, type Contender, type ResultRow, rowsFromRounds } from './stats.js';

const SIZES = [10, 10_000, 100_000] as const;
const PAIRS_PER_BLOCK = 100_000;
/** From BENCHMARKS.md: at 100,000 entries, at most 3× the time at 10. */
const FLAT_GOAL = 3;

function label(size: number): string {
  return `${size.toLocaleString('en-US')} entries`;
}

/** A session whose state holds `size` entries, in one slice plus a small one. */
function sessionWith(lib: Library, size: number): Session {
  const session = new lib.Session();
  const entries: Record<string, { id: number; title: string; done: boolean }> = {};
  for (let i = 0; i < size; i += 1)
    entries[`item-${i}`] = { id: i, title: `item ${i}`, done: false };
  session.slice('items', { initial: entries });
  session.slice('counter', { initial: { n: 0 } });
  return session;
}

/** Runs comparison 4. */
export async function snapshot(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const contenders: Contender[] = SIZES.map((size) => {
    const session = sessionWith(lib, size);
    return {
      name: label(size),
      run: () => {
        const snap = session.snapshot();
        session.restore(snap);
        return Promise.resolve();
      },
    };
  });
  const times = await alternate(contenders, {
    rounds: isQuick() ? 3 : 15,
    block: PAIRS_PER_BLOCK,
    warmup: 20_000,
  });
  const goals = Object.fromEntries(SIZES.slice(1).map((size) => [label(size), FLAT_GOAL]));
  return rowsFromRounds('snapshot + restore', times, {
    baseline: label(SIZES[0]),
    unitsPerRound: PAIRS_PER_BLOCK,
    unit: 'µs',
    goals,
  }).map((row) => ({ ...row, unit: 'µs/pair' }));
}
