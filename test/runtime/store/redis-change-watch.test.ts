/**
 * Pins `RedisChangeWatch` against a real redis-server on 127.0.0.1: it is
 * live only once Redis confirmed the subscription; `settle()` caches a
 * version only when nothing invalidated the key since `begin()`; a message
 * on the channel drops that key; `invalidateLocally` reaches every open
 * watch of the same channel and no other; a killed subscriber connection
 * makes it not live, drops the cache, and a later call subscribes again;
 * a heartbeat left unanswered for two intervals makes it not live;
 * `close()` is idempotent, closes the connection and caches nothing more.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  RedisChangeWatch,
  invalidateLocally,
} from '../../../src/runtime/store/redis-change-watch.js';
import { startRedis, type TestRedis } from '../../fixtures/sessions/redis.js';
import { childPids, expectNoNewChildren, waitFor } from '../../support/processes.js';

/** Long enough that no heartbeat falls inside a test unless a test fakes the clock. */
const HEARTBEAT_MS = 60_000;
/** Bound on waiting for Redis to deliver something, in milliseconds. */
const WAIT_MS = 10_000;

let redis: TestRedis;
let admin: Redis;
let before: number[];
const opened: { watches: RedisChangeWatch[]; clients: Redis[] } = { watches: [], clients: [] };

beforeAll(async () => {
  before = childPids();
  redis = await startRedis();
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
});

afterEach(() => {
  vi.useRealTimers();
  for (const watch of opened.watches.splice(0)) watch.close();
  for (const client of opened.clients.splice(0)) client.disconnect();
});

afterAll(async () => {
  admin?.disconnect();
  await redis?.dispose();
  expect(await expectNoNewChildren(before)).toEqual([]);
});

/** A client named `name` (its duplicates carry the name too) and a watch on `channel`. */
function newWatch(
  channel: string,
  name = `w-${randomUUID()}`,
  heartbeatMs = HEARTBEAT_MS,
): { watch: RedisChangeWatch; client: Redis; name: string } {
  const client = new Redis(redis.url, { lazyConnect: true, connectionName: name });
  const watch = new RedisChangeWatch(client, channel, heartbeatMs);
  opened.clients.push(client);
  opened.watches.push(watch);
  return { watch, client, name };
}

/** Starts the subscriber and waits until Redis has confirmed it. */
async function live(watch: RedisChangeWatch): Promise<void> {
  await waitFor(
    () => {
      watch.begin('probe');
      return watch.live;
    },
    { timeoutMs: WAIT_MS, description: 'the watch to be live' },
  );
}

async function subscribers(channel: string): Promise<number> {
  const reply = (await admin.call('PUBSUB', 'NUMSUB', channel)) as [string, number];
  return Number(reply[1]);
}

async function connections(name: string): Promise<number> {
  const list = String(await admin.call('CLIENT', 'LIST'));
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length;
}

/** Caches `version` for `key` through a begin/settle pair. */
function cache(watch: RedisChangeWatch, key: string, version: number): void {
  watch.settle(watch.begin(key), version);
}

/**
 * Holds the subscriber's SUBSCRIBE until `release()`: `connected` resolves
 * once the subscriber has connected and is about to subscribe.
 */
function holdSubscribe(client: Redis): { connected: Promise<void>; release: () => void } {
  let reached!: () => void;
  const connected = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const duplicate = client.duplicate.bind(client);
  vi.spyOn(client, 'duplicate').mockImplementation((options) => {
    const subscriber = duplicate(options);
    const subscribe = subscriber.subscribe.bind(subscriber) as (c: string) => Promise<unknown>;
    (subscriber as { subscribe: (c: string) => Promise<unknown> }).subscribe = async (c) => {
      reached();
      await gate;
      return subscribe(c);
    };
    return subscriber;
  });
  return { connected, release };
}

function channel(): string {
  return `changes-${randomUUID()}`;
}

