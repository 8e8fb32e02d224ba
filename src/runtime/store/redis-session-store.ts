import { Redis, type RedisOptions } from 'ioredis';
import type { PrivateDataState } from '../private-data.js';
import { pause } from '../../core/pause.js';
import { boundedCall } from './bounded-call.js';
import { SessionStoreError, describeError } from './errors.js';
import type { RemoteSessionEvent, SerializedSessionEvent } from './event-serialization.js';
import type { JsonValue } from './json-value.js';
import {
  asArray,
  toVersion,
  parsePrivateData,
  parseSlices,
  parseStreamEntry,
} from './redis-replies.js';
import { type LuaScript, MERGE_PRIVATE_DATA, READ_SESSION } from './redis-scripts.js';
import {
  type SessionStore,
  type StoreCallOptions,
  type StoredSession,
  type VersionedPrivateData,
  privateDataState,
} from './session-store.js';

/** Default of {@link RedisSessionStoreOptions.url}. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** Default of {@link RedisSessionStoreOptions.keyPrefix}. */
export const DEFAULT_REDIS_KEY_PREFIX = 'mcp-sections';
/** Default of {@link RedisSessionStoreOptions.commandTimeoutMs}. */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 5_000;
/** Default of {@link RedisSessionStoreOptions.eventStreamMaxLength}. */
export const DEFAULT_EVENT_STREAM_MAX_LENGTH = 1_000;

/** How long one XREAD of {@link RedisSessionStore.subscribeRemote} blocks, in milliseconds. */
const XREAD_BLOCK_MS = 2_000;
/** Longest pause of a subscription between two failed reads, in milliseconds. */
const MAX_RESUBSCRIBE_DELAY_MS = 1_000;

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
}

/** Options of {@link RedisSessionStore.subscribeRemote}. */
export interface SubscribeRemoteOptions {
  /** `now`: events appended after the subscription; `start`: the whole stream first. @default 'now' */
  readonly from?: 'now' | 'start';
  /** Ends the subscription, like calling the returned function. */
  readonly signal?: AbortSignal;
}

/** Ends a remote subscription: stops its read loop and closes its connection. */
export type RemoteUnsubscribe = () => Promise<void>;

/**
 * A session store on Redis, for sessions that move between workers and
 * hosts. Merges are a Lua script (maximum of every level, then INCR of the
 * version only when something rose), so concurrent workers cannot lower a
 * session's sensitivity; `version()` is one GET. Optionally it keeps a
 * bounded stream of each session's events that other processes can follow
 * with {@link RedisSessionStore.subscribeRemote}.
 *
 * @example
 * const store = new RedisSessionStore({ url: 'redis://127.0.0.1:6379' });
 * const session = await Session.open({ sessionId, store, mirrorEvents: true });
 */
export class RedisSessionStore implements SessionStore {
  readonly keyPrefix: string;
  readonly #client: Redis;
  readonly #ownsClient: boolean;
  readonly #timeoutMs: number;
  readonly #maxLength: number;
  readonly #subscriptions = new Set<RemoteUnsubscribe>();
  #closing: Promise<void> | undefined;

