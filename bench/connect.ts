/**
 * Comparison 6: connecting five stdio servers (server-everything ×5) with
 * one section, against the slowest of the same five connected one at a time
 * — and, as the floor this machine allows, five raw SDK clients connected
 * in parallel.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isQuick } from './interleave.js';
import { loadLibrary } from './library.js';
import { everythingStdio } from './servers.js';
import { collectGarbage, median, now, type ResultRow, round } from './stats.js';

const SERVERS = 5;
const ROUNDS = isQuick() ? 1 : 4;
const GOAL = 1.5;

const SLOWEST = 'slowest of 5 one-server sections, each alone';
const SUM = 'the 5 one-server sections, one after another';
const SECTION = 'one section, 5 servers (connect())';
const RAW_PARALLEL = 'raw SDK: 5 clients, connect + listTools in parallel';

function serverConfig(index: number): {
  name: string;
  transport: { type: 'stdio'; command: string; args: string[] };
} {
  const { command, args } = everythingStdio();
  return { name: `everything${index}`, transport: { type: 'stdio', command, args: [...args] } };
}

/** Times `connect()` of a section; always disconnects it. */
async function timeSection(servers: number[]): Promise<number> {
  const lib = await loadLibrary();
  const section = new lib.McpIntegrationSection({
    servers: servers.map(serverConfig),
    session: new lib.Session(),
  });
  try {
    const started = now();
    await section.connect();
    return now() - started;
  } finally {
    await section.disconnect();
  }
}

async function timeRawParallel(): Promise<number> {
  const clients = Array.from(
    { length: SERVERS },
    () => new Client({ name: 'bench', version: '1' }),
  );
  try {
    const started = now();
    await Promise.all(
      clients.map(async (client) => {
        const { command, args } = everythingStdio();
        await client.connect(
          new StdioClientTransport({ command, args: [...args], stderr: 'ignore' }),
        );
        await client.listTools();
      }),
    );
    return now() - started;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

/** Runs comparison 6. */
export async function connectFive(): Promise<ResultRow[]> {
  const indexes = Array.from({ length: SERVERS }, (_, i) => i + 1);
  await timeSection([1]); // warm the file cache and this process's modules
  const slowest: number[] = [];
  const sum: number[] = [];
  const five: number[] = [];
  const raw: number[] = [];
  const steps: (() => Promise<void>)[] = [
    async () => {
      const alone: number[] = [];
      for (const index of indexes) {
        collectGarbage();
        alone.push(await timeSection([index]));
      }
      slowest.push(Math.max(...alone));
      sum.push(alone.reduce((a, b) => a + b, 0));
    },
    async () => {
      collectGarbage();
      five.push(await timeSection(indexes));
    },
    async () => {
      collectGarbage();
      raw.push(await timeRawParallel());
    },
  ];
  for (let r = 0; r < ROUNDS; r += 1) {
    for (let k = 0; k < steps.length; k += 1) await steps[(r + k) % steps.length]!();
  }
  const row = (contender: string, values: number[], goal?: number): ResultRow => {
    const base: ResultRow = {
      comparison: 'connect 5 stdio servers',
      contender,
      value: round(median(values), 1),
      statistic: `median of ${values.length} rounds`,
      unit: 'ms',
    };
    if (values === slowest) return base;
    const r = values.map((v, i) => v / slowest[i]!);
    const ratio = median(r);
    return {
      ...base,
      ratio: round(ratio, 3),
      baseline: SLOWEST,
      ratioRange: [round(Math.min(...r), 3), round(Math.max(...r), 3)],
      ...(goal === undefined ? {} : { goal: `≤ ${goal.toFixed(2)}×`, met: ratio <= goal }),
    };
  };
  const sectionRow = row(SECTION, five, GOAL);
  const vsRaw = median(five.map((v, i) => v / raw[i]!));
  return [
    row(SLOWEST, slowest),
    { ...sectionRow, note: `${round(vsRaw, 3)}× the raw clients in parallel` },
    row(RAW_PARALLEL, raw),
    row(SUM, sum),
  ];
}