describe('RedisChangeWatch', () => {
  it('is not live and caches nothing before anything asked for it', async () => {
    const ch = channel();
    const { watch, name } = newWatch(ch);
    expect(watch.live).toBe(false);
    expect(await connections(name)).toBe(0);
    expect(await subscribers(ch)).toBe(0);
  });

  it('becomes live only once Redis has confirmed the subscription', async () => {
    const ch = channel();
    const { watch, client } = newWatch(ch);
    const held = holdSubscribe(client);

    expect(watch.begin('k')).toBeUndefined();
    expect(watch.cached('k')).toBeUndefined();
    await held.connected;
    // Connected, but not yet subscribed: a write now would publish to no one.
    expect(watch.live).toBe(false);
    expect(watch.begin('k')).toBeUndefined();
    expect(await subscribers(ch)).toBe(0);
    expect(client.duplicate).toHaveBeenCalledTimes(1);

    held.release();
    await live(watch);
    expect(await subscribers(ch)).toBe(1);
    expect(client.duplicate).toHaveBeenCalledTimes(1);
  });

  it('gives no ticket while not live', async () => {
    const { watch } = newWatch(channel());
    expect(watch.begin('k')).toBeUndefined();
    await live(watch);
    expect(watch.begin('k')).toBeDefined(); // the control
  });

  it('caches what a read settles when nothing happened since begin()', async () => {
    const { watch } = newWatch(channel());
    await live(watch);
    const ticket = watch.begin('k');
    expect(ticket).toMatchObject({ key: 'k' });
    expect(watch.cached('k')).toBeUndefined();
    watch.settle(ticket, 7);
    expect(watch.cached('k')).toBe(7);
    cache(watch, 'k', 8);
    expect(watch.cached('k')).toBe(8);
  });

  it('does not cache a read begun before an invalidation and settled after it', async () => {
    const { watch } = newWatch(channel());
    await live(watch);
    cache(watch, 'k', 1);
    const late = watch.begin('k');
    watch.invalidate('k');
    expect(watch.cached('k')).toBeUndefined();
    watch.settle(late, 1);
    expect(watch.cached('k')).toBeUndefined();
    // A read begun after the invalidation may cache again.
    cache(watch, 'k', 2);
    expect(watch.cached('k')).toBe(2);
  });

  it('drops the key named by a message on the channel, and only that key', async () => {
    const ch = channel();
    const { watch } = newWatch(ch);
    await live(watch);
    cache(watch, 'a', 1);
    cache(watch, 'b', 2);
    cache(watch, 'mark', 3);
    const inFlight = watch.begin('c');
    expect(await admin.publish(ch, 'elsewhere')).toBe(1);
    await admin.publish(ch, 'a');
    await admin.publish(ch, 'c');
    await admin.publish(ch, 'mark');
    // Messages arrive in order: once "mark" is dropped, the ones before it were read.
    await waitFor(() => watch.cached('mark') === undefined, {
      timeoutMs: WAIT_MS,
      description: 'the marker message',
    });
    expect(watch.cached('a')).toBeUndefined();
    expect(watch.cached('b')).toBe(2);
    watch.settle(inFlight, 3);
    expect(watch.cached('c')).toBeUndefined();
  });

  it('ignores messages on other channels', async () => {
    const ch = channel();
    const other = channel();
    const { watch } = newWatch(ch);
    await live(watch);
    cache(watch, 'k', 1);
    cache(watch, 'mark', 1);
    await admin.publish(other, 'k');
    await admin.publish(ch, 'mark');
    await waitFor(() => watch.cached('mark') === undefined, {
      timeoutMs: WAIT_MS,
      description: 'the marker message',
    });
    expect(watch.cached('k')).toBe(1);
  });

  it('invalidateLocally reaches every watch of the same channel and no other', async () => {
    const ch = channel();
    const first = newWatch(ch).watch;
    const second = newWatch(ch).watch;
    const elsewhere = newWatch(channel()).watch;
    for (const watch of [first, second, elsewhere]) {
      await live(watch);
      cache(watch, 'k', 4);
      cache(watch, 'j', 5);
    }
    const pending = second.begin('k');
    invalidateLocally(ch, 'k');
    expect([first, second, elsewhere].map((watch) => watch.cached('k'))).toEqual([
      undefined,
      undefined,
      4,
    ]);
    expect([first, second, elsewhere].map((watch) => watch.cached('j'))).toEqual([5, 5, 5]);
    second.settle(pending, 4);
    expect(second.cached('k')).toBeUndefined();
  });

  it('is not live once its subscriber connection is killed, and subscribes again later', async () => {
    const ch = channel();
    const { watch, client, name } = newWatch(ch);
    const duplicate = vi.spyOn(client, 'duplicate');
    await live(watch);
    cache(watch, 'k', 9);
    const before = watch.begin('j');
    // At least this watch's subscriber; one a previous test closed may still be going.
    expect(Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'))).toBeGreaterThanOrEqual(1);
    await waitFor(() => !watch.live, { timeoutMs: WAIT_MS, description: 'the loss to be seen' });
    expect(watch.cached('k')).toBeUndefined();
    expect(await connections(name)).toBe(0);

    await live(watch);
    expect(duplicate).toHaveBeenCalledTimes(2);
    expect(await subscribers(ch)).toBe(1);
    // Nothing from before the loss is trusted, and a ticket of then caches nothing now,
    // even when a read of the same key has begun on the new connection.
    expect(watch.cached('k')).toBeUndefined();
    const now = watch.begin('j');
    watch.settle(before, 1);
    expect(watch.cached('j')).toBeUndefined();
    watch.settle(now, 2); // the control: a ticket of the live connection does cache
    expect(watch.cached('j')).toBe(2);
  });

  it('is not live once two heartbeats pass without an answered PING', async () => {
    // Only the clock is faked: the heartbeat timer itself never fires, as if PINGs went unanswered.
    vi.useFakeTimers({ toFake: ['performance'] });
    const heartbeatMs = HEARTBEAT_MS;
    const { watch } = newWatch(channel(), undefined, heartbeatMs);
    await live(watch);
    cache(watch, 'k', 1);
    vi.advanceTimersByTime(2 * heartbeatMs - 1);
    expect(watch.live).toBe(true);
    expect(watch.cached('k')).toBe(1);
    vi.advanceTimersByTime(1);
    expect(watch.live).toBe(false);
    expect(watch.cached('k')).toBeUndefined();
    expect(watch.begin('k')).toBeUndefined();
  });

  it('close() is idempotent, closes the connection and caches nothing afterwards', async () => {
    const ch = channel();
    const { watch, client, name } = newWatch(ch);
    const duplicate = vi.spyOn(client, 'duplicate');
    await live(watch);
    cache(watch, 'k', 1);
    const pending = watch.begin('j');
    watch.close();
    watch.close();
    expect(watch.live).toBe(false);
    expect(watch.cached('k')).toBeUndefined();
    expect(watch.begin('k')).toBeUndefined();
    watch.settle(pending, 2);
    expect(watch.cached('j')).toBeUndefined();
    // Asking again after close() opens no new subscriber.
    expect(duplicate).toHaveBeenCalledTimes(1);
    await waitFor(async () => (await connections(name)) === 0, {
      timeoutMs: WAIT_MS,
      description: 'the subscriber to disconnect',
    });
    expect(await subscribers(ch)).toBe(0);
  });

  it('close() between connecting and subscribing leaves no subscriber behind', async () => {
    const ch = channel();
    const { watch, client, name } = newWatch(ch);
    const held = holdSubscribe(client);
    expect(watch.begin('k')).toBeUndefined();
    await held.connected;
    expect(await connections(name)).toBe(1);
    watch.close();
    held.release();
    await waitFor(async () => (await connections(name)) === 0, {
      timeoutMs: WAIT_MS,
      description: 'the subscriber to disconnect',
    });
    expect(await subscribers(ch)).toBe(0);
    expect(watch.live).toBe(false);
    expect(watch.begin('k')).toBeUndefined();
    expect(client.duplicate).toHaveBeenCalledTimes(1);
  });
});
