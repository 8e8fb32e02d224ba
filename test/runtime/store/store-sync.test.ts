/**
 * What a bridged call on a session with a store costs, and what it must
 * still see: a quiet Redis session makes no store command per call, and the
 * first call after another worker (a separate process) escalated refuses a
 * network tool — also when the change channel was lost, Redis restarted, or
 * the channel went silent without closing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpIntegrationSection } from '../../../src/mcp/section.js';
import { Session } from '../../../src/runtime/session.js';
import { FileSessionStore } from '../../../src/runtime/store/file-session-store.js';
import { RedisSessionStore } from '../../../src/runtime/store/redis-session-store.js';
import type { SessionStore } from '../../../src/runtime/store/session-store.js';
import { invokeTool } from '../../../src/tools/invoke-tool.js';
import type { Tool } from '../../../src/tools/tool.js';
import { startRedis, type TestRedis } from '../../fixtures/sessions/redis.js';
import { runWorker } from '../../fixtures/sessions/run-worker.js';
import type { StoreSpec } from '../../fixtures/sessions/stores.js';
import { childPids, expectNoNewChildren, waitFor } from '../../support/processes.js';
import { startFreezableProxy, type FreezableProxy } from './freezable-proxy.js';

let redis: TestRedis;
let admin: Redis;
let directory: string;
let before: number[];

beforeAll(async () => {
  before = childPids();
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-store-sync-'));
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  admin.on('error', () => undefined);
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.dispose();
  await rm(directory, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

/** Calls of each Redis command since the server started or was reset. */
async function commandCalls(): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  const info = await admin.info('commandstats');
  for (const match of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    calls.set(match[1]!, Number(match[2]));
  }
  return calls;
}

/** The commands sent while `work` ran, without the heartbeats and this test's own. */
async function commandsDuring(work: () => Promise<void>): Promise<[string, number][]> {
  await admin.config('RESETSTAT');
  await work();
  const calls = await commandCalls();
  for (const own of ['config|resetstat', 'info', 'ping']) calls.delete(own);
  return [...calls];
}

/** A section of `session` whose `fetch` tool can reach the network (no openWorldHint). */
async function networkTool(session: Session): Promise<{ tool: Tool; close(): Promise<void> }> {
  const server = new McpServer({ name: 'web', version: '1.0.0' });
  server.registerTool('fetch', { inputSchema: { url: z.string() } }, ({ url }) => ({
    content: [{ type: 'text', text: `fetched ${url}` }],
  }));
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'web', transport: { type: 'in-memory', server } }],
  });
  await section.connect();
  const tool = section.tools().find((candidate) => candidate.name === 'web_fetch');
  if (tool === undefined) throw new Error('web_fetch is not bridged');
  return { tool, close: () => section.disconnect() };
}

const ARGS = { url: 'https://example.com' };

/** Escalates `sessionId` to secret from a separate worker process, and waits for it to exit. */
async function escalateElsewhere(store: StoreSpec, sessionId: string): Promise<void> {
  expect(
    await runWorker('escalate', { store, sessionId, datasets: [['payroll', 'secret']] }),
  ).toEqual({ sensitivity: 'secret' });
}

/** Syncs until a sync sends no command: the change channel is live and vouches for the version. */
async function untilQuiet(session: Session): Promise<void> {
  await waitFor(async () => (await commandsDuring(() => session.syncFromStore())).length === 0, {
    timeoutMs: 10_000,
    description: 'a sync that sends no command',
  });
}

interface Worker {
  readonly session: Session;
  readonly spec: StoreSpec;
  readonly tool: Tool;
  close(): Promise<void>;
}

async function openWorker(spec: StoreSpec, store: SessionStore): Promise<Worker> {
  const session = await Session.open({ sessionId: `conv-${randomUUID()}`, store });
  const { tool, close } = await networkTool(session);
  return {
    session,
    spec,
    tool,
    async close() {
      await close();
      await store.close();
    },
  };
}

function redisWorker(options: { url?: string; changeHeartbeatMs?: number } = {}): Promise<Worker> {
  const keyPrefix = `sync-${randomUUID()}`;
  const spec: StoreSpec = { kind: 'redis', url: redis.url, keyPrefix };
  const store = new RedisSessionStore({
    url: options.url ?? redis.url,
    keyPrefix,
    ...(options.changeHeartbeatMs === undefined
      ? {}
      : { changeHeartbeatMs: options.changeHeartbeatMs }),
  });
  return openWorker(spec, store);
}

async function expectRefusedAfterEscalation(worker: Worker): Promise<void> {
  await escalateElsewhere(worker.spec, worker.session.sessionId);
  const refused = await invokeTool(worker.tool, ARGS, { session: worker.session });
  expect(refused.success).toBe(false);
  expect(refused.message).toMatch(/is blocked: the session holds private data/);
  expect(worker.session.privateData.sensitivity).toBe('secret');
}

