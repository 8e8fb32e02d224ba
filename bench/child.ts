/**
 * Runs one comparison in this process and writes its rows as JSON:
 * `node --expose-gc --import tsx bench/child.ts <comparison> <out.json>`
 * (`BENCH_QUICK=1` for a smoke run).
 * `bench/run.ts` starts one of these per comparison, so that no comparison
 * inherits another's heap, JIT state or child processes.
 */
import { writeFileSync } from 'node:fs';
import { childPids } from '../test/support/processes.js';
import { leftovers } from './processes.js';
import type { ComparisonResult, ResultRow } from './stats.js';

type Comparison = () => Promise<ResultRow[]>;

/** Every comparison, by the name `run.ts` passes; each loads only its own module. */
export const COMPARISONS: Readonly<Record<string, () => Promise<Comparison>>> = {
  'per-call-in-memory': async () => {
    const { perCall } = await import('./per-call.js');
    return () => perCall('in-memory');
  },
  'per-call-stdio': async () => {
    const { perCall } = await import('./per-call.js');
    return () => perCall('stdio');
  },
  'per-call-parts': async () => (await import('./per-call-parts.js')).perCallParts,
  'per-call-swept': async () => (await import('./per-call-swept.js')).perCallSwept,
  'per-call-alone': async () => (await import('./per-call-alone.js')).perCallAlone,
  'own-cpu': async () => (await import('./own-cpu.js')).ownCpu,
  allocation: async () => (await import('./allocation.js')).allocation,
  'connect-many': async () => (await import('./connect-many.js')).connectMany,
  render: async () => (await import('./render.js')).render,
  scaling: async () => (await import('./scaling.js')).scaling,
  'session-stores': async () => (await import('./store-call.js')).sessionStores,
  workers: async () => (await import('./workers.js')).workers,
  snapshot: async () => (await import('./snapshot.js')).snapshot,
  concurrency: async () => (await import('./concurrency.js')).concurrency,
  'connect-five': async () => (await import('./connect.js')).connectFive,
  heap: async () => (await import('./heap.js')).heap,
  disclosure: async () => (await import('./disclosure.js')).disclosure,
};

/** How long the comparison waits for its server processes to exit after closing them. */
const SETTLE_MS = 3_000;

async function main(): Promise<void> {
  const [name, out] = process.argv.slice(2);
  const load = name === undefined ? undefined : COMPARISONS[name];
  if (name === undefined || load === undefined || out === undefined) {
    throw new Error(
      `usage: child.ts <${Object.keys(COMPARISONS).join('|')}> <out.json>; got ${String(name)}`,
    );
  }
  // Load first: the loader may start helper processes of its own.
  const run = await load();
  const before = new Set(childPids());
  const started = performance.now();
  const rows = await run();
  const result: ComparisonResult = {
    name,
    rows,
    seconds: (performance.now() - started) / 1_000,
  };
  // Every server this comparison started must be gone before it reports.
  const left = await leftovers(before, SETTLE_MS);
  if (left.length > 0) throw new Error(`${name} left processes behind: ${left.join(', ')}`);
  writeFileSync(out, JSON.stringify(result));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
