/**
 * Comparison 7: heap after 10,000 calls against heap after 1,000 (in
 * memory, collected before each reading; needs `node --expose-gc`). A
 * per-call leak anywhere — session, bus, pool, connection maps, the SDK's
 * handlers, abort listeners — shows as growth in proportion to the calls.
 */
import { getEventListeners } from 'node:events';
import { openSection, rawClient } from './contenders.js';
import { isQuick } from './interleave.js';
import { loadLibrary } from './library.js';
import { ECHO_ARGS } from './servers.js';
import { formatBytes, median, type ResultRow, round } from './stats.js';

const FIRST = 1_000;
const TOTAL = 10_000;
const REPEATS = isQuick() ? 1 : 3;
/**
 * Flat: less than this kept over the 9,000 calls between the readings. The
 * raw client itself keeps 0–200 KB (noise of the collector and the JIT); the
 * leak fixed in `server-connection.ts` kept about 850 B a call, 7.5 MB.
 */
const KEPT_GOAL_BYTES = 512 * 1024;

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  for (let i = 0; i < 3; i += 1) gc();
  return process.memoryUsage().heapUsed;
}

/** Heap growth per call between call FIRST and call TOTAL, for `call`. */
async function growth(call: () => Promise<void>): Promise<number> {
  for (let i = 0; i < FIRST; i += 1) await call();
  const atFirst = heapAfterGc();
  for (let i = FIRST; i < TOTAL; i += 1) await call();
  const atTotal = heapAfterGc();
  return (atTotal - atFirst) / (TOTAL - FIRST);
}

/** Runs comparison 7. */
export async function heap(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const { invokeTool } = lib;
  const raw = await rawClient('in-memory');
  const plain = await openSection(lib, 'in-memory');
  const signalled = await openSection(lib, 'in-memory');
  // A caller that passes one long-lived signal to every call (e.g. an agent run's).
  const run = new AbortController();
  const contenders: [string, () => Promise<void>][] = [
    [
      'raw SDK Client.callTool',
      async () => {
        await raw.callTool({ name: 'echo', arguments: ECHO_ARGS });
      },
    ],
    [
      'invokeTool (bridged)',
      async () => {
        await invokeTool(plain.echo, ECHO_ARGS, { session: plain.session });
      },
    ],
    [
      'invokeTool (bridged), one signal for all calls',
      async () => {
        await invokeTool(signalled.echo, ECHO_ARGS, {
          session: signalled.session,
          signal: run.signal,
        });
      },
    ],
  ];
  const perCall = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  try {
    for (let r = 0; r < REPEATS; r += 1) {
      for (const [name, call] of contenders) perCall.get(name)!.push(await growth(call));
    }
    const listeners = getEventListeners(run.signal, 'abort').length;
    return [...perCall].map(([contender, values]): ResultRow => {
      const bytes = median(values);
      const isOurs = contender !== 'raw SDK Client.callTool';
      return {
        comparison: `heap, ${TOTAL.toLocaleString('en-US')} vs ${FIRST.toLocaleString('en-US')} calls (in-memory)`,
        contender,
        value: round(bytes, 1),
        statistic: `median of ${REPEATS}`,
        unit: 'B/call kept',
        ...(isOurs
          ? {
              goal: `< ${formatBytes(KEPT_GOAL_BYTES)} kept`,
              met: bytes * (TOTAL - FIRST) < KEPT_GOAL_BYTES,
            }
          : {}),
        note: `${formatBytes(bytes * (TOTAL - FIRST))} over ${(TOTAL - FIRST).toLocaleString('en-US')} calls (median of ${REPEATS})${
          isOurs ? `; abort listeners left on the callers' signals: ${listeners}` : ''
        }`,
      };
    });
  } finally {
    await Promise.all([raw.close(), plain.section.disconnect(), signalled.section.disconnect()]);
  }
}
