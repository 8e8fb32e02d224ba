/**
 * The in-memory `echo` call with the processor's caches swept before each
 * call: what a call costs when its code and data are no longer cached, as
 * over stdio (where the server's process and the other contenders run
 * between two calls of one contender) and in an agent (where a model
 * request runs between two tool calls). Before each call, untimed, the
 * caller writes one word of every cache line of an 8 MB buffer, more than
 * the caches this machine gives one process hold. The raw client, a second
 * raw client (the noise floor), the bridged call (dist), a second one
 * (each side's code twice a round, as over stdio), and LangChain's
 * adapter, interleaved call by call. Reported, no goal: it explains the stdio row,
 * whose goal it shares no method with.
 */
import { closeAll, openAll, openBridged, openLangChain, openRaw } from './contenders.js';
import { type Caller, interleave, perCallRows, plan } from './interleave.js';
import { loadLibrary } from './library.js';
import { BRIDGED, BRIDGED_CONTROL, RAW } from './per-call.js';
import type { ResultRow } from './stats.js';

const CONTROL = 'raw SDK (control, 2nd server)';
const LANGCHAIN = '@langchain/mcp-adapters';

/** Bytes swept before each call. */
export const SWEEP_BYTES = 8 * 1024 * 1024;

/** Words between two writes: one per 64-byte cache line. */
const WORDS_PER_LINE = 8;

const sweepBuffer = new Float64Array(SWEEP_BYTES / Float64Array.BYTES_PER_ELEMENT);

/** Writes one word of every cache line of the buffer; returns a sum so that it is not optimized away. */
export function sweepCaches(): number {
  let sum = 0;
  for (let index = 0; index < sweepBuffer.length; index += WORDS_PER_LINE) {
    sweepBuffer[index]! += 1;
    sum += sweepBuffer[index]!;
  }
  return sum;
}

/** Runs the swept comparison. */
export async function perCallSwept(): Promise<ResultRow[]> {
  const dist = await loadLibrary('dist');
  const { open, failed } = await openAll(
    [
      [RAW, () => openRaw(RAW, 'in-memory')],
      [CONTROL, () => openRaw(CONTROL, 'in-memory')],
      [BRIDGED, () => openBridged(dist, BRIDGED, 'in-memory')],
      [BRIDGED_CONTROL, () => openBridged(dist, BRIDGED_CONTROL, 'in-memory')],
      [LANGCHAIN, () => openLangChain(LANGCHAIN, 'in-memory')],
    ],
    [LANGCHAIN],
  );
  let swept = 0;
  const callers: Caller[] = open.map((caller) => ({
    ...caller,
    prepare: () => {
      swept += sweepCaches();
    },
  }));
  // A sweep takes longer than a call: a third of the usual rounds keeps the comparison short.
  const p = plan(1 / 3);
  let times;
  try {
    times = await interleave(callers, p);
  } finally {
    await closeAll(open);
  }
  if (swept === 0) throw new Error('the sweep wrote nothing');
  const comparison = 'per call, in-memory, caches swept before each call';
  const rows = perCallRows(comparison, times, {
    baseline: RAW,
    plan: p,
    unit: 'µs',
    notes: {
      [CONTROL]: 'noise floor: the same raw client on a second server',
      [BRIDGED_CONTROL]: 'the same bridged tool on a second server',
      [BRIDGED]: `before each call of every contender, untimed, one write per cache line of ${SWEEP_BYTES / 1024 / 1024} MB`,
    },
  });
  const absent: ResultRow[] = Object.entries(failed).map(([contender, note]) => ({
    comparison,
    contender,
    value: null,
    unit: 'µs/call',
    note,
  }));
  return [...rows, ...absent];
}
