/**
 * `mcp-sections/redis`: the Redis session store, in an entry of its own so
 * that `ioredis` (an optional peer dependency) is loaded only by those who
 * use it. `npm install ioredis` to use this entry.
 */
export {
  DEFAULT_EVENT_STREAM_MAX_LENGTH,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_URL,
  RedisSessionStore,
} from './runtime/store/redis-session-store.js';
export type {
  RedisSessionStoreOptions,
  RemoteUnsubscribe,
  SubscribeRemoteOptions,
} from './runtime/store/redis-session-store.js';
