import type { PrivateData } from '../private-data.js';
import { messageOf } from '../../core/errors.js';
import { SessionStoreError } from './errors.js';
import {
  type EventMask,
  type SerializedSessionEvent,
  serializeEventIdentity,
} from './event-serialization.js';
import type { JsonValue } from './json-value.js';
import {
  type SessionStore,
  type VersionedPrivateData,
  coversPrivateData,
} from './session-store.js';

/** What a session lends its persistence. */
export interface PersistenceHost {
  readonly sessionId: string;
  readonly privateData: PrivateData;
  /** The current values of the slices marked persistent. */
  persistentSlices(): ReadonlyMap<string, unknown>;
}

/** Rounds of one flush when escalations keep arriving while it writes. */
const MAX_FLUSH_ROUNDS = 8;

/**
 * The link between one `Session` and its store: loading, the pending
 * escalation, flushing, and cheap synchronisation with other workers.
 *
 * Store operations of one session run one at a time, so a flush and a sync
 * never interleave their view of the store's version.
 *
 * @internal Created by `Session`; its methods are reached through the session.
 */
export class SessionPersistence {
  readonly store: SessionStore;
  /** Settles when the stored state has been loaded (or loading failed). */
  readonly ready: Promise<void>;
  readonly #host: PersistenceHost;
  #loaded = false;
  #storedSlices: Readonly<Record<string, JsonValue>> = {};
  /** The store's version when this session last read or wrote it. */
  #storeVersion: number | undefined;
  /** The `privateData.version` known to be held by the store; -1 when something is not. */
  #durable = 0;
  readonly #savedSlices = new Map<string, unknown>();
  #queue: Promise<unknown> = Promise.resolve();
  #absorbing = false;
  #flushScheduled = false;
  #lastError: unknown;

  constructor(host: PersistenceHost, store: SessionStore, signal?: AbortSignal) {
    this.#host = host;
    this.store = store;
    this.ready = this.#load(signal);
    // Callers observe a failed load through ready, flush and syncFromStore.
    this.ready.catch(() => undefined);
  }

  /** True once the stored state has been merged in. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** True while the local private-data state holds something the store may not. */
  get pending(): boolean {
    return this.#host.privateData.version !== this.#durable;
  }

  /** The last error of a background flush, cleared by the next success. */
  get lastError(): unknown {
    return this.#lastError;
  }

  /** The stored value of slice `name`, when the store held one at load. */
  storedSlice(name: string): { readonly value: JsonValue } | undefined {
    return Object.hasOwn(this.#storedSlices, name)
      ? { value: this.#storedSlices[name] as JsonValue }
      : undefined;
  }

  /** Records that `value` of slice `name` is what the store holds. */
  markSaved(name: string, value: unknown): void {
    this.#savedSlices.set(name, value);
  }

  /**
   * Starts a background flush of the private-data state after the current
   * synchronous code, so application code that forgets `flush()` still
   * persists soon. Failures stay pending and are retried by the next flush.
   */
  scheduleFlush(): void {
    if (this.#absorbing || this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      if (!this.pending) return;
      this.flushPrivateData().catch(() => undefined);
    });
  }

  /** Writes the private-data state to the store when something is pending. */
  async flushPrivateData(signal?: AbortSignal): Promise<void> {
    await this.#whenLoaded();
    if (!this.pending) return;
    await this.#exclusive(async () => {
      const { privateData, sessionId } = this.#host;
      for (let round = 0; round < MAX_FLUSH_ROUNDS && this.pending; round += 1) {
        try {
          const stored = await this.store.mergePrivateData(
            sessionId,
            privateData.toJSON(),
            signal === undefined ? {} : { signal },
          );
          this.#absorb(stored);
          this.#lastError = undefined;
        } catch (error) {
          this.#lastError = error;
          throw error;
        }
      }
    });
  }

  /** Flushes the private-data state, then the persistent slices that changed. */
  async flush(signal?: AbortSignal): Promise<void> {
    await this.flushPrivateData(signal);
    await this.#exclusive(async () => {
      const values = this.#host.persistentSlices();
      // Null-prototype: a slice named `__proto__` is a member like any other.
      const dirty = Object.create(null) as Record<string, JsonValue>;
      for (const [name, value] of values) {
        if (!this.#savedSlices.has(name) || this.#savedSlices.get(name) !== value) {
          dirty[name] = value as JsonValue;
        }
      }
      if (Object.keys(dirty).length === 0) return;
      await this.store.saveSlices(
        this.#host.sessionId,
        dirty,
        signal === undefined ? {} : { signal },
      );
      for (const [name, value] of Object.entries(dirty)) this.#savedSlices.set(name, value);
    });
  }

  /**
   * Merges escalations other workers stored since this session last looked:
   * asks the store for its version and reads the state only when the version
   * changed.
   */
  sync(signal?: AbortSignal): Promise<void> {
    // A session in use is loaded: its call then waits for nothing before the queue.
    if (!this.#loaded) return this.#whenLoaded().then(() => this.sync(signal));
    return this.#exclusive(async () => {
      const options = signal === undefined ? {} : { signal };
      const version = await this.store.version(this.#host.sessionId, options);
      if (version === this.#storeVersion) return;
      this.#absorb(await this.store.readPrivateData(this.#host.sessionId, options));
    });
  }

  /**
   * Mirrors `event` to the store's event stream as `mask` writes it, told
   * whether the session holds private data; best effort, never throws (an
   * event the mask throws on is dropped).
   */
  mirror(event: object, mask: EventMask = serializeEventIdentity): void {
    const { privateData, sessionId } = this.#host;
    const owner = (event as { sessionId?: unknown }).sessionId;
    if (owner !== undefined && owner !== sessionId) return;
    if (this.store.appendEvent === undefined) return;
    let entry: SerializedSessionEvent;
    try {
      entry = mask(event, { hasPrivateData: privateData.hasPrivateData });
    } catch {
      return;
    }
    this.store.appendEvent(sessionId, entry).catch(() => undefined);
  }

  async #load(signal: AbortSignal | undefined): Promise<void> {
    const { sessionId } = this.#host;
    try {
      const stored = await this.store.load(sessionId, signal === undefined ? {} : { signal });
      if (stored === undefined) {
        this.#storeVersion = 0;
      } else {
        this.#storedSlices = stored.slices;
        this.#absorb(stored);
      }
      this.#loaded = true;
    } catch (error) {
      throw new SessionStoreError(
        'session-not-loaded',
        `session ${JSON.stringify(sessionId)} could not be loaded from its store: ${messageOf(error)}`,
        { cause: error },
      );
    }
  }

  /** Merges a stored state as a maximum and notes what the store now holds. */
  #absorb(stored: VersionedPrivateData): void {
    const { privateData } = this.#host;
    this.#absorbing = true;
    try {
      privateData.merge(stored.privateData);
    } finally {
      this.#absorbing = false;
    }
    // Anything local the store lacks (a concurrent add, a store that lost
    // its data) stays pending until a flush writes it.
    this.#durable = coversPrivateData(stored.privateData, privateData.toJSON())
      ? privateData.version
      : -1;
    this.#storeVersion = stored.version;
  }

  async #whenLoaded(): Promise<void> {
    await this.ready;
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
