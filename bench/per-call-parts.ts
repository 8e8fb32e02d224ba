/**
 * Where the bridged call's extra time goes over stdio: the raw SDK client
 * and the bridged `echo` (dist), interleaved on fresh server-everything
 * processes, with each call split where the SDK's stdio transport writes
 * the request and where the response arrives:
 * - **before the write**: the caller's code until the request is written
 *   (the write itself, which wakes the server, included);
 * - **round trip**: from the write to the response, the server's turn;
 * - **after the response**: until the caller has its result.
 * A third contender runs the raw call inside `AsyncLocalStorage.run`, the
 * async context that per-call rollback needs: what that context alone costs;
 * a fourth is the bridged tool on a second server, so that the library's
 * code runs twice a round, as the raw client's does.
 * The split patches `StdioClientTransport` of this child process only, so
 * it runs apart from the per-call row it explains. Reported, no goal.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { closeAll, openBridged, openRaw, type OpenCaller } from './contenders.js';
import { type Caller, chunkRatios, plan } from './interleave.js';
import { loadLibrary } from './library.js';
import { roundOrder } from './order.js';
import { BRIDGED, BRIDGED_CONTROL, RAW } from './per-call.js';
import { round, type ResultRow, trimmedMean } from './stats.js';

const RAW_IN_CONTEXT = 'raw SDK Client.callTool in AsyncLocalStorage.run';

/** The raw client, each call run in an async context of its own, as a bridged call's scope is. */
async function openRawInContext(): Promise<OpenCaller> {
  const context = new AsyncLocalStorage<object>();
  const raw = await openRaw(RAW_IN_CONTEXT, 'stdio');
  return { ...raw, call: () => context.run({}, () => raw.call()) };
}

/** When the last request was written and the last response arrived (ms, `performance.now()`). */
const marks = { written: 0, answered: 0 };

const WATCHED = Symbol('watched');

/** Records {@link marks} for every stdio transport of this process. */
function watchStdio(): void {
  const prototype = StdioClientTransport.prototype;
  const send = prototype.send;
  prototype.send = function watchedSend(
    this: StdioClientTransport & { [WATCHED]?: true },
    message,
  ) {
    if (this[WATCHED] !== true && this.onmessage !== undefined) {
      this[WATCHED] = true;
      const deliver = this.onmessage;
      this.onmessage = (incoming: JSONRPCMessage) => {
        if (!('method' in incoming)) marks.answered = performance.now();
        deliver(incoming);
      };
    }
    const sent = send.call(this, message);
    marks.written = performance.now(); // the SDK writes before it returns
    return sent;
  };
}

/** The three parts of each call, per contender, in ms. */
interface Parts {
  readonly before: number[];
  readonly roundTrip: number[];
  readonly after: number[];
}

async function measure(
  callers: readonly Caller[],
  rounds: number,
  warmup: number,
): Promise<Parts[]> {
  const parts = callers.map((): Parts => ({ before: [], roundTrip: [], after: [] }));
  for (let r = -warmup; r < rounds; r += 1) {
    for (const index of roundOrder(callers.length, r)) {
      const caller = callers[index]!;
      const start = performance.now();
      const result = await caller.call();
      const end = performance.now();
      caller.check?.(result);
      if (r < 0) continue;
      const own = parts[index]!;
      own.before.push(marks.written - start);
      own.roundTrip.push(marks.answered - marks.written);
      own.after.push(end - marks.answered);
    }
  }
  return parts;
}

/** Runs the split over stdio. */
export async function perCallParts(): Promise<ResultRow[]> {
  watchStdio();
  const lib = await loadLibrary('dist');
  const p = plan();
  // Where the scheduler puts a server process moves its round trip by up to
  // ±10% for the process's life: three sets of fresh processes, pooled.
  const sets = 3;
  // The library's code runs twice a round, as the raw client's does (see per-call.ts).
  const names = [RAW, RAW_IN_CONTEXT, BRIDGED, BRIDGED_CONTROL];
  const measured = names.map((): Parts => ({ before: [], roundTrip: [], after: [] }));
  for (let set = 0; set < sets; set += 1) {
    const open = [
      await openRaw(RAW, 'stdio'),
      await openRawInContext(),
      await openBridged(lib, BRIDGED, 'stdio'),
      await openBridged(lib, BRIDGED_CONTROL, 'stdio'),
    ];
    try {
      const parts = await measure(open, p.rounds / sets, p.warmup);
      parts.forEach((part, index) => {
        const pooled = measured[index]!;
        pooled.before.push(...part.before);
        pooled.roundTrip.push(...part.roundTrip);
        pooled.after.push(...part.after);
      });
    } finally {
      await closeAll(open);
    }
  }
  const comparison = 'per call, stdio, split at the write and the response';
  const statistic = `10%-trimmed mean of ${p.rounds.toLocaleString('en-US')} interleaved calls, in ${sets} sets of fresh server processes (spread: between the sets)`;
  const labels: [keyof Parts, string][] = [
    ['before', 'before the write'],
    ['roundTrip', 'round trip'],
    ['after', 'after the response'],
  ];
  const whole = measured.map((parts) =>
    Float64Array.from(parts.before, (before, i) => before + parts.roundTrip[i]! + parts.after[i]!),
  );
  const rawWhole = whole[0]!;
  const rows: ResultRow[] = names.map((name, index) => {
    const value = trimmedMean(whole[index]!);
    const row: ResultRow = {
      comparison,
      contender: `${name}: whole call`,
      value: round(value * 1_000, 1),
      unit: 'µs/call',
      statistic,
    };
    if (index === 0) return row;
    const spread = chunkRatios(whole[index]!, rawWhole, p.rounds / sets);
    return {
      ...row,
      ratio: round(value / trimmedMean(rawWhole), 3),
      baseline: `${RAW}: whole call`,
      ratioRange: [round(Math.min(...spread), 3), round(Math.max(...spread), 3)],
    };
  });
  for (const [key, label] of labels) {
    const raw = trimmedMean(measured[0]![key]);
    names.forEach((name, index) => {
      const value = trimmedMean(measured[index]![key]);
      rows.push({
        comparison,
        contender: `${name}: ${label}`,
        value: round(value * 1_000, 1),
        unit: 'µs/call',
        statistic,
        ...(index === 0
          ? {}
          : { note: `${signed(round((value - raw) * 1_000, 1))} µs against the raw call` }),
      });
    });
  }
  return rows;
}

function signed(value: number): string {
  return value < 0 ? `−${-value}` : `+${value}`;
}
