/**
 * Pins the defaults of `RedisSessionStore`'s options and, against a real
 * redis-server on 127.0.0.1, that the key prefix defaults to
 * `mcp-sections` (and a given one is used), that a given client is left
 * open by `close()`, and that the event stream is trimmed near
 * `eventStreamMaxLength`.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisSessionStore } from '../../../src/runtime/store/redis-session-store.js';
import {
  DEFAULT_CHANGE_HEARTBEAT_MS,
  DEFAULT_EVENT_STREAM_MAX_LENGTH,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_URL,
} from '../../../src/runtime/store/redis-store-options.js';
import { privateDataState } from '../../../src/runtime/store/session-store.js';
import { startRedis, type TestRedis } from '../../fixtures/sessions/redis.js';

let redis: TestRedis;
let client: Redis;
beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  client.on('error', () => undefined);
});
afterAll(async () => {
  client?.disconnect();
  await redis?.dispose();
});

describe('RedisSessionStore options', () => {
  it('pins the defaults', () => {
    expect(DEFAULT_REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(DEFAULT_REDIS_KEY_PREFIX).toBe('mcp-sections');
    expect(DEFAULT_REDIS_COMMAND_TIMEOUT_MS).toBe(5_000);
    expect(DEFAULT_EVENT_STREAM_MAX_LENGTH).toBe(1_000);
    expect(DEFAULT_CHANGE_HEARTBEAT_MS).toBe(500);
  });

  it('writes under the default prefix, and under a given one', async () => {
    const plain = new RedisSessionStore({ url: redis.url, watchChanges: false });
    const custom = new RedisSessionStore({
      url: redis.url,
      keyPrefix: 'tenant-7',
      watchChanges: false,
    });
    try {
      expect(plain.keyPrefix).toBe('mcp-sections');
      await plain.mergePrivateData('s:1', privateDataState('internal', {}));
      await custom.mergePrivateData('s:1', privateDataState('internal', {}));
      expect((await client.keys('mcp-sections:*')).sort()).toEqual([
        'mcp-sections:{s%3A1}:private',
        'mcp-sections:{s%3A1}:version',
      ]);
      expect((await client.keys('tenant-7:*')).sort()).toEqual([
        'tenant-7:{s%3A1}:private',
        'tenant-7:{s%3A1}:version',
      ]);
    } finally {
      await plain.close();
      await custom.close();
    }
  });

  it('leaves a given client open when it closes', async () => {
    const store = new RedisSessionStore({ client, keyPrefix: 'given', watchChanges: false });
    await store.saveSlices('s', { plan: ['a'] });
    await store.close();
    expect(client.status).toBe('ready');
    expect(await client.hgetall('given:{s}:slices')).toEqual({ plan: '["a"]' });
  });

  it('trims the event stream to about eventStreamMaxLength entries', async () => {
    const store = new RedisSessionStore({
      client,
      keyPrefix: 'trim',
      eventStreamMaxLength: 10,
      watchChanges: false,
    });
    for (let i = 0; i < 400; i += 1) {
      await store.appendEvent('s', { type: 'Tick', data: `{"i":${i}}` });
    }
    await store.close();
    // Redis trims whole nodes of 100 entries: at most one node beyond the bound.
    const length = await client.xlen('trim:{s}:events');
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThanOrEqual(110);
  });
});
