/**
 * The latency of one `echo` call, interleaved call by call: the raw SDK
 * client against the bridged tool through `invokeTool` (compiled `dist/`;
 * in memory also `src/` through tsx, with a caller `AbortSignal` and with a
 * `ToolInvoked` subscriber) and against the peers, over stdio
 * (server-everything, one process per contender) and in memory.
 *
 * The two sides of a goal are measured alike: code that another contender
 * ran a moment before is found warm. Over stdio the goal is judged twice:
 * each side twice (the raw client and the bridged tool, each with a control
 * on a second server, pooled), and each side once, as copies that no other
 * contender runs (`copies.ts`). In memory the raw client's path runs in
 * four contenders (LangChain's included) and the library's in three.
 */
import {
  closeAll,
  openAll,
  openBridged,
  openLangChain,
  openMastra,
  openRaw,
  type OpenCaller,
  type Transport,
} from './contenders.js';
import {
  type CallTimes,
  interleave,
  joinRuns,
  pooledBySet,
  type InterleavePlan,
  perCallRows,
  plan,
} from './interleave.js';
import { libraryCopy, sdkCopy } from './copies.js';
import { loadLibrary } from './library.js';
import type { ResultRow } from './stats.js';

export const RAW = 'raw SDK Client.callTool';
const CONTROL = 'raw SDK (control, 2nd server)';
export const BRIDGED = 'invokeTool (bridged, dist)';
const BRIDGED_SRC = 'invokeTool (bridged, src via tsx)';
const RAW_SIGNAL = 'raw SDK, caller AbortSignal';
const BRIDGED_SIGNAL = 'invokeTool (dist), caller AbortSignal';
const BRIDGED_SUBSCRIBER = 'invokeTool (dist), 1 ToolInvoked subscriber';
export const BRIDGED_CONTROL = 'invokeTool (control, 2nd server)';
const RAW_PAIR = 'raw SDK, both servers';
const BRIDGED_PAIR = 'invokeTool (dist), both servers';
const RAW_COPY = 'raw SDK, a second copy of the SDK';
const BRIDGED_COPY = 'invokeTool, a second copy of dist and of the SDK';
const LANGCHAIN = '@langchain/mcp-adapters';
const MASTRA = '@mastra/mcp';

/** The goals for the bridged call, as ratios to the raw client. */
const GOALS: Readonly<Record<Transport, number>> = { stdio: 1.05, 'in-memory': 1.25 };

