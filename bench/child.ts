/**
 * Runs one comparison in this process and writes its rows as JSON:
 * `node --import tsx bench/child.ts <comparison> <out.json>`.
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
  'per-call-stdio': async () => {
    const { perCall } = await import('./per-call.js');
    return () => perCall('stdio');
  },
  'per-call-in-memory': async () => {
    const { perCall } = await import('./per-call.js');
    return () => perCall('in-memory');
  },
  'own-cost': async () => (await import('./own-cost.js')).ownCost,
  schemas: async () => (await import('./schemas.js')).schemas,
  snapshot: async () => (await import('./snapshot.js')).snapshot,
  concurrency: async () => (await import('./concurrency.js')).concurrency,
  'connect-five': async () => (await import('./connect.js')).connectFive,
  heap: async () => (await import('./heap.js')).heap,
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
