import { randomUUID } from 'node:crypto';
import net from 'node:net';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DataSensitivity } from '../../../src/core/sensitivity.js';
import { SensitivityEscalated, ToolInvoked } from '../../../src/runtime/events.js';
import { Session } from '../../../src/runtime/session.js';
import { SessionStoreError } from '../../../src/runtime/store/errors.js';
import type { RemoteSessionEvent } from '../../../src/runtime/store/event-serialization.js';
import { RedisSessionStore } from '../../../src/runtime/store/redis-session-store.js';
import {
  EMPTY_PRIVATE_DATA,
  mergePrivateDataStates,
  privateDataState,
} from '../../../src/runtime/store/session-store.js';
import { invokeTool } from '../../../src/tools/invoke-tool.js';
import { Tool } from '../../../src/tools/tool.js';
import { ToolResult } from '../../../src/tools/tool-result.js';
import { traceEventMask } from '../../../src/trace/trace-event-mask.js';
import { startRedis, type TestRedis } from '../../fixtures/sessions/redis.js';
import { childPids, expectNoNewChildren, waitFor } from '../../support/processes.js';

const LEVELS: readonly DataSensitivity[] = ['public', 'internal', 'confidential', 'secret'];

let redis: TestRedis;
let admin: Redis;
let before: number[];

beforeAll(async () => {
  before = childPids();
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.dispose();
  expect(await expectNoNewChildren(before)).toEqual([]);
});

function newStore(
  options: { eventStreamMaxLength?: number; keyPrefix?: string } = {},
): RedisSessionStore {
  return new RedisSessionStore({
    url: redis.url,
    keyPrefix: options.keyPrefix ?? `t-${randomUUID()}`,
    ...(options.eventStreamMaxLength === undefined
      ? {}
      : { eventStreamMaxLength: options.eventStreamMaxLength }),
  });
}

function state(sensitivity: DataSensitivity, datasets: Record<string, DataSensitivity> = {}) {
  return privateDataState(sensitivity, datasets);
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Connections open on the server under `name` (ioredis `connectionName`, inherited by duplicates). */
async function clientCount(name: string): Promise<number> {
  const list = String(await admin.call('CLIENT', 'LIST'));
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
}

function namedStore(name: string): RedisSessionStore {
  return new RedisSessionStore({
    url: redis.url,
    keyPrefix: `t-${randomUUID()}`,
    redisOptions: { connectionName: name },
  });
}

async function commandCalls(): Promise<Map<string, number>> {
  const info = await admin.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    calls.set(match[1]!, Number(match[2]));
  }
  return calls;
}