  constructor(options: RedisSessionStoreOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    this.#timeoutMs = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
    this.#maxLength = options.eventStreamMaxLength ?? DEFAULT_EVENT_STREAM_MAX_LENGTH;
    if (options.client !== undefined) {
      this.#client = options.client;
      this.#ownsClient = false;
    } else {
      this.#client = new Redis(options.url ?? DEFAULT_REDIS_URL, {
        lazyConnect: true,
        // Fail a command after one reconnection attempt instead of queueing it
        // for long: a tool call waiting on an escalation must learn of the failure.
        maxRetriesPerRequest: 1,
        retryStrategy: (times) => Math.min(times * 100, 1_000),
        ...options.redisOptions,
      });
      // Failures reach callers as rejected commands; the event would only be logged.
      this.#client.on('error', () => undefined);
      this.#ownsClient = true;
    }
  }

  async load(
    sessionId: string,
    options: StoreCallOptions = {},
  ): Promise<StoredSession | undefined> {
    const keys = this.#keys(sessionId);
    const reply = await this.#eval(
      READ_SESSION,
      [keys.private, keys.version, keys.slices],
      [],
      `reading session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    const [version, privateFields, sliceFields] = asArray(reply, 3);
    const privateData = parsePrivateData(sessionId, privateFields);
    const slices = parseSlices(sessionId, sliceFields);
    const count = toVersion(version);
    if (count === 0 && !privateData.hasPrivateData && Object.keys(slices).length === 0) {
      return undefined;
    }
    return Object.freeze({ sessionId, version: count, privateData, slices });
  }

  async readPrivateData(
    sessionId: string,
    options: StoreCallOptions = {},
  ): Promise<VersionedPrivateData> {
    const keys = this.#keys(sessionId);
    const reply = await this.#eval(
      READ_SESSION,
      [keys.private, keys.version],
      [],
      `reading session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    const [version, fields] = asArray(reply, 2);
    return Object.freeze({
      version: toVersion(version),
      privateData: parsePrivateData(sessionId, fields),
    });
  }

  /** One GET. */
  async version(sessionId: string, options: StoreCallOptions = {}): Promise<number> {
    const key = this.#keys(sessionId).version;
    const value = await this.#call(
      () => this.#client.get(key),
      `reading the version of session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    return toVersion(value ?? 0);
  }

  async mergePrivateData(
    sessionId: string,
    state: PrivateDataState,
    options: StoreCallOptions = {},
  ): Promise<VersionedPrivateData> {
    const keys = this.#keys(sessionId);
    const normal = privateDataState(state.sensitivity, state.datasets);
    const args = [normal.sensitivity, ...Object.entries(normal.datasets).flat()];
    const reply = await this.#eval(
      MERGE_PRIVATE_DATA,
      [keys.private, keys.version],
      args,
      `recording the private-data state of session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    const [version, fields] = asArray(reply, 2);
    return Object.freeze({
      version: toVersion(version),
      privateData: parsePrivateData(sessionId, fields),
    });
  }

  async saveSlices(
    sessionId: string,
    slices: Readonly<Record<string, JsonValue>>,
    options: StoreCallOptions = {},
  ): Promise<void> {
    const entries = Object.entries(slices).flatMap(([name, value]) => [
      name,
      JSON.stringify(value),
    ]);
    if (entries.length === 0) return;
    const key = this.#keys(sessionId).slices;
    await this.#call(
      () => this.#client.hset(key, ...entries),
      `saving slices of session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
  }

  async delete(sessionId: string, options: StoreCallOptions = {}): Promise<void> {
    const keys = this.#keys(sessionId);
    await this.#call(
      () => this.#client.del(keys.private, keys.version, keys.slices, keys.events),
      `deleting session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
  }

  /** Appends to the session's stream, trimmed to about `eventStreamMaxLength` entries. */
  async appendEvent(
    sessionId: string,
    event: SerializedSessionEvent,
    options: StoreCallOptions = {},
  ): Promise<void> {
    const key = this.#keys(sessionId).events;
    await this.#call(
      () =>
        this.#client.xadd(
          key,
          'MAXLEN',
          '~',
          String(this.#maxLength),
          '*',
          'type',
          event.type,
          'data',
          event.data,
        ),
      `appending an event of session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
  }

  /**
   * Follows the events other processes mirror for `sessionId`, on a
   * connection of its own (XREAD BLOCK). Resolves once the starting point is
   * fixed, so every event appended after that reaches `handler`, in order. A
   * throwing handler does not end the subscription; a lost connection is
   * retried until the subscription ends.
   *
   * @returns a function that stops the loop, closes the connection and
   *   resolves when both are done; calling it twice is harmless.
   * @throws SessionStoreError `store-unavailable` when the starting point cannot be read.
   */
  async subscribeRemote(
    sessionId: string,
    handler: (event: RemoteSessionEvent) => void,
    options: SubscribeRemoteOptions = {},
  ): Promise<RemoteUnsubscribe> {
    this.#assertOpen();
    const key = this.#keys(sessionId).events;
    let lastId = '0-0';
    if ((options.from ?? 'now') === 'now') {
      const newest = await this.#call(
        () => this.#client.xrevrange(key, '+', '-', 'COUNT', 1),
        `reading the event stream of session ${JSON.stringify(sessionId)}`,
        options.signal,
      );
      lastId = newest[0]?.[0] ?? '0-0';
    }
    const connection = this.#client.duplicate({ lazyConnect: true, maxRetriesPerRequest: null });
    connection.on('error', () => undefined);
    const stop = new AbortController();
    const loop = (async (): Promise<void> => {
      let delayMs = 50;
      while (!stop.signal.aborted) {
        let reply: Awaited<ReturnType<Redis['xread']>>;
        try {
          reply = await connection.xread('BLOCK', XREAD_BLOCK_MS, 'STREAMS', key, lastId);
          delayMs = 50;
        } catch {
          if (stop.signal.aborted) break;
          await pause(delayMs, stop.signal);
          delayMs = Math.min(delayMs * 2, MAX_RESUBSCRIBE_DELAY_MS);
          continue;
        }
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            lastId = id;
            if (stop.signal.aborted) return;
            const event = parseStreamEntry(sessionId, id, fields);
            if (event === undefined) continue;
            try {
              handler(event);
            } catch {
              // One failing handler must not end the subscription.
            }
          }
        }
      }
    })();
    let ended: Promise<void> | undefined;
    const unsubscribe: RemoteUnsubscribe = () => {
      ended ??= (async () => {
        stop.abort();
        options.signal?.removeEventListener('abort', onAbort);
        connection.disconnect();
        await loop;
        this.#subscriptions.delete(unsubscribe);
      })();
      return ended;
    };
    const onAbort = (): void => void unsubscribe();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.#subscriptions.add(unsubscribe);
    return unsubscribe;
  }

  /**
   * Ends every remote subscription and, when the store opened its client,
   * closes it. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#subscriptions].map((unsubscribe) => unsubscribe()));
      if (this.#ownsClient) this.#client.disconnect();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #keys(sessionId: string): {
    private: string;
    version: string;
    slices: string;
    events: string;
  } {
    if (typeof sessionId !== 'string' || sessionId.length === 0) {
      throw new TypeError(`session id ${JSON.stringify(sessionId)} must be a non-empty string`);
    }
    // Encoding keeps ':' and braces in ids from breaking the layout or the hash tag.
    const base = `${this.keyPrefix}:{${encodeURIComponent(sessionId)}}`;
    return {
      private: `${base}:private`,
      version: `${base}:version`,
      slices: `${base}:slices`,
      events: `${base}:events`,
    };
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) {
      throw new SessionStoreError('store-closed', 'the Redis session store is closed');
    }
  }

  async #call<T>(command: () => Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
    this.#assertOpen();
    try {
      return await boundedCall(command(), what, this.#timeoutMs, signal);
    } catch (error) {
      if (signal?.aborted === true || error instanceof SessionStoreError) throw error;
      throw new SessionStoreError(
        'store-unavailable',
        `Redis session store: ${what} failed: ${describeError(error)}`,
        { cause: error },
      );
    }
  }

  #eval(
    script: LuaScript,
    keys: readonly string[],
    args: readonly string[],
    what: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.#call(
      async () => {
        try {
          return await this.#client.evalsha(script.sha, keys.length, ...keys, ...args);
        } catch (error) {
          // After a restart Redis has forgotten the script; send it once in full.
          if (!describeError(error).startsWith('NOSCRIPT')) throw error;
          return await this.#client.eval(script.source, keys.length, ...keys, ...args);
        }
      },
      what,
      signal,
    );
  }
}
