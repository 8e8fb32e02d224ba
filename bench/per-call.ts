/**
 * Comparisons 1 and 2: the latency of one `echo` call, raw SDK against the
 * bridged tool through `invokeTool` and against the peers, over stdio
 * (server-everything, one process per contender) and in memory.
 */
import {
  openBridged,
  openLangChain,
  openMastra,
  openRaw,
  type OpenContender,
  type Transport,
} from './contenders.js';
import { alternate, type ResultRow, rowsFromRounds } from './stats.js';

const RAW = 'raw SDK Client.callTool';
const CONTROL = 'raw SDK (control, 2nd server)';
const BRIDGED = 'invokeTool (bridged)';
const LANGCHAIN = '@langchain/mcp-adapters';
const MASTRA = '@mastra/mcp';

/** Rounds and block sizes per transport (stdio blocks of 200: shorter ones are noise). */
const PLAN: Readonly<Record<Transport, { rounds: number; block: number; warmup: number }>> = {
  stdio: { rounds: 15, block: 200, warmup: 30 },
  'in-memory': { rounds: 15, block: 1_000, warmup: 300 },
};

const GOALS: Readonly<Record<Transport, number>> = { stdio: 1.1, 'in-memory': 1.5 };

/** Opens what can be opened; a peer that cannot run becomes a row saying why. */
async function openAll(
  transport: Transport,
): Promise<{ open: OpenContender[]; failed: ResultRow[] }> {
  const comparison = `per-call ${transport}`;
  const attempts: [string, () => Promise<OpenContender>][] = [
    [RAW, () => openRaw(RAW, transport)],
    [BRIDGED, () => openBridged(BRIDGED, transport)],
    [LANGCHAIN, () => openLangChain(LANGCHAIN, transport)],
  ];
  if (transport === 'stdio') {
    attempts.splice(1, 0, [CONTROL, () => openRaw(CONTROL, transport)]);
    attempts.push([MASTRA, () => openMastra(MASTRA)]);
  }
  const open: OpenContender[] = [];
  const failed: ResultRow[] = [];
  for (const [name, start] of attempts) {
    try {
      open.push(await start());
    } catch (error) {
      if (name === RAW || name === BRIDGED) {
        await Promise.all(open.map((c) => c.close()));
        throw error;
      }
      const message = error instanceof Error ? error.message : String(error);
      failed.push({
        comparison,
        contender: name,
        median: null,
        unit: 'ms/call',
        note: `cannot run: ${message.split('\n')[0] ?? message}`,
      });
    }
  }
  if (transport === 'in-memory') {
    failed.push({
      comparison,
      contender: MASTRA,
      median: null,
      unit: 'ms/call',
      note: 'not measured: MCPClient 0.14.5 connects only by command (stdio) or url',
    });
  }
  return { open, failed };
}

/** Runs the per-call comparison over one transport. */
export async function perCall(transport: Transport): Promise<ResultRow[]> {
  const { open, failed } = await openAll(transport);
  try {
    const plan = PLAN[transport];
    const times = await alternate(open, plan);
    const goal = GOALS[transport];
    const rows = rowsFromRounds(`per-call ${transport}`, times, {
      baseline: RAW,
      unitsPerRound: plan.block,
      unit: 'ms',
      goals: { [BRIDGED]: goal },
      notes: { [CONTROL]: 'noise floor: the same raw client on its own process' },
    });
    return [...rows.map((row) => judgePeers(row, rows)), ...failed];
  } finally {
    await Promise.all(open.map((c) => c.close()));
  }
}

/** Peers have no goal of their own; the bridged row also has to beat each of them. */
function judgePeers(row: ResultRow, rows: readonly ResultRow[]): ResultRow {
  if (row.contender !== BRIDGED || row.ratio === undefined) return row;
  const peers = rows.filter(
    (other) =>
      (other.contender === LANGCHAIN || other.contender === MASTRA) && other.ratio !== undefined,
  );
  const beaten = peers.filter((peer) => row.ratio! < peer.ratio!).map((peer) => peer.contender);
  const behind = peers.filter((peer) => row.ratio! >= peer.ratio!).map((peer) => peer.contender);
  const note =
    behind.length === 0
      ? `faster than ${beaten.join(' and ') || 'no peer measured'}`
      : `NOT faster than ${behind.join(' and ')}`;
  return { ...row, met: row.met === true && behind.length === 0, note };
}
