/**
 * Bytes allocated per call, bridged minus raw, in memory. Node 20 exposes no
 * allocation counter, so this reads `process.memoryUsage().heapUsed` around
 * blocks of calls that start from a collected heap (`gc()`, needs
 * `--expose-gc`); without a collection inside the block, its growth is what
 * it allocated. The runner starts this comparison with a 32 MB young
 * generation (`--min-semi-space-size`), so a block of a few MB does not
 * trigger one; a block during which the collector ran anyway (seen by a
 * `gc` performance observer) is dropped, and the count of dropped blocks is
 * reported. The raw client's block of the same round is subtracted, so its
 * own server, transport and SDK parsing cancel out.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { type BlockPlan, type BlockReading, interleavedBlocks } from './blocks.js';
import { closeAll, openAll, openBridged, openLangChain, openRaw } from './contenders.js';
import { isQuick } from './interleave.js';
import { loadLibrary } from './library.js';
import { collectGarbage, type ResultRow, round, trimmedMean } from './stats.js';

const RAW = 'raw SDK Client.callTool';
const BRIDGED = 'invokeTool (bridged, dist)';
const BRIDGED_SIGNAL = 'invokeTool (dist), caller AbortSignal';
const LANGCHAIN = '@langchain/mcp-adapters';

/** The goal: at most this many bytes more than the raw call allocates. */
const GOAL_BYTES = 4 * 1024;

/** Whether a collection started inside the block. */
function collectedDuring(block: BlockReading, gcStarts: readonly number[]): boolean {
  return gcStarts.some((t) => t > block.start && t < block.end);
}

/** Runs the allocation comparison. */
export async function allocation(): Promise<ResultRow[]> {
  if ((globalThis as { gc?: unknown }).gc === undefined) throw new Error('run with --expose-gc');
  const dist = await loadLibrary('dist');
  const plan: BlockPlan = { warmupRounds: 5, rounds: isQuick() ? 10 : 40, block: 200 };
  const gcStarts: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcStarts.push(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  const { open, failed } = await openAll(
    [
      [RAW, () => openRaw(RAW, 'in-memory')],
      [BRIDGED, () => openBridged(dist, BRIDGED, 'in-memory')],
      [BRIDGED_SIGNAL, () => openBridged(dist, BRIDGED_SIGNAL, 'in-memory', { signal: true })],
      [LANGCHAIN, () => openLangChain(LANGCHAIN, 'in-memory')],
    ],
    [LANGCHAIN],
  );
  let readings;
  try {
    readings = await interleavedBlocks(open, plan, {
      settle: collectGarbage,
      read: () => process.memoryUsage().heapUsed,
    });
    // Observer entries arrive on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
    await closeAll(open);
  }
  const comparison = 'allocation per call, in-memory';
  const raw = readings.get(RAW)!;
  const clean = (i: number, r: BlockReading): boolean =>
    !collectedDuring(r, gcStarts) && !collectedDuring(raw[i]!, gcStarts);
  const rawKept = raw.filter((r, i) => clean(i, r));
  const rawPerCall = trimmedMean(rawKept.map((r) => r.delta)) / plan.block;
  const rows: ResultRow[] = [
    {
      comparison,
      contender: RAW,
      value: round(rawPerCall, 0),
      unit: 'B/call',
      statistic: `10%-trimmed mean of ${rawKept.length} blocks of ${plan.block} calls without a collection`,
    },
  ];
  for (const [contender, values] of readings) {
    if (contender === RAW) continue;
    const pairs = values.flatMap((r, i) =>
      clean(i, r) ? [(r.delta - raw[i]!.delta) / plan.block] : [],
    );
    const added = trimmedMean(pairs);
    const dropped = values.length - pairs.length;
    rows.push({
      comparison,
      contender,
      value: round(added, 0),
      unit: 'B/call more than raw',
      statistic: `10%-trimmed mean of ${pairs.length} interleaved block pairs of ${plan.block} calls`,
      ratio: round((rawPerCall + added) / rawPerCall, 3),
      baseline: RAW,
      ratioRange: [round(Math.min(...pairs), 0), round(Math.max(...pairs), 0)],
      note: `spread: min–max added B/call over the blocks; ${dropped} block(s) dropped (a collection ran inside)`,
      ...(contender === BRIDGED ? { goal: '≤ +4 KB', met: added <= GOAL_BYTES } : {}),
    });
  }
  for (const [contender, note] of Object.entries(failed)) {
    rows.push({ comparison, contender, value: null, unit: 'B/call more than raw', note });
  }
  return rows;
}
