/**
 * A bridged call on a session shared through a store, after an escalation:
 * `RedisSessionStore` (a redis-server this comparison starts on 127.0.0.1,
 * on a free port, and stops) and `FileSessionStore` (a temporary directory),
 * each against the same call on an escalated session without a store,
 * interleaved call by call. Beside them, in the same run, what one local
 * round trip costs: a Redis `PING`, a `stat` of the session file. Goals: a
 * store adds at most one such round trip, and none at all while no other
 * worker changed the session (counted as store operations per call).
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { SessionStore } from '../src/index.js';
import { startRedis } from '../test/fixtures/sessions/redis.js';
import { closeAll, openBridged, openRaw, type OpenCaller } from './contenders.js';
import { type Caller, interleave, perCallRows, plan } from './interleave.js';
import { type Library, loadLibrary, loadRedisEntry } from './library.js';
import { type CountedStore, countCalls } from './store-counter.js';
import { type ResultRow, round, trimmedMean } from './stats.js';

const RAW = 'raw SDK Client.callTool';
const NO_STORE = 'invokeTool (dist), escalated, no store';
const REDIS = 'invokeTool (dist), escalated, RedisSessionStore';
const FILE = 'invokeTool (dist), escalated, FileSessionStore';
const PING = 'Redis PING round trip';
const STAT = 'stat of the session file';

/** An escalated session on `store` (or none), with the bridged `echo` as a caller. */
async function escalated(lib: Library, name: string, store?: SessionStore): Promise<OpenCaller> {
  const sessionId = `bench-${randomUUID()}`;
  const session =
    store === undefined ? new lib.Session() : await lib.Session.open({ sessionId, store });
  session.privateData.add('hr', 'confidential');
  await session.flush();
  // A section on a session with a store meets its server's tools as listed
  // while private (an earlier life may have listed them otherwise): only the
  // config makes `echo` closed-world there. Every contender gets the same.
  return openBridged(lib, name, 'in-memory', { session, permissions: { echo: ['read'] } });
}

/** Runs the session-store comparison. */
export async function sessionStores(): Promise<ResultRow[]> {
  const lib = await loadLibrary();
  const { RedisSessionStore } = await loadRedisEntry();
  const redis = await startRedis();
  const directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-bench-sessions-'));
  const ping = new Redis(redis.url);
  const counted: Record<string, CountedStore<SessionStore>> = {
    [REDIS]: countCalls(new RedisSessionStore({ url: redis.url, keyPrefix: 'bench' })),
    [FILE]: countCalls(new lib.FileSessionStore({ directory })),
  };
  const open: OpenCaller[] = [];
  try {
    open.push(await openRaw(RAW, 'in-memory'));
    open.push(await escalated(lib, NO_STORE));
    open.push(await escalated(lib, REDIS, counted[REDIS]!.store));
    open.push(await escalated(lib, FILE, counted[FILE]!.store));
    // Any session file of the directory: they have the same size.
    const [sessionFile] = (await readdir(directory)).filter((f) => f.endsWith('.json'));
    if (sessionFile === undefined) throw new Error('the file store wrote no session file');
    const probes: Caller[] = [
      { name: PING, call: () => ping.ping() },
      { name: STAT, call: () => stat(path.join(directory, sessionFile)) },
    ];
    // Warm: the first calls read the version while the change channel subscribes.
    for (const caller of open) for (let i = 0; i < 50; i += 1) await caller.call();
    const p = plan(1 / 2);
    const before = new Map(Object.entries(counted).map(([name, c]) => [name, c.total()]));
    const versionsBefore = counted[FILE]!.counts.get('version') ?? 0;
    const commandsBefore = await redisCommands(ping);
    const times = await interleave([...open, ...probes], p);
    const commands = (await redisCommands(ping)) - commandsBefore;
    const calls = p.warmup + p.rounds;
    const comparison = 'per call with a session store, after an escalation, in-memory';
    const rows = perCallRows(comparison, times, { baseline: NO_STORE, plan: p });
    const extra = (name: string): number =>
      (trimmedMean(times.get(name)!) - trimmedMean(times.get(NO_STORE)!)) * 1_000;
    const roundTrip = { [REDIS]: PING, [FILE]: STAT };
    const judged = rows.map((row): ResultRow => {
      const probe = roundTrip[row.contender as keyof typeof roundTrip];
      if (probe === undefined) return row;
      const added = extra(row.contender);
      const trip = trimmedMean(times.get(probe)!) * 1_000;
      const ops = (counted[row.contender]!.total() - before.get(row.contender)!) / calls;
      return {
        ...row,
        goal: `≤ +1 round trip (${probe}: ${round(trip, 1)} µs)`,
        met: added <= trip,
        note: `+${round(added, 1)} µs a call; ${round(ops, 2)} store operations a call (this store's calls in all, set-up included: ${describe(counted[row.contender]!)})`,
      };
    });
    // What "none" means per store: Redis commands sent (the PING probes and the change
    // channel's heartbeat aside); for the file store, reads of the session file beyond the
    // one `stat` of `version()`.
    const fileReads =
      counted[FILE]!.total() -
      before.get(FILE)! -
      ((counted[FILE]!.counts.get('version') ?? 0) - versionsBefore);
    const unchanged: ResultRow[] = [
      { name: REDIS, value: commands / calls, unit: 'Redis commands/call' },
      { name: FILE, value: fileReads / calls, unit: 'session-file reads/call' },
    ].map(({ name, value, unit }) => ({
      comparison: 'store round trips per call while no other worker changed the session',
      contender: name,
      value: round(value, 3),
      unit,
      statistic: `counted over ${calls.toLocaleString('en-US')} calls`,
      goal: '0 (a version check or invalidation stream)',
      met: value === 0,
      note: `store calls by method, set-up included: ${describe(counted[name]!)}`,
    }));
    return [...judged, ...unchanged];
  } finally {
    await closeAll(open);
    await Promise.allSettled(Object.values(counted).map((c) => c.store.close()));
    ping.disconnect();
    await redis.dispose();
    await rm(directory, { recursive: true, force: true });
  }
}

/** Commands Redis has run in all, but for the probes' own (`PING`, `INFO`) and pub/sub upkeep. */
async function redisCommands(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  let total = 0;
  for (const [, command, calls] of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    if (!/^(ping|info|subscribe|unsubscribe|client\|.*|hello|select)$/.test(command ?? '')) {
      total += Number(calls);
    }
  }
  return total;
}

function describe(counted: CountedStore<SessionStore>): string {
  return [...counted.counts].map(([method, n]) => `${method} ${n}`).join(', ');
}
