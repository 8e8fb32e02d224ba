/**
 * What each contender costs on its own, per call, with the transport taken
 * out: every contender connects for real, then the SDK's
 * `Protocol.prototype.request` is replaced by one that answers at once with
 * the echo result. What is left is the CPU each layer adds to a call —
 * measured in this process's CPU time, which other processes' load does not
 * inflate the way it does wall time.
 */
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  openBridged,
  openLangChain,
  openMastra,
  openRaw,
  type OpenContender,
} from './contenders.js';
import { ECHO_TEXT } from './servers.js';
import { alternate, median, type ResultRow, round } from './stats.js';

const RAW = 'raw SDK Client.callTool';
const BRIDGED = 'invokeTool (bridged)';
const LANGCHAIN = '@langchain/mcp-adapters';
const MASTRA = '@mastra/mcp';
const BLOCK = 5_000;

/** Runs the transport-stubbed comparison. */
export async function ownCost(): Promise<ResultRow[]> {
  const open: OpenContender[] = [
    await openRaw(RAW, 'in-memory'),
    await openBridged(BRIDGED, 'in-memory'),
    await openLangChain(LANGCHAIN, 'in-memory'),
  ];
  const skipped: ResultRow[] = [];
  try {
    open.push(await openMastra(MASTRA));
  } catch (error) {
    skipped.push({
      comparison: 'own CPU per call (transport stubbed)',
      contender: MASTRA,
      median: null,
      unit: 'µs/call',
      note: `cannot run: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  const prototype = Protocol.prototype as { request: unknown };
  const real = prototype.request;
  const answer = { content: [{ type: 'text', text: ECHO_TEXT }] };
  prototype.request = () => Promise.resolve(answer);
  try {
    const times = await alternate(open, { rounds: 15, block: BLOCK, warmup: BLOCK });
    const rawCpu = times.cpu.get(RAW)!;
    return [
      ...[...times.cpu].map(([contender, cpu]): ResultRow => {
        const perCall = (ms: number): number => (ms / BLOCK) * 1_000;
        const own = median(cpu.map((ms, i) => perCall(ms) - perCall(rawCpu[i]!)));
        return {
          comparison: 'own CPU per call (transport stubbed)',
          contender,
          median: round(contender === RAW ? perCall(median(cpu)) : own, 2),
          unit: contender === RAW ? 'µs/call (CPU, the floor)' : 'µs/call added (CPU)',
          note: `wall ${round(perCall(median(times.get(contender)!)), 2)} µs/call`,
        };
      }),
      ...skipped,
    ];
  } finally {
    prototype.request = real;
    await Promise.all(open.map((c) => c.close()));
  }
}
