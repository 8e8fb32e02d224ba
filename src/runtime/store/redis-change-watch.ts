/**
 * The invalidation channel of the Redis session store: one subscriber
 * connection per store, on the channel that the merge script publishes to,
 * and the versions it lets `version()` answer without a round trip.
 *
 * A cached version is trusted only while the channel is live: subscribed,
 * and a heartbeat PING sent less than two heartbeats ago has been answered
 * (a PONG proves every message published before the PING has arrived). Any
 * message for a session, a lost connection, a missed heartbeat or a write by
 * another store of this process drops what is cached; the caller then reads
 * the version from Redis, as it does whenever the channel is not live.
 */
import type { Redis } from 'ioredis';

/** First pause before opening a new subscriber after a failure, in milliseconds. */
const FIRST_RETRY_DELAY_MS = 50;
/** Longest pause before opening a new subscriber after failures, in milliseconds. */
const MAX_RETRY_DELAY_MS = 1_000;
/** Bound on the sessions whose version is remembered; the oldest is forgotten first. */
const MAX_ENTRIES = 10_000;

type State = 'idle' | 'subscribing' | 'live' | 'closed';

interface Entry {
  /** The stored version, when it is known to be current. */
  version: number | undefined;
  /** Changes on every invalidation, so that a read answered late is not cached. */
  stamp: number;
}

/** Taken before a read is sent; the read's version is cached only if nothing happened since. */
export interface ReadTicket {
  readonly key: string;
  readonly entry: Entry;
  readonly stamp: number;
  readonly epoch: number;
}

/** Every open watch of this process, so a write invalidates the other stores at once. */
const watches = new Set<RedisChangeWatch>();

/**
 * Drops what every store of this process has cached for `key` on `channel`.
 * A writer calls it before its write resolves: a call in this process that
 * starts afterwards then reads the version from Redis instead of the channel.
 */
export function invalidateLocally(channel: string, key: string): void {
  for (const watch of watches) {
    if (watch.channel === channel) watch.invalidate(key);
  }
}

/**
 * The subscriber connection and the versions it vouches for.
 *
 * @internal Used by `RedisSessionStore`.
 */
export class RedisChangeWatch {
  readonly channel: string;
  readonly #client: Redis;
  readonly #heartbeatMs: number;
  readonly #entries = new Map<string, Entry>();
  #state: State = 'idle';
  /** Grows on every change of state; a ticket of another epoch caches nothing. */
  #epoch = 0;
  #clock = 0;
  #connection: Redis | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** When the last answered heartbeat was sent, in `performance.now()` milliseconds. */
  #answeredAt = 0;
  #waitingForPong = false;
  #retryAt = 0;
  #retryDelayMs = FIRST_RETRY_DELAY_MS;

  constructor(client: Redis, channel: string, heartbeatMs: number) {
    this.#client = client;
    this.channel = channel;
    this.#heartbeatMs = heartbeatMs;
    watches.add(this);
  }

  /** True while a cached version can be trusted. */
  get live(): boolean {
    return this.#state === 'live' && performance.now() - this.#answeredAt < 2 * this.#heartbeatMs;
  }

  /** The version of `key` when the channel vouches that it is current. */
  cached(key: string): number | undefined {
    if (!this.live) {
      this.#ensureStarted();
      return undefined;
    }
    return this.#entries.get(key)?.version;
  }

  /** Call right before sending a read of `key`; undefined while the channel is not live. */
  begin(key: string): ReadTicket | undefined {
    if (!this.live) {
      this.#ensureStarted();
      return undefined;
    }
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      if (this.#entries.size >= MAX_ENTRIES) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) this.#entries.delete(oldest.value);
      }
      entry = { version: undefined, stamp: (this.#clock += 1) };
      this.#entries.set(key, entry);
    }
    return { key, entry, stamp: entry.stamp, epoch: this.#epoch };
  }

  /** Caches the version a read returned, unless anything invalidated it since `begin`. */
  settle(ticket: ReadTicket | undefined, version: number): void {
    if (ticket === undefined || ticket.epoch !== this.#epoch || !this.live) return;
    if (this.#entries.get(ticket.key) !== ticket.entry || ticket.entry.stamp !== ticket.stamp) {
      return;
    }
    ticket.entry.version = version;
  }

  /** Forgets the version of `key`. */
  invalidate(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.version = undefined;
    entry.stamp = this.#clock += 1;
  }

  /** Closes the subscriber connection; idempotent. */
  close(): void {
    this.#drop();
    this.#state = 'closed';
    watches.delete(this);
  }

  #ensureStarted(): void {
    if (this.#state !== 'idle' || performance.now() < this.#retryAt) return;
    this.#state = 'subscribing';
    this.#epoch += 1;
    const connection = this.#client.duplicate({
      lazyConnect: true,
      // A lost subscriber is replaced, not reconnected: messages sent meanwhile are gone.
      autoResubscribe: false,
      retryStrategy: () => null,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    this.#connection = connection;
    const lost = (): void => {
      if (this.#connection === connection) this.#lose();
    };
    connection.on('error', lost);
    connection.on('close', lost);
    connection.on('end', lost);
    connection.on('message', (_channel: string, key: string) => this.invalidate(key));
    void (async () => {
      const sentAt = performance.now();
      await connection.connect();
      await connection.subscribe(this.channel);
      if (this.#connection !== connection) return;
      // Reads begun from now on are answered after Redis registered the subscription,
      // so a write they miss publishes a message that reaches this connection.
      this.#state = 'live';
      this.#epoch += 1;
      this.#answeredAt = sentAt;
      this.#retryDelayMs = FIRST_RETRY_DELAY_MS;
      this.#timer = setInterval(() => this.#heartbeat(connection), this.#heartbeatMs);
      this.#timer.unref();
    })().catch(lost);
  }

  #heartbeat(connection: Redis): void {
    if (this.#waitingForPong) {
      this.#lose();
      return;
    }
    this.#waitingForPong = true;
    const sentAt = performance.now();
    connection.ping().then(
      () => {
        if (this.#connection !== connection) return;
        this.#waitingForPong = false;
        this.#answeredAt = sentAt;
      },
      () => {
        if (this.#connection === connection) this.#lose();
      },
    );
  }

  #lose(): void {
    this.#drop();
    this.#state = 'idle';
    this.#retryAt = performance.now() + this.#retryDelayMs;
    this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, MAX_RETRY_DELAY_MS);
  }

  #drop(): void {
    this.#epoch += 1;
    this.#entries.clear();
    this.#waitingForPong = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.disconnect();
  }
}