/** Runs the per-call comparison over one transport. */
export async function perCall(transport: Transport): Promise<ResultRow[]> {
  const [dist, src] = await Promise.all([loadLibrary('dist'), loadLibrary('src')]);
  const attempts: [string, () => Promise<OpenCaller>][] = [
    [RAW, () => openRaw(RAW, transport)],
    [CONTROL, () => openRaw(CONTROL, transport)],
    [BRIDGED, () => openBridged(dist, BRIDGED, transport)],
  ];
  if (transport === 'stdio') {
    // Code another contender ran a moment before is found warm. The raw
    // client's own code (its read buffer, zod's reads of each message,
    // callTool) runs in it and its control; the library's own code (its read
    // buffer, the bridge) runs in the bridged tool and its control; the SDK
    // both are built on runs in all four; the peers bring their own copies.
    // The pair of copies runs each side's code, SDK and zod included, in one
    // contender alone. The goal holds for both designs.
    const [sdk, copy] = await Promise.all([sdkCopy(), libraryCopy()]);
    attempts.push(
      [BRIDGED_CONTROL, () => openBridged(dist, BRIDGED_CONTROL, transport)],
      [RAW_COPY, () => openRaw(RAW_COPY, transport, { sdk })],
      [BRIDGED_COPY, () => openBridged(copy, BRIDGED_COPY, transport)],
    );
  }
  if (transport === 'in-memory') {
    attempts.push(
      [BRIDGED_SRC, () => openBridged(src, BRIDGED_SRC, transport)],
      [RAW_SIGNAL, () => openRaw(RAW_SIGNAL, transport, { signal: true })],
      [BRIDGED_SIGNAL, () => openBridged(dist, BRIDGED_SIGNAL, transport, { signal: true })],
      [
        BRIDGED_SUBSCRIBER,
        () => openBridged(dist, BRIDGED_SUBSCRIBER, transport, { subscribers: 1 }),
      ],
    );
  }
  attempts.push([LANGCHAIN, () => openLangChain(LANGCHAIN, transport)]);
  if (transport === 'stdio') attempts.push([MASTRA, () => openMastra(MASTRA)]);
  const comparison = `per call, ${transport}`;
  const p = plan();
  // Over stdio each contender's server is a process, and where the scheduler
  // puts it gives that contender a speed of its own for the whole run (±5%
  // between identical raw clients): three sets of fresh processes, a third
  // of the rounds each, so that the spread over chunks is the spread over sets.
  const sets = transport === 'stdio' ? 3 : 1;
  const setPlan: InterleavePlan =
    sets === 1 ? p : { ...p, rounds: p.rounds / sets, chunk: p.rounds / sets };
  const runs: CallTimes[] = [];
  const failed: Record<string, string> = {};
  for (let set = 0; set < sets; set += 1) {
    // Each set opens the contenders from another place in the list: a server
    // started earlier tends to serve its contender a little faster for its life.
    const shift = Math.round((set * attempts.length) / sets);
    const order = [...attempts.slice(shift), ...attempts.slice(0, shift)];
    const opened = await openAll(order, [LANGCHAIN, MASTRA]);
    Object.assign(failed, opened.failed);
    try {
      runs.push(await interleave(opened.open, setPlan));
    } finally {
      await closeAll(opened.open);
    }
  }
  const times = joinRuns(runs);
  // A peer that could not run in every set is left out: its sets would not pair with the raw client's.
  for (const name of new Set(runs.flatMap((run) => [...run.keys()]))) {
    if (!times.has(name) && failed[name] === undefined) {
      failed[name] =
        `left out: it ran in ${runs.filter((run) => run.has(name)).length} of ${sets} sets`;
    }
  }
  const goal = GOALS[transport];
  // Over stdio the goal holds for both designs (see the comment on the contenders).
  const judged = transport === 'stdio' ? [BRIDGED_PAIR, BRIDGED_COPY] : [BRIDGED];
  const goals = Object.fromEntries(
    [...judged, BRIDGED_SIGNAL, BRIDGED_SUBSCRIBER].map((name) => [name, goal]),
  );
  const rows = perCallRows(comparison, times, {
    baseline: RAW,
    // The SDK pays for a caller's signal too: the signal row is held to the raw call with one.
    baselines: { [BRIDGED_SIGNAL]: RAW_SIGNAL, [BRIDGED_COPY]: RAW_COPY },
    plan: { ...p, chunk: setPlan.chunk },
    unit: transport === 'stdio' ? 'ms' : 'µs',
    goals,
    notes: {
      [CONTROL]: 'noise floor: the same raw client on a second server',
      [BRIDGED_CONTROL]: 'the same bridged tool on a second server',
      [RAW_COPY]: 'the raw client as modules no other contender runs',
      [BRIDGED_COPY]: `ratio against «${RAW_COPY}»: each copy's code runs in this contender alone`,
      [BRIDGED_SRC]: 'the same code run from src/ through tsx (esbuild keepNames)',
      [BRIDGED_SIGNAL]: `ratio against «${RAW_SIGNAL}»: the signal costs the SDK too`,
    },
  });
  if (transport === 'stdio') rows.push(...pairRows(comparison, runs, setPlan, goals));
  const absent: ResultRow[] = Object.entries(failed).map(([contender, note]) => ({
    comparison,
    contender,
    value: null,
    unit: 'µs/call',
    note,
  }));
  if (transport === 'in-memory') {
    absent.push({
      comparison,
      contender: MASTRA,
      value: null,
      unit: 'µs/call',
      note: 'not measured: MCPClient 0.14.5 connects only by command (stdio) or url',
    });
  }
  const described = rows.map((row) =>
    sets === 1 || row.statistic === undefined
      ? row
      : {
          ...row,
          statistic: `${row.statistic}, in ${sets} sets of fresh server processes (spread: between the sets)`,
        },
  );
  return [...described.map((row) => judgePeers(row, described, judged)), ...absent];
}

/**
 * The rows of each side's two contenders pooled (6,000 calls a side):
 * where the scheduler puts a server process moves its contender by a few
 * percent for the process's life, so the goal is judged on both servers
 * of each side. Pooled set by set (each set's calls of both servers
 * together), so that the spread is one ratio per set, as for the other rows.
 * @throws Error when a contender of a pair is missing from a set.
 */
function pairRows(
  comparison: string,
  runs: readonly CallTimes[],
  setPlan: InterleavePlan,
  goals: Readonly<Record<string, number>>,
): ResultRow[] {
  const times: CallTimes = new Map([
    [RAW_PAIR, pooledBySet(runs, [RAW, CONTROL])],
    [BRIDGED_PAIR, pooledBySet(runs, [BRIDGED, BRIDGED_CONTROL])],
  ]);
  return perCallRows(comparison, times, {
    baseline: RAW_PAIR,
    plan: { ...setPlan, chunk: 2 * setPlan.chunk },
    unit: 'ms',
    goals,
    notes: {
      [RAW_PAIR]: `«${RAW}» and its control, their calls pooled`,
      [BRIDGED_PAIR]: `«${BRIDGED}» and its control, their calls pooled`,
    },
  });
}

/** Peers have no goal of their own; each judged row also has to beat each of them. */
function judgePeers(
  row: ResultRow,
  rows: readonly ResultRow[],
  judged: readonly string[],
): ResultRow {
  if (!judged.includes(row.contender) || row.ratio === undefined) return row;
  const peers = rows.filter(
    (other) =>
      (other.contender === LANGCHAIN || other.contender === MASTRA) && other.ratio !== undefined,
  );
  const behind = peers.filter((peer) => row.ratio! >= peer.ratio!).map((peer) => peer.contender);
  const beaten = peers.filter((peer) => row.ratio! < peer.ratio!).map((peer) => peer.contender);
  const note =
    behind.length === 0
      ? `faster than ${beaten.join(' and ') || 'no peer measured'}`
      : `NOT faster than ${behind.join(' and ')}`;
  return { ...row, met: row.met === true && behind.length === 0, note };
}
