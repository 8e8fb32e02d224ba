/** Options and defaults of `RedisSessionStore`. */
import type { Redis, RedisOptions } from 'ioredis';

/** Default of {@link RedisSessionStoreOptions.url}. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Default of {@link RedisSessionStoreOptions.keyPrefix}. */
export const DEFAULT_REDIS_KEY_PREFIX = 'mcp-sections';
/** Default of {@link RedisSessionStoreOptions.commandTimeoutMs}. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 5_000;
/** Default of {@link RedisSessionStoreOptions.eventStreamMaxLength}. */
export const DEFAULT_EVENT_STREAM_MAX_LENGTH = 1_000;
/** Default of {@link RedisSessionStoreOptions.changeHeartbeatMs}. */
export const DEFAULT_CHANGE_HEARTBEAT_MS = 500;

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /**
   * An ioredis client to use. The store does not close it, and a client
   * that queues commands while disconnected delays failures (see
   * `docs/sessions.md`). Without it the store opens its own from `url`.
   */
  readonly client?: Redis;
  /** Where the store's own client connects. @default DEFAULT_REDIS_URL */
  readonly url?: string;
  /** Extra options of the store's own client (TLS, password, db...). @default {} */
  readonly redisOptions?: RedisOptions;
  /** Prefix of every key. @default DEFAULT_REDIS_KEY_PREFIX */
  readonly keyPrefix?: string;
  /**
   * How long a store operation may take before it fails as
   * `store-unavailable`, in milliseconds.
   * @default DEFAULT_REDIS_COMMAND_TIMEOUT_MS
   */
  readonly commandTimeoutMs?: number;
  /**
   * Approximate bound on a session's event stream (`XADD ... MAXLEN ~ n`;
   * Redis trims whole stream nodes, so the length may exceed it by up to one
   * node, 100 entries by default).
   * @default DEFAULT_EVENT_STREAM_MAX_LENGTH
   */
  readonly eventStreamMaxLength?: number;
  /**
   * Follow the change channel that every merge publishes to, so that
   * `version()` answers without a round trip while nothing changed (see
   * `docs/sessions.md`). `false`: every `version()` is one script call.
   * @default true
   */
  readonly watchChanges?: boolean;
  /**
   * How often the change channel's connection is pinged, in milliseconds.
   * Cached versions are trusted only while a PING sent less than two
   * heartbeats ago has been answered, which bounds how long a silently dead
   * connection can go unnoticed.
   * @default DEFAULT_CHANGE_HEARTBEAT_MS
   */
  readonly changeHeartbeatMs?: number;
}

/** Options of {@link RedisSessionStore.subscribeRemote}. */
export interface SubscribeRemoteOptions {
  /** `now`: events appended after the subscription; `start`: the whole stream first. @default 'now' */
  readonly from?: 'now' | 'start';
  /** Ends the subscription, like calling the returned function. */
  readonly signal?: AbortSignal;
}
