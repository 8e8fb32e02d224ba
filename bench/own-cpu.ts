/**
 * Own CPU per call: what the bridged call (and each peer) adds to the raw
 * client's CPU time, over a real in-memory transport — the request, its
 * progress token if any, the server's side of it: nothing stubbed. Blocks of
 * calls alternate with the raw client's, the order rotating per round;
 * `process.cpuUsage()` counts this process only, so other processes' load
 * hardly moves it (on stdio, the server's process is not counted: what is
 * left is the client side).
 */
import { type BlockPlan, CPU_PROBE, type BlockReadings, interleavedBlocks } from './blocks.js';
import {
  closeAll,
  openAll,
  openBridged,
  openLangChain,
  openMastra,
  openRaw,
} from './contenders.js';
import { isQuick } from './interleave.js';
import { loadLibrary } from './library.js';
import { type ResultRow, round, trimmedMean } from './stats.js';

const RAW = 'raw SDK Client.callTool';
const BRIDGED = 'invokeTool (bridged, dist)';
const BRIDGED_SRC = 'invokeTool (bridged, src via tsx)';
const LANGCHAIN = '@langchain/mcp-adapters';
const MASTRA = '@mastra/mcp';

/** The goal: at most this much CPU of its own per bridged call, in µs. */
const GOAL_US = 4;

/** Own CPU per call of each contender against the raw client, in µs. */
export function ownCpuRows(
  comparison: string,
  readings: BlockReadings,
  block: number,
  goals: Readonly<Record<string, number>> = {},
): ResultRow[] {
  const raw = readings.get(RAW)!;
  const rawPerCall = trimmedMean(raw.map((r) => r.delta)) / block;
  const rounds = raw.length;
  return [...readings].map(([contender, values]): ResultRow => {
    const statistic = `10%-trimmed mean over ${rounds} interleaved blocks of ${block} calls`;
    if (contender === RAW) {
      return { comparison, contender, value: round(rawPerCall, 2), unit: 'µs CPU/call', statistic };
    }
    // Each block against the raw block of the same round: the difference is the contender's own.
    const own = values.map((r, i) => (r.delta - raw[i]!.delta) / block);
    const mean = trimmedMean(own);
    const chunk = Math.max(1, Math.floor(own.length / 3));
    const spread = [0, 1, 2].map((c) => trimmedMean(own.slice(c * chunk, (c + 1) * chunk)));
    const goal = goals[contender];
    return {
      comparison,
      contender,
      value: round(mean, 2),
      unit: 'µs CPU/call added',
      statistic,
      ratio: round((rawPerCall + mean) / rawPerCall, 3),
      baseline: RAW,
      ratioRange: [round(Math.min(...spread), 2), round(Math.max(...spread), 2)],
      note: 'spread: min–max of the added µs over thirds of the run',
      ...(goal === undefined ? {} : { goal: `≤ +${goal} µs`, met: mean <= goal }),
    };
  });
}

/** Runs the own-CPU comparison, in memory and over stdio. */
export async function ownCpu(): Promise<ResultRow[]> {
  const [dist, src] = await Promise.all([loadLibrary('dist'), loadLibrary('src')]);
  const quick = isQuick();
  const rows: ResultRow[] = [];
  const memoryPlan: BlockPlan = { warmupRounds: 3, rounds: quick ? 10 : 300, block: 200 };
  const memory = await openAll(
    [
      [RAW, () => openRaw(RAW, 'in-memory')],
      [BRIDGED, () => openBridged(dist, BRIDGED, 'in-memory')],
      [BRIDGED_SRC, () => openBridged(src, BRIDGED_SRC, 'in-memory')],
      [LANGCHAIN, () => openLangChain(LANGCHAIN, 'in-memory')],
    ],
    [LANGCHAIN],
  );
  try {
    const readings = await interleavedBlocks(memory.open, memoryPlan, CPU_PROBE);
    rows.push(
      ...ownCpuRows('own CPU per call, in-memory', readings, memoryPlan.block, {
        [BRIDGED]: GOAL_US,
      }),
    );
  } finally {
    await closeAll(memory.open);
  }
  const stdioPlan: BlockPlan = { warmupRounds: 1, rounds: quick ? 6 : 90, block: 100 };
  const stdio = await openAll(
    [
      [RAW, () => openRaw(RAW, 'stdio')],
      [BRIDGED, () => openBridged(dist, BRIDGED, 'stdio')],
      [LANGCHAIN, () => openLangChain(LANGCHAIN, 'stdio')],
      [MASTRA, () => openMastra(MASTRA)],
    ],
    [LANGCHAIN, MASTRA],
  );
  try {
    const readings = await interleavedBlocks(stdio.open, stdioPlan, CPU_PROBE);
    rows.push(
      ...ownCpuRows('own CPU per call, stdio (client side)', readings, stdioPlan.block).map(
        (row) => ({
          ...row,
          ...(row.contender === RAW
            ? {}
            : { note: `${row.note ?? ''}; the servers' processes are not counted` }),
        }),
      ),
    );
  } finally {
    await closeAll(stdio.open);
  }
  const failed = { ...memory.failed, ...stdio.failed };
  for (const [contender, note] of Object.entries(failed)) {
    rows.push({
      comparison: 'own CPU per call',
      contender,
      value: null,
      unit: 'µs CPU/call added',
      note,
    });
  }
  return rows;
}