describe('a bridged call on a Redis session', () => {
  it('sends no store command while nothing changed, and refuses the first call after another process escalated', async () => {
    const worker = await redisWorker();
    try {
      expect((await invokeTool(worker.tool, ARGS, { session: worker.session })).success).toBe(true);
      await untilQuiet(worker.session);
      const quiet = await commandsDuring(async () => {
        for (let i = 0; i < 20; i += 1) {
          const result = await invokeTool(worker.tool, ARGS, { session: worker.session });
          expect(result.success).toBe(true);
        }
      });
      expect(quiet).toEqual([]);
      await expectRefusedAfterEscalation(worker);
    } finally {
      await worker.close();
    }
  });

  it('refuses the very next call after another store client of this process escalated', async () => {
    const worker = await redisWorker();
    const spec = worker.spec as Extract<StoreSpec, { kind: 'redis' }>;
    const other = new RedisSessionStore({ url: spec.url, keyPrefix: spec.keyPrefix });
    try {
      await untilQuiet(worker.session);
      const elsewhere = await Session.open({ sessionId: worker.session.sessionId, store: other });
      elsewhere.privateData.add('payroll', 'secret');
      await elsewhere.flush();
      // No pause: the escalation is visible the moment flush() resolved.
      const refused = await invokeTool(worker.tool, ARGS, { session: worker.session });
      expect(refused.success).toBe(false);
      expect(worker.session.privateData.sensitivity).toBe('secret');
    } finally {
      await worker.close();
      await other.close();
    }
  });

  it('reads the version on every call while the change channel is down, and sees the escalation', async () => {
    const worker = await redisWorker();
    try {
      await untilQuiet(worker.session);
      await admin.client('KILL', 'TYPE', 'pubsub');
      // Until a new subscriber is confirmed, each call asks Redis.
      const fallback = await commandsDuring(async () => {
        await invokeTool(worker.tool, ARGS, { session: worker.session });
      });
      expect(fallback.map(([name]) => name)).toContain('get');
      await expectRefusedAfterEscalation(worker);
    } finally {
      await worker.close();
    }
  });

  it('sees an escalation stored after Redis restarted empty', async () => {
    const worker = await redisWorker();
    try {
      await untilQuiet(worker.session);
      await redis.stop();
      await redis.start();
      await expectRefusedAfterEscalation(worker);
    } finally {
      await worker.close();
    }
  });

  it('stops trusting a change channel that went silent without closing', async () => {
    const proxy: FreezableProxy = await startFreezableProxy(redis.port);
    const worker = await redisWorker({ url: proxy.url, changeHeartbeatMs: 100 });
    try {
      await untilQuiet(worker.session);
      // The subscriber's connection stays open but delivers nothing: messages and PONGs are held.
      proxy.freezeSubscribers();
      await escalateElsewhere(worker.spec, worker.session.sessionId);
      // Two heartbeats without a PONG end the trust; a timer only ever fires late, so after
      // this wait the very next call must read the version and refuse.
      await new Promise((resolve) => setTimeout(resolve, 3 * 100 + 50));
      const result = await invokeTool(worker.tool, ARGS, { session: worker.session });
      expect(result.success).toBe(false);
      expect(worker.session.privateData.sensitivity).toBe('secret');
    } finally {
      await worker.close();
      await proxy.close();
    }
  });
});

describe('a bridged call on a file-store session', () => {
  it.runIf(process.platform === 'linux')(
    'holds the session file it checks open until the store closes',
    async () => {
      const store = new FileSessionStore({ directory });
      const sessionId = `conv-${randomUUID()}`;
      const file = store.pathOf(sessionId);
      const handlesOf = async (): Promise<number> => {
        const targets = await Promise.all(
          (await readdir('/proc/self/fd')).map((fd) =>
            readlink(`/proc/self/fd/${fd}`).catch(() => ''),
          ),
        );
        return targets.filter((target) => target === file).length;
      };
      const session = await Session.open({ sessionId, store });
      session.privateData.add('wiki', 'internal');
      await session.flush();
      await session.syncFromStore();
      await session.syncFromStore();
      expect(await handlesOf()).toBe(1);
      await store.close();
      expect(await handlesOf()).toBe(0);
    },
  );

  it('refuses the first call after another process escalated', async () => {
    const spec: StoreSpec = { kind: 'file', directory };
    const worker = await openWorker(spec, new FileSessionStore({ directory }));
    try {
      for (let i = 0; i < 3; i += 1) {
        expect((await invokeTool(worker.tool, ARGS, { session: worker.session })).success).toBe(
          true,
        );
      }
      await expectRefusedAfterEscalation(worker);
      // And once more, now that the new file is the one held open.
      expect((await invokeTool(worker.tool, ARGS, { session: worker.session })).success).toBe(
        false,
      );
    } finally {
      await worker.close();
    }
  });
});
