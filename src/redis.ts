/**
 * `mcp-sections/redis`: the Redis session store, in an entry of its own so
 * that `ioredis` (an optional peer dependency) is loaded only by those who
 * use it, and the mask that mirrors a session's events to its stream as a
 * trace records them. `npm install ioredis` to use this entry.
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
export {
  WITHHELD_WITHOUT_MASK,
  serializeEventIdentity,
} from './runtime/store/event-serialization.js';
export type { EventMask, EventMaskContext } from './runtime/store/event-serialization.js';
export type { MirrorEventsOptions } from './runtime/session.js';
export { traceEventMask } from './trace/trace-event-mask.js';
export type { TraceEventMaskOptions } from './trace/trace-event-mask.js';
