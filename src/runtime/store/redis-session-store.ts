import { Redis } from 'ioredis';
import type { PrivateDataState } from '../private-data.js';
import { boundedCall } from './bounded-call.js';
import { messageOf } from '../../core/errors.js';
import { nextTurn } from '../../core/pause.js';
import { SessionStoreError } from './errors.js';
import type { RemoteSessionEvent, SerializedSessionEvent } from './event-serialization.js';
import type { JsonValue } from './json-value.js';
import { RedisChangeWatch, type ReadTicket, invalidateLocally } from './redis-change-watch.js';
import { followStream } from './redis-event-stream.js';
import {
  DEFAULT_CHANGE_HEARTBEAT_MS,
  DEFAULT_EVENT_STREAM_MAX_LENGTH,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_URL,
  type RedisSessionStoreOptions,
  type SubscribeRemoteOptions,
} from './redis-store-options.js';
import {
  asArray,
  storedVersion,
  parsePrivateData,
  parseSlices,
  parseStreamEntry,
} from './redis-replies.js';
import { type LuaScript, MERGE_PRIVATE_DATA, READ_SESSION, READ_VERSION } from './redis-scripts.js';
import {
  type SessionStore,
  type StoreCallOptions,
  type StoredSession,
  type VersionedPrivateData,
  privateDataState,
} from './session-store.js';
import { assertWellFormedSessionId } from './session-id.js';

export {
  DEFAULT_CHANGE_HEARTBEAT_MS,
  DEFAULT_EVENT_STREAM_MAX_LENGTH,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  DEFAULT_REDIS_URL,
};
export type { RedisSessionStoreOptions, SubscribeRemoteOptions };

/** Ends a remote subscription: stops its read loop and closes its connection. */
export type RemoteUnsubscribe = () => Promise<void>;

/**
 * A session store on Redis, for sessions that move between workers and
 * hosts. Merges are a Lua script (maximum of every level, then a new
 * version only when something rose), so concurrent workers cannot lower a
 * session's sensitivity. A merge that raised something publishes the
 * session on the store's change channel; while this store follows that
 * channel and nothing was published, `version()` makes no round trip, and
 * otherwise it is one script call. Optionally it keeps a
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
  readonly #changes: RedisChangeWatch | undefined;
  readonly #channel: string;
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
    this.#channel = `${this.keyPrefix}:changes`;
    this.#changes =
      options.watchChanges === false
        ? undefined
        : new RedisChangeWatch(
            this.#client,
            this.#channel,
            options.changeHeartbeatMs ?? DEFAULT_CHANGE_HEARTBEAT_MS,
          );
  }

  async load(
    sessionId: string,
    options: StoreCallOptions = {},
  ): Promise<StoredSession | undefined> {
    const keys = this.#keys(sessionId);
    const ticket = this.#changes?.begin(keys.base);
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
    const count = this.#settle(ticket, storedVersion(version, sessionId));
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
    const ticket = this.#changes?.begin(keys.base);
    const reply = await this.#eval(
      READ_SESSION,
      [keys.private, keys.version],
      [],
      `reading session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    const [version, fields] = asArray(reply, 2);
    const privateData = parsePrivateData(sessionId, fields);
    return Object.freeze({
      version: this.#settle(ticket, storedVersion(version, sessionId)),
      privateData,
    });
  }

  /**
   * No round trip while the change channel is live and published nothing
   * for the session since its version was last read; otherwise one script
   * call, which also tells a version whose state is gone (fails closed).
   */
  async version(sessionId: string, options: StoreCallOptions = {}): Promise<number> {
    const keys = this.#keys(sessionId);
    if (this.#changes?.cached(keys.base) !== undefined) {
      // (A closed store has closed its watch: nothing is cached, and #call refuses.)
      // One turn of the event loop: a message already in the socket's buffer is read
      // (and drops the cached version) before the version is trusted.
      await nextTurn();
      const cached = this.#changes.cached(keys.base);
      if (cached !== undefined) return cached;
    }
    const ticket = this.#changes?.begin(keys.base);
    const value = await this.#eval(
      READ_VERSION,
      [keys.private, keys.version],
      [],
      `reading the version of session ${JSON.stringify(sessionId)}`,
      options.signal,
    );
    return this.#settle(ticket, storedVersion(value, sessionId));
  }

  async mergePrivateData(
    sessionId: string,
    state: PrivateDataState,
    options: StoreCallOptions = {},
  ): Promise<VersionedPrivateData> {
    const keys = this.#keys(sessionId);
    const normal = privateDataState(state.sensitivity, state.datasets);
    const args = [
      this.#channel,
      keys.base,
      normal.sensitivity,
      ...Object.entries(normal.datasets).flat(),
    ];
    let reply: unknown;
    try {
      reply = await this.#eval(
        MERGE_PRIVATE_DATA,
        [keys.private, keys.version],
        args,
        `recording the private-data state of session ${JSON.stringify(sessionId)}`,
        options.signal,
      );
    } finally {
      // Even a merge that failed here may have happened there.
      invalidateLocally(this.#channel, keys.base);
    }
    const [version, fields] = asArray(reply, 2);
    return Object.freeze({
      version: storedVersion(version, sessionId),
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
    try {
      await this.#call(
        () =>
          this.#client
            .multi()
            .del(keys.private, keys.version, keys.slices, keys.events)
            .publish(this.#channel, keys.base)
            .exec(),
        `deleting session ${JSON.stringify(sessionId)}`,
        options.signal,
      );
    } finally {
      invalidateLocally(this.#channel, keys.base);
    }
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
    const loop = followStream(connection, key, lastId, stop.signal, (id, fields) => {
      const event = parseStreamEntry(sessionId, id, fields);
      if (event !== undefined) handler(event);
    });
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
      this.#changes?.close();
      await Promise.all([...this.#subscriptions].map((unsubscribe) => unsubscribe()));
      if (this.#ownsClient) this.#client.disconnect();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #keys(sessionId: string): {
    base: string;
    private: string;
    version: string;
    slices: string;
    events: string;
  } {
    if (typeof sessionId !== 'string' || sessionId.length === 0) {
      throw new TypeError(`session id ${JSON.stringify(sessionId)} must be a non-empty string`);
    }
    assertWellFormedSessionId(sessionId);
    // Encoding keeps ':' and braces in ids from breaking the layout or the hash tag.
    const base = `${this.keyPrefix}:{${encodeURIComponent(sessionId)}}`;
    return {
      base,
      private: `${base}:private`,
      version: `${base}:version`,
      slices: `${base}:slices`,
      events: `${base}:events`,
    };
  }

  #settle(ticket: ReadTicket | undefined, version: number): number {
    this.#changes?.settle(ticket, version);
    return version;
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
        `Redis session store: ${what} failed: ${messageOf(error)}`,
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
          if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
          return await this.#client.eval(script.source, keys.length, ...keys, ...args);
        }
      },
      what,
      signal,
    );
  }
}