describe('RedisSessionStore', () => {
  it('stores the private-data state as a maximum, with a version that counts rises', async () => {
    await using store = newStore();
    expect(await store.load('conv')).toBeUndefined();
    expect(await store.version('conv')).toBe(0);
    const first = await store.mergePrivateData(
      'conv',
      state('secret', { hr: 'secret', wiki: 'internal' }),
    );
    // A first version starts at the clock, so it never repeats one seen before a data loss.
    expect(first.version).toBeGreaterThan((Date.now() - 60_000) * 1000);
    expect(
      await store.mergePrivateData('conv', state('public', { hr: 'public', wiki: 'public' })),
    ).toEqual(first);
    const wider = await store.mergePrivateData(
      'conv',
      state('internal', { wiki: 'confidential', crm: 'internal' }),
    );
    expect(wider.version).toBeGreaterThan(first.version);
    expect(wider).toEqual({
      version: wider.version,
      privateData: {
        hasPrivateData: true,
        sensitivity: 'secret',
        datasets: { hr: 'secret', wiki: 'confidential', crm: 'internal' },
      },
    });
    await store.saveSlices('conv', { notes: ['a', { b: 1 }] });
    await store.saveSlices('conv', { other: null });
    expect(await store.version('conv')).toBe(wider.version);
    expect(await store.load('conv')).toEqual({
      sessionId: 'conv',
      ...wider,
      slices: { notes: ['a', { b: 1 }], other: null },
    });
    expect(await store.readPrivateData('conv')).toEqual(wider);
    await store.delete('conv');
    expect(await store.load('conv')).toBeUndefined();
  });

  it('never repeats a version after the data is lost, so a worker that saw it cannot skip a read', async () => {
    await using store = newStore();
    const before = await store.mergePrivateData('conv', state('internal'));
    await store.delete('conv'); // as a flush or a lost key would
    const after = await store.mergePrivateData('conv', state('secret'));
    expect(after.version).not.toBe(before.version);
    expect(after.version).toBeGreaterThan(before.version);
  });

  it('never repeats a version after an older copy is restored, so a worker that saw the later one reads', async () => {
    // A Redis restarted from a snapshot older than its last writes, as DUMP and RESTORE put it back.
    const keyPrefix = `t-${randomUUID()}`;
    await using store = newStore({ keyPrefix });
    const keys = ['private', 'version'].map((name) => `${keyPrefix}:{conv}:${name}`);
    await store.mergePrivateData('conv', state('internal'));
    const snapshot = await Promise.all(keys.map((key) => admin.dumpBuffer(key)));
    const seen = await store.mergePrivateData('conv', state('confidential'));
    // Another worker, at the later version and its state.
    await using otherStore = newStore({ keyPrefix });
    const other = await Session.open({ sessionId: 'conv', store: otherStore });
    expect(other.privateData.sensitivity).toBe('confidential');
    await Promise.all(keys.map((key, i) => admin.restore(key, 0, snapshot[i]!, 'REPLACE')));
    const raised = await store.mergePrivateData('conv', state('secret'));
    expect(raised.version).not.toBe(seen.version);
    expect(raised.version).toBeGreaterThan(seen.version);
    await other.syncFromStore();
    expect(other.privateData.sensitivity).toBe('secret');
  });

  it('fails closed on every read when the private-data state is gone while its version is kept', async () => {
    // An eviction (an allkeys-* maxmemory policy) or a DEL of one key: the level is unknown.
    const keyPrefix = `t-${randomUUID()}`;
    await using store = newStore({ keyPrefix });
    await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    await store.saveSlices('conv', { notes: ['held'] });
    await admin.del(`${keyPrefix}:{conv}:private`);
    await using fresh = newStore({ keyPrefix });
    for (const read of [
      () => fresh.load('conv'),
      () => fresh.readPrivateData('conv'),
      () => fresh.version('conv'),
      () => fresh.mergePrivateData('conv', state('public')),
      () => Session.open({ sessionId: 'conv', store: fresh }),
    ]) {
      const error = await errorOf(read());
      expect(error).toBeInstanceOf(SessionStoreError);
      expect(String((error as Error).message)).toMatch(/"conv".*gone from Redis.*level is unknown/);
    }
    // A merge that raises something writes the state anew.
    const rewritten = await fresh.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    expect(rewritten.privateData.sensitivity).toBe('secret');
    expect((await fresh.load('conv'))?.privateData.sensitivity).toBe('secret');
  });

  it('answers version() with a single script call', async () => {
    await using store = newStore();
    const { version } = await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    await admin.config('RESETSTAT');
    expect(await store.version('conv')).toBe(version);
    const calls = await commandCalls();
    calls.delete('config|resetstat');
    calls.delete('info');
    // One round trip; Redis counts the script's own reads too.
    expect([...calls].sort()).toEqual([
      ['evalsha', 1],
      ['exists', 1],
      ['get', 1],
    ]);
  });

  it('keeps sessions whose ids differ only by separators apart', async () => {
    await using store = newStore();
    await store.mergePrivateData('a:b', state('secret', { hr: 'secret' }));
    expect(await store.load('a%3Ab')).toBeUndefined();
    expect(await store.load('a:b}{')).toBeUndefined();
    expect((await store.load('a:b'))?.privateData.sensitivity).toBe('secret');
  });

  it('never overwrites a damaged stored level downwards, and reports it', async () => {
    const keyPrefix = `t-${randomUUID()}`;
    await using store = newStore({ keyPrefix });
    await admin.hset(`${keyPrefix}:{conv}:private`, 'level', 'bogus');
    const error = await errorOf(
      store.mergePrivateData('conv', state('internal', { wiki: 'internal' })),
    );
    expect((error as SessionStoreError).code).toBe('store-corrupt');
    expect(await admin.hget(`${keyPrefix}:{conv}:private`, 'level')).toBe('bogus');
  });

  it('refuses a stored version that is not a count, naming it, on every read', async () => {
    const keyPrefix = `t-${randomUUID()}`;
    await using store = newStore({ keyPrefix });
    await store.mergePrivateData('conv', state('secret', { hr: 'secret' }));
    await admin.set(`${keyPrefix}:{conv}:version`, 'abc');
    for (const read of [
      () => store.load('conv'),
      () => store.readPrivateData('conv'),
      () => store.version('conv'),
      () => store.mergePrivateData('conv', state('secret', { hr: 'secret' })),
    ]) {
      const error = await errorOf(read());
      expect(error).toMatchObject({
        code: 'store-corrupt',
        message: 'stored version abc is not a count',
      });
    }
  });

  it('never loses an escalation when ten clients merge at once', async () => {
    const clients = Array.from({ length: 10 }, () => newStore({ keyPrefix: 'shared-prop' }));
    try {
      const escalation = fc.tuple(
        fc.integer({ min: 0, max: 9 }),
        fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
        fc.constantFrom(...LEVELS),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(escalation, { minLength: 1, maxLength: 40 }), async (steps) => {
          const id = randomUUID();
          await Promise.all(
            steps.map(([client, name, level]) =>
              clients[client]!.mergePrivateData(id, state('public', { [name]: level })),
            ),
          );
          const expected = steps.reduce(
            (acc, [, name, level]) =>
              mergePrivateDataStates(acc, state('public', { [name]: level })),
            EMPTY_PRIVATE_DATA,
          );
          expect((await clients[0]!.readPrivateData(id)).privateData).toEqual(expected);
        }),
        { numRuns: 40 },
      );
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('fails an operation as store-unavailable when nothing listens', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await using store = new RedisSessionStore({ url: `redis://127.0.0.1:${port}` });
    const error = await errorOf(store.mergePrivateData('conv', state('secret')));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect((error as SessionStoreError).code).toBe('store-unavailable');
  });

  it('fails an operation as store-unavailable when the server never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      await using store = new RedisSessionStore({
        url: `redis://127.0.0.1:${port}`,
        commandTimeoutMs: 200,
      });
      const error = await errorOf(store.version('conv'));
      expect((error as SessionStoreError).code).toBe('store-unavailable');
      expect((error as Error).message).toMatch(/did not answer within 200 ms/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('RedisSessionStore event stream', () => {
  it('mirrors a session’s events to another subscriber, in order, with class name and fields', async () => {
    await using publisher = newStore({ keyPrefix: 'events' });
    await using follower = newStore({ keyPrefix: 'events' });
    const id = randomUUID();
    const seen: RemoteSessionEvent[] = [];
    const unsubscribe = await follower.subscribeRemote(id, (event) => {
      seen.push(event);
      if (seen.length === 1) throw new Error('a failing handler does not end the subscription');
    });
    const session = await Session.open({ sessionId: id, store: publisher, mirrorEvents: true });
    session.privateData.add('crm', 'confidential');
    session.privateData.add('hr', 'secret');
    session.dispatch(
      new ToolInvoked({
        toolName: 'files_read',
        params: { path: '/a' },
        result: { message: 'ok', value: { size: 1 }, success: true },
        source: 'mcp',
        mcpServer: 'files',
        originalName: 'read',
        callId: 'c1',
        sessionId: id,
        createdAt: new Date('2026-01-02T03:04:05.000Z'),
        durationMs: 5,
      }),
    );
    // Another session on the same bus is not mirrored into this one's stream.
    session.bus.dispatch(
      new SensitivityEscalated({
        sessionId: 'someone-else',
        previous: 'public',
        sensitivity: 'secret',
        dataset: 'x',
        createdAt: new Date(),
      }),
    );
    await waitFor(() => seen.length >= 3, { timeoutMs: 5_000, description: 'three remote events' });
    await unsubscribe();
    expect(seen.map((event) => event.type)).toEqual([
      'SensitivityEscalated',
      'SensitivityEscalated',
      'ToolInvoked',
    ]);
    expect(seen[1]?.fields).toMatchObject({
      previous: 'confidential',
      sensitivity: 'secret',
      dataset: 'hr',
    });
    // Without a mask: who, when and the outcome; no arguments, no result.
    expect(seen[2]?.fields).toEqual({
      toolName: 'files_read',
      result: { success: true },
      source: 'mcp',
      mcpServer: 'files',
      originalName: 'read',
      callId: 'c1',
      sessionId: id,
      createdAt: '2026-01-02T03:04:05.000Z',
      durationMs: 5,
      withheld: 'no-mask',
    });
    expect(seen.every((event) => event.sessionId === id)).toBe(true);
  });

  it('mirrors secrets masked and private results withheld, as a trace file records them', async () => {
    await using publisher = newStore({ keyPrefix: 'masked' });
    const servers = [
      {
        name: 'vault',
        transport: { type: 'stdio' as const, command: 'vault-mcp' },
        env: { VAULT_TOKEN: 'env-token-5a7c1e', ACCOUNT: '987654321' },
      },
    ];
    const login = Tool.create({
      name: 'login',
      description: 'Logs in.',
      params: z.object({ user: z.string(), apiKey: z.string(), password: z.string() }),
      handler: ({ user }) =>
        ToolResult.ok({ record: `SSN 123-45-6789 of ${user}`, account: 987654321 }),
    });
    const args = { user: 'ann', apiKey: 'sk-live-SECRET123', password: 'hunter2-pw' };
    for (const [name, mirrorEvents] of [
      ['default', true],
      ['trace mask', { mask: traceEventMask({ servers }) }],
    ] as const) {
      const id = randomUUID();
      const session = await Session.open({ sessionId: id, store: publisher, mirrorEvents });
      await invokeTool(login, { ...args, user: 'env-token-5a7c1e' }, { session });
      session.privateData.add('patients', 'secret');
      await session.flush();
      await invokeTool(login, args, { session });
      const key = `${publisher.keyPrefix}:{${id}}:events`;
      let entries: [string, string[]][] = [];
      await waitFor(
        async () => {
          entries = await admin.xrange(key, '-', '+');
          return entries.length >= 3;
        },
        { timeoutMs: 5_000, description: `three mirrored events (${name})` },
      );
      const stream = JSON.stringify(entries);
      for (const secret of ['sk-live-SECRET123', 'hunter2-pw', '987654321']) {
        expect(stream, `${name}: ${secret}`).not.toContain(secret);
      }
      if (name === 'default') {
        expect(stream).not.toContain('SSN 123-45-6789');
      } else {
        expect(stream).not.toContain('env-token-5a7c1e');
        const calls = entries
          .filter(([, fields]) => fields[1] === 'ToolInvoked')
          .map(([, fields]) => JSON.parse(fields[3]!) as Record<string, unknown>);
        // Before the escalation the result stays, masked; after it, it is withheld.
        expect(calls[0]?.['params']).toEqual({ user: '***', apiKey: '***', password: '***' });
        expect(calls[0]?.['result']).toMatchObject({
          success: true,
          value: { record: 'SSN 123-45-6789 of ***', account: '***' },
        });
        expect(calls[1]?.['params']).toEqual({ user: 'ann', apiKey: '***', password: '***' });
        expect(calls[1]?.['result']).toEqual({ success: true, withheld: 'private-data' });
      }
    }
  });

  it('stops the read loop and closes its connection on unsubscribe', async () => {
    await using store = namedStore('unsubscribe-test');
    const seen: RemoteSessionEvent[] = [];
    const unsubscribe = await store.subscribeRemote('conv', (event) => seen.push(event));
    await waitFor(async () => (await clientCount('unsubscribe-test')) === 2, {
      timeoutMs: 5_000,
      description: 'the subscription connection',
    });
    await unsubscribe();
    await unsubscribe();
    await waitFor(async () => (await clientCount('unsubscribe-test')) === 1, {
      timeoutMs: 5_000,
      description: 'the subscription connection to close',
    });
    await store.appendEvent('conv', { type: 'Late', data: '{}' });
    expect(seen).toEqual([]);
  });

  it('replays from the start when asked, and keeps the stream bounded', async () => {
    await using store = newStore({ eventStreamMaxLength: 10 });
    for (let i = 0; i < 300; i += 1) {
      await store.appendEvent('conv', { type: 'Tick', data: JSON.stringify({ i }) });
    }
    const length = await admin.xlen(`${store.keyPrefix}:{conv}:events`);
    // MAXLEN ~ trims whole stream nodes (100 entries each by default).
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThanOrEqual(110);
    const seen: RemoteSessionEvent[] = [];
    const unsubscribe = await store.subscribeRemote('conv', (event) => seen.push(event), {
      from: 'start',
    });
    await waitFor(() => seen.length === length, { timeoutMs: 5_000, description: 'the replay' });
    await unsubscribe();
    expect(seen.at(-1)?.fields).toEqual({ i: 299 });
  });

  it('ends subscriptions and closes its connections when the store closes', async () => {
    const store = namedStore('close-test');
    const controller = new AbortController();
    await store.subscribeRemote('conv', () => undefined, { signal: controller.signal });
    await store.subscribeRemote('conv', () => undefined);
    await waitFor(async () => (await clientCount('close-test')) === 3, {
      timeoutMs: 5_000,
      description: 'the store connection and two subscription connections',
    });
    await store.close();
    await waitFor(async () => (await clientCount('close-test')) === 0, {
      timeoutMs: 5_000,
      description: 'every connection of the store to close',
    });
    await store.close();
    controller.abort();
    const error = await errorOf(store.subscribeRemote('conv', () => undefined));
    expect((error as SessionStoreError).code).toBe('store-closed');
  });
});

describe('RedisSessionStore and text that is not well-formed Unicode', () => {
  it('refuses a session id with a lone surrogate before it reaches Redis', async () => {
    await using store = newStore();
    await expect(Session.open({ sessionId: 'tenant-a\uD800', store })).rejects.toThrow(
      /session id "tenant-a\\ud800" holds a lone surrogate/,
    );
  });

  it('stores a dataset name with a lone surrogate as it reads back, so a flush ends', async () => {
    await using store = newStore();
    const session = await Session.open({ sessionId: `s-${randomUUID()}`, store });
    session.privateData.add('ds\uD800', 'secret');
    await session.flush();
    expect(session.hasPendingPrivateData).toBe(false);
    expect([...session.privateData.datasets]).toEqual([['ds\uFFFD', 'secret']]);
    const resumed = await Session.open({ sessionId: session.sessionId, store });
    expect(resumed.privateData.sensitivity).toBe('secret');
  });
});
