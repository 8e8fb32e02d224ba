/**
 * Workers sharing one session: 4 worker processes (`worker.ts`), one session
 * id on one store (Redis on 127.0.0.1, started and stopped here; then the
 * file store in a temporary directory), each alternating `echo` and the
 * open-world `fetch_url`. In the middle worker 1 escalates to
 * `confidential`, later worker 2 to `secret`, both through an MCP call whose
 * result carries the private-data marker. Shows the cost per call, and
 * counts violations: a `fetch_url` call that started after the first
 * escalation was stored (the escalating call had returned) and was not
 * refused. Start times come from the monotonic clock, shared by the
 * processes of one host.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../test/fixtures/sessions/redis.js';
import { isQuick } from './interleave.js';
import { type ResultRow, round, trimmedMean } from './stats.js';
import type { CallRecord, WorkerReport, WorkerTask } from './worker.js';

const WORKERS = 4;
const WORKER_SCRIPT = fileURLToPath(new URL('./worker.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;

/** Starts the workers, lets them go together, and collects their reports. */
async function runWorkers(tasks: readonly WorkerTask[]): Promise<WorkerReport[]> {
  const children = tasks.map(() =>
    fork(WORKER_SCRIPT, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  const exited = children.map(
    (child) => new Promise<void>((resolve) => child.once('exit', () => resolve())),
  );
  try {
    const message = (child: (typeof children)[number]): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('a worker did not answer in time')),
          START_TIMEOUT_MS,
        );
        child.once('message', (value) => {
          clearTimeout(timer);
          resolve(value);
        });
        child.once('exit', (code) =>
          reject(new Error(`a worker exited with code ${String(code)}`)),
        );
      });
    const ready = children.map(message);
    children.forEach((child, i) => child.send(tasks[i]!));
    await Promise.all(ready);
    const reports = children.map(message) as Promise<WorkerReport>[];
    for (const child of children) child.send('go');
    return await Promise.all(reports);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(exited);
  }
}

/** The rows of one store's run. */
function judge(kind: string, reports: readonly WorkerReport[]): ResultRow[] {
  const all: CallRecord[] = reports.flatMap((r) => r.records);
  const escalations = all.filter((r) => r.tool === 'load_dataset');
  if (escalations.some((r) => !r.success)) throw new Error('an escalating call failed');
  const storedAt = Math.min(...escalations.map((r) => r.endUs));
  const fetchesAfter = all.filter((r) => r.tool === 'fetch_url' && r.startUs > storedAt);
  const violations = fetchesAfter.filter((r) => r.success).length;
  const firstEscalationStart = Math.min(...escalations.map((r) => r.startUs));
  const early = all.filter(
    (r) => r.tool === 'fetch_url' && r.endUs < firstEscalationStart && !r.success,
  ).length;
  const echoes = all.filter((r) => r.tool === 'echo');
  const us = (records: readonly CallRecord[]): number =>
    round(trimmedMean(records.map((r) => r.endUs - r.startUs)), 1);
  const before = echoes.filter((r) => r.endUs < firstEscalationStart);
  const after = echoes.filter((r) => r.startUs > storedAt);
  const comparison = `${WORKERS} worker processes, one session, ${kind}`;
  const levels = [...new Set(reports.map((r) => r.finalSensitivity))].join(', ');
  return [
    {
      comparison,
      contender: 'invokeTool (dist) echo, per call',
      value: us(echoes),
      unit: 'µs/call',
      statistic: `10%-trimmed mean of ${echoes.length} echo calls over ${WORKERS} processes on 2 shared cores`,
      note: `before the first escalation ${us(before)} µs, after it ${us(after)} µs; the workers end at ${levels} (one that finished before the later escalation ends lower)`,
    },
    {
      comparison,
      contender: 'fetch_url allowed after another worker escalated',
      value: violations,
      unit: 'violations',
      statistic: `${fetchesAfter.length} fetch_url calls started after the first escalation was stored`,
      goal: '0',
      met: violations === 0,
      note: `${early} fetch_url call(s) refused before any escalation began`,
    },
  ];
}

function tasks(store: WorkerTask['store'], calls: number): WorkerTask[] {
  const sessionId = `bench-shared-${randomUUID()}`;
  return Array.from({ length: WORKERS }, (_, index): WorkerTask => {
    const escalateAt =
      index === 1
        ? { call: Math.floor(calls / 3), level: 'confidential' as const }
        : index === 2
          ? { call: Math.floor((2 * calls) / 3), level: 'secret' as const }
          : undefined;
    return { index, store, sessionId, calls, ...(escalateAt === undefined ? {} : { escalateAt }) };
  });
}

/** Runs the multi-process row on Redis, then on the file store. */
export async function workers(): Promise<ResultRow[]> {
  const calls = isQuick() ? 200 : 1_500;
  const rows: ResultRow[] = [];
  const redis = await startRedis();
  try {
    rows.push(
      ...judge(
        'RedisSessionStore',
        await runWorkers(tasks({ kind: 'redis', url: redis.url }, calls)),
      ),
    );
  } finally {
    await redis.dispose();
  }
  const directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-bench-workers-'));
  try {
    rows.push(
      ...judge('FileSessionStore', await runWorkers(tasks({ kind: 'file', directory }, calls))),
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
  return rows;
}
