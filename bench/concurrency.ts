/**
 * Comparison 5: 1,000 concurrent calls (`Promise.all`) over one stdio
 * connection — the bridged `echo` through `invokeTool` against the raw
 * client doing the same on its own server. Every call must succeed, and no
 * process warning (e.g. too many abort listeners) may appear.
 */
import { openSection, rawClient } from './contenders.js';
import { isQuick } from './interleave.js';
import { loadLibrary } from './library.js';
import { ECHO_ARGS, ECHO_TEXT } from './servers.js';
import { alternate, type Contender, cpuRatio, median, type ResultRow, round } from './stats.js';

const CALLS = 1_000;
const ROUNDS = isQuick() ? 2 : 7;

const RAW = 'raw SDK, Promise.all of 1,000 callTool';
const BRIDGED = 'invokeTool, Promise.all of 1,000';

/** Runs comparison 5. */
export async function concurrency(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const { invokeTool } = lib;
  // Warnings are emitted on a later tick; each is put down to the batch running then.
  let running = RAW;
  const warnings: Record<string, string[]> = { [RAW]: [], [BRIDGED]: [] };
  const onWarning = (warning: Error): void => {
    warnings[running]!.push(`${warning.name}: ${warning.message}`);
  };
  process.on('warning', onWarning);
  const raw = await rawClient('stdio');
  const { section, echo, session } = await openSection(lib, 'stdio');
  const errors = { [RAW]: 0, [BRIDGED]: 0 };
  const firstError: Record<string, string> = {};
  const note = (who: typeof RAW | typeof BRIDGED, message: string): void => {
    errors[who] += 1;
    firstError[who] ??= message;
  };
  const contenders: Contender[] = [
    {
      name: RAW,
      prepare: () => {
        running = RAW;
      },
      run: async () => {
        const params = { name: 'echo', arguments: ECHO_ARGS };
        const settled = await Promise.allSettled(
          Array.from({ length: CALLS }, () => raw.callTool(params)),
        );
        for (const outcome of settled) {
          if (outcome.status === 'rejected') note(RAW, String(outcome.reason));
        }
      },
    },
    {
      name: BRIDGED,
      prepare: () => {
        running = BRIDGED;
      },
      run: async () => {
        const results = await Promise.all(
          Array.from({ length: CALLS }, () => invokeTool(echo, ECHO_ARGS, { session })),
        );
        for (const result of results) {
          if (!result.success || result.message !== ECHO_TEXT) note(BRIDGED, result.message);
        }
      },
    },
  ];
  try {
    const times = await alternate(contenders, { rounds: ROUNDS, block: 1, warmup: 1 });
    const base = times.get(RAW)!;
    return [...times].map(([contender, values]): ResultRow => {
      const ms = median(values);
      const count = errors[contender as typeof RAW];
      const warned = warnings[contender] ?? [];
      const kinds = [...new Set(warned.map((w) => w.replace(/\s*\(node:\d+\)/, '')))];
      const row: ResultRow = {
        comparison: '1,000 concurrent calls, one stdio connection',
        contender,
        value: round(CALLS / (ms / 1_000), 0),
        unit: 'calls/s',
        note:
          `${round(ms, 1)} ms a batch; errors: ${count}${count > 0 ? ` (${firstError[contender]})` : ''}; ` +
          `process warnings: ${warned.length}${kinds.length > 0 ? ` (${kinds.join(' / ')})` : ''}`,
      };
      if (contender === RAW) return row;
      // A warning the raw client also causes is the SDK's, not the library's.
      const ownWarnings = kinds.filter(
        (kind) => !(warnings[RAW] ?? []).some((w) => w.startsWith(kind.slice(0, 60))),
      );
      // Throughput: the ratio is of times, so above 1 means slower than raw.
      const r = values.map((v, i) => v / base[i]!);
      return {
        ...row,
        ratio: round(median(r), 3),
        baseline: RAW,
        ratioRange: [round(Math.min(...r), 3), round(Math.max(...r), 3)],
        cpuRatio: round(cpuRatio(times, contender, RAW), 3),
        goal: '0 errors, no warning of its own',
        met: count === 0 && ownWarnings.length === 0,
      };
    });
  } finally {
    process.off('warning', onWarning);
    await Promise.all([raw.close(), section.disconnect()]);
  }
}
