/**
 * One worker of the multi-process row, run as
 * `node --import tsx bench/worker.ts` with an IPC channel by `workers.ts`.
 * It opens the shared session on the store it is told, connects a section to
 * an in-process server (`sessionServer()`: `echo`, the open-world
 * `fetch_url`, the escalating `load_dataset`), says `ready`, waits for `go`,
 * then alternates `echo` and `fetch_url`; at its `escalateAt` call it calls
 * `load_dataset` instead. It sends back, per call, when it started (the
 * monotonic clock, shared by every process of the host), how long it took
 * and whether it was refused.
 */
import { randomUUID } from 'node:crypto';
import type { SessionStore, Tool } from '../src/index.js';
import { loadLibrary, loadRedisEntry } from './library.js';
import { ECHO_ARGS, MARKER_KEY, sessionServer } from './servers.js';

/** What `workers.ts` tells a worker. */
export interface WorkerTask {
  readonly index: number;
  readonly store:
    | { readonly kind: 'redis'; readonly url: string }
    | { readonly kind: 'file'; readonly directory: string };
  readonly sessionId: string;
  readonly calls: number;
  /** The call at which this worker escalates, and to what. */
  readonly escalateAt?: { readonly call: number; readonly level: 'confidential' | 'secret' };
}

/** One call as the worker saw it. */
export interface CallRecord {
  readonly tool: 'echo' | 'fetch_url' | 'load_dataset';
  /** `process.hrtime.bigint()` at the start and the end, in µs. */
  readonly startUs: number;
  readonly endUs: number;
  readonly success: boolean;
  readonly message: string;
}

/** What a worker sends back when done. */
export interface WorkerReport {
  readonly index: number;
  readonly records: readonly CallRecord[];
  readonly finalSensitivity: string;
}

const nowUs = (): number => Number(process.hrtime.bigint() / 1_000n);

function send(message: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    process.send!(message, (error: Error | null) => (error ? reject(error) : resolve()));
  });
}

function nextMessage(): Promise<unknown> {
  return new Promise((resolve) => process.once('message', resolve));
}

async function openStore(task: WorkerTask): Promise<SessionStore> {
  if (task.store.kind === 'file') {
    const lib = await loadLibrary();
    return new lib.FileSessionStore({ directory: task.store.directory });
  }
  const { RedisSessionStore } = await loadRedisEntry();
  return new RedisSessionStore({ url: task.store.url, keyPrefix: 'bench-workers' });
}

async function main(): Promise<void> {
  const task = (await nextMessage()) as WorkerTask;
  const lib = await loadLibrary();
  if (lib.PRIVATE_DATA_META_KEY !== MARKER_KEY)
    throw new Error('the private-data marker key moved');
  const store = await openStore(task);
  const session = await lib.Session.open({ sessionId: task.sessionId, store });
  const section = new lib.McpIntegrationSection({
    servers: [{ name: 'shared', transport: { type: 'in-memory', server: sessionServer() } }],
    session,
  });
  try {
    await section.connect();
    const tool = (name: string) => {
      const found = section.tools().find((t) => t.name === `shared_${name}`);
      if (found === undefined) throw new Error(`shared_${name} is not bridged`);
      return found;
    };
    const echo = tool('echo');
    const fetchUrl = tool('fetch_url');
    const load = tool('load_dataset');
    await send({ ready: task.index });
    await nextMessage();
    const records: CallRecord[] = [];
    for (let i = 0; i < task.calls; i += 1) {
      const { escalateAt } = task;
      let call: [CallRecord['tool'], Tool, Record<string, unknown>];
      if (escalateAt?.call === i) {
        const dataset = `w${task.index}-${randomUUID()}`;
        call = ['load_dataset', load, { dataset, sensitivity: escalateAt.level }];
      } else if (i % 2 === 0) {
        call = ['echo', echo, { ...ECHO_ARGS }];
      } else {
        call = ['fetch_url', fetchUrl, { url: 'https://example.com/' }];
      }
      const [name, target, args] = call;
      const startUs = nowUs();
      const result = await lib.invokeTool(target, args, { session });
      records.push({
        tool: name,
        startUs,
        endUs: nowUs(),
        success: result.success,
        message: result.success ? '' : result.message,
      });
    }
    await send({
      index: task.index,
      records,
      finalSensitivity: session.privateData.sensitivity,
    } satisfies WorkerReport);
  } finally {
    await section.disconnect();
    await store.close();
  }
}

main().then(
  () => process.disconnect(),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
