/**
 * Pins `followStream` against a real redis-server on 127.0.0.1: entries
 * after `lastId` are handed over in order with their fields, a throwing
 * handler does not end the loop, an entry that arrives after the abort is
 * not handed over, and a read that fails while the server is down is
 * retried until the server is back.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { followStream } from '../../../src/runtime/store/redis-event-stream.js';
import { startRedis, type TestRedis } from '../../fixtures/sessions/redis.js';

let redis: TestRedis;
let writer: Redis;
const readers: Redis[] = [];
const loops: { stop: AbortController; done: Promise<void> }[] = [];

beforeAll(async () => {
  redis = await startRedis();
  writer = new Redis(redis.url, { maxRetriesPerRequest: null });
  writer.on('error', () => undefined);
});
afterEach(async () => {
  const ending = loops.splice(0);
  for (const loop of ending) loop.stop.abort();
  for (const reader of readers.splice(0)) reader.disconnect();
  await Promise.all(ending.map((loop) => loop.done));
});
afterAll(async () => {
  writer?.disconnect();
  await redis?.dispose();
});

function follow(
  key: string,
  lastId: string,
  onEntry: (id: string, fields: readonly string[]) => void,
) {
  const reader = new Redis(redis.url, { maxRetriesPerRequest: null });
  reader.on('error', () => undefined);
  readers.push(reader);
  const stop = new AbortController();
  const done = followStream(reader, key, lastId, stop.signal, onEntry);
  const loop = { stop, done, reader };
  loops.push(loop);
  return loop;
}

describe('followStream', () => {
  it('hands over the entries after lastId, in order, with their fields', async () => {
    const key = 'stream:order';
    const first = (await writer.xadd(key, '*', 'n', '1'))!;
    await writer.xadd(key, '*', 'n', '2', 'extra', 'x');
    const seen: [string, readonly string[]][] = [];
    follow(key, first, (id, fields) => seen.push([id, fields]));
    const third = (await writer.xadd(key, '*', 'n', '3'))!;
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.map(([, fields]) => fields)).toEqual([
      ['n', '2', 'extra', 'x'],
      ['n', '3'],
    ]);
    expect(seen[1]![0]).toBe(third);
  });

  it('keeps going after a handler throws', async () => {
    const key = 'stream:throwing';
    const seen: string[] = [];
    follow(key, '0-0', (_id, fields) => {
      seen.push(fields[1]!);
      if (fields[1] === 'bad') throw new Error('handler bug');
    });
    await writer.xadd(key, '*', 'v', 'bad');
    await writer.xadd(key, '*', 'v', 'good');
    await expect.poll(() => seen).toEqual(['bad', 'good']);
  });

  it('ends when aborted and hands over nothing that arrives afterwards', async () => {
    const key = 'stream:abort';
    const seen: string[] = [];
    const loop = follow(key, '0-0', (_id, fields) => seen.push(fields[1]!));
    await writer.xadd(key, '*', 'v', 'before');
    await expect.poll(() => seen).toEqual(['before']);
    loop.stop.abort();
    // Wakes the blocked XREAD: the loop must see the abort and drop the entry.
    await writer.xadd(key, '*', 'v', 'after');
    await loop.done;
    expect(seen).toEqual(['before']);
  });

  it('ends at once when aborted before it starts', async () => {
    const seen: string[] = [];
    const stop = new AbortController();
    stop.abort();
    const reader = new Redis(redis.url, { lazyConnect: true });
    readers.push(reader);
    await followStream(reader, 'stream:none', '0-0', stop.signal, (id) => seen.push(id));
    expect(seen).toEqual([]);
    expect(reader.status).toBe('wait');
  });

  it('retries failed reads until the server is back', async () => {
    const key = 'stream:restart';
    const seen: string[] = [];
    const loop = follow(key, '0-0', (_id, fields) => seen.push(fields[1]!));
    await writer.xadd(key, '*', 'v', 'one');
    await expect.poll(() => seen).toEqual(['one']);
    await redis.stop();
    await redis.start();
    // The restarted server is empty; a new entry gets a newer id than "one".
    await writer.xadd(key, '*', 'v', 'two');
    await expect.poll(() => seen, { timeout: 10_000 }).toEqual(['one', 'two']);
    loop.stop.abort();
    loop.reader.disconnect();
    await loop.done;
  });
});
