import { randomUUID } from 'node:crypto';
import { type Draft, enablePatches, Immer } from 'immer';
import { type CallInfo, CallJournal, type CallScope, outsideCalls } from './call-journal.js';
import {
  type DispatchResult,
  type EventBus,
  type EventClass,
  InProcessEventBus,
} from './event-bus.js';
import { describeSent } from '../core/describe-sent.js';
import { SensitivityEscalated } from './events.js';
import { PrivateData } from './private-data.js';
import { ResourceRegistry } from './resources.js';
import { Slice, type SliceHost, type SliceReducer } from './slice.js';
import { SessionStoreError } from './store/errors.js';
import { assertJsonValue } from './store/json-value.js';
import { SessionPersistence } from './store/session-persistence.js';
import type { EventMask } from './store/event-serialization.js';
import type { SessionStore } from './store/session-store.js';
import { isWellFormed } from '../core/well-formed.js';

/** Options of {@link Session}. */
export interface SessionOptions {
  /** Where events go. @default new InProcessEventBus() */
  readonly bus?: EventBus;
  /** Identifier used in events. @default a random UUID */
  readonly sessionId?: string;
  /** Shared objects for tool handlers. @default an empty registry */
  readonly resources?: ResourceRegistry;
  /**
   * Where the private-data state and the persistent slices outlive the
   * process. The stored state is loaded at once; use `Session.open` (or
   * `await session.ready`) before relying on it.
   * @default none: nothing is persisted
   */
  readonly store?: SessionStore;
  /**
   * Also append every event of this session to the store's event stream,
   * so other processes can follow it (`RedisSessionStore.subscribeRemote`).
   * `true` mirrors only who, when and whether a call succeeded
   * (`serializeEventIdentity`): nothing here knows which values are secret.
   * Pass `{ mask: traceEventMask({ servers, tools }) }` to mirror events
   * masked as a trace file is (docs/sessions.md).
   * @default false
   */
  readonly mirrorEvents?: boolean | MirrorEventsOptions;
  /** Cancels loading the stored state. */
  readonly signal?: AbortSignal;
}

/** How {@link SessionOptions.mirrorEvents} writes events to the store's stream. */
export interface MirrorEventsOptions {
  /**
   * Turns each event into the stream's entry: masks secrets and leaves out
   * private data. `traceEventMask` (`mcp-sections/redis`) masks as a trace does.
   * @default serializeEventIdentity: who, when and whether a call succeeded
   */
  readonly mask?: EventMask;
}

/** Options of {@link Session.slice}. */
export interface SliceOptions<S> {
  /** Value of a new slice; omit to get an existing slice. */
  readonly initial: S;
  /**
   * Keep the slice in the session's store: `session.flush()` writes it and
   * a session opened later with the same id starts from the stored value
   * instead of `initial`. Its values must be JSON data; an update that makes
   * it anything else throws.
   * @default false
   */
  readonly persistent?: boolean;
}

type SliceState = Readonly<Record<string, unknown>>;

// Per-call rollback records immer patches. Enabling the plugin only makes
// patch functions available; it changes no setting of other immer users.
enablePatches();

/**
 * The state of every slice at one moment. Taking one is O(1): it holds a
 * reference to the frozen state, whose untouched subtrees stay shared.
 */
export class SessionSnapshot {
  /** @internal Created by `Session.snapshot`. */
  constructor(
    readonly sessionId: string,
    /** Frozen slice values by name. */
    readonly state: SliceState,
    readonly createdAt: Date,
  ) {
    Object.freeze(this);
  }
}

interface RegisteredReducer {
  readonly slice: string;
  readonly reducer: SliceReducer<unknown, object>;
}

/** What {@link Session.syncFromStore} returns for a session without a store. */
const SYNCED: Promise<void> = Promise.resolve();

/**
 * A conversation's runtime: an event bus, immutable state in named slices
 * with reducers, O(1) snapshots for rollback, and the private-data ratchet.
 *
 * @example
 * const session = new Session();
 * const counter = session.slice('counter', { initial: { n: 0 } });
 * const before = session.snapshot();
 * counter.update((d) => { d.n += 1 });
 * session.restore(before); // counter.get().n === 0
 */
export class Session {
  readonly sessionId: string;
  readonly bus: EventBus;
  readonly resources: ResourceRegistry;
  /** The one-way sensitivity ratchet; `restore()` never lowers it. */
  readonly privateData: PrivateData;
  /**
   * Settles once the stored state is loaded; rejects with a
   * `SessionStoreError` (`session-not-loaded`) when it cannot be. Resolved
   * at once without a store.
   */
  readonly ready: Promise<void>;

  readonly #persistence: SessionPersistence | undefined;
  readonly #persistent = new Set<string>();

  readonly #immer = new Immer({ autoFreeze: true });
  #state: SliceState = Object.freeze({});
  readonly #initials = new Map<string, unknown>();
  readonly #slices = new Map<string, Slice<unknown>>();
  readonly #reducers = new Map<EventClass<object>, RegisteredReducer[]>();
  readonly #journal = new CallJournal({
    read: (name) => this.#host.read(name),
    write: (name, value) => this.#write(name, value),
  });
  readonly #host: SliceHost = {
    read: (name) =>
      Object.hasOwn(this.#state, name) ? this.#state[name] : this.#initials.get(name),
    produce: (name, recipe) => {
      const current = this.#host.read(name);
      if (!this.#journal.recording) {
        this.#write(name, this.#immer.produce(current, recipe));
        return;
      }
      const [next, patches, inverse] = this.#immer.produceWithPatches(current, recipe);
      this.#write(name, next);
      this.#journal.record(name, patches, inverse, { before: current, after: next });
    },
    addReducer: (name, eventClass, reducer) => {
      const list = this.#reducers.get(eventClass) ?? [];
      const entry: RegisteredReducer = { slice: name, reducer };
      this.#reducers.set(eventClass, [...list, entry]);
      return () => {
        const now = this.#reducers.get(eventClass) ?? [];
        this.#reducers.set(
          eventClass,
          now.filter((r) => r !== entry),
        );
      };
    },
  };

  /**
   * Creates a session. With a `store`, loading starts at once and
   * `ready` settles when it is done; prefer {@link Session.open}, which
   * resolves only with a loaded session.
   *
   * @throws TypeError when `mirrorEvents` is set and the store keeps no event stream.
   */
  constructor(options: SessionOptions = {}) {
    this.sessionId = options.sessionId ?? randomUUID();
    this.bus = options.bus ?? new InProcessEventBus();
    this.resources = options.resources ?? new ResourceRegistry();
    this.privateData = new PrivateData(
      (previous, sensitivity, dataset) => {
        // Reducers see it as every other event, outside any call: a record of the
        // rise stays through a failed call's rollback, as the level does.
        this.dispatchOutsideCalls(
          new SensitivityEscalated({
            sessionId: this.sessionId,
            previous,
            sensitivity,
            dataset,
            createdAt: new Date(),
          }),
        );
      },
      () => this.#persistence?.scheduleFlush(),
    );
    const { store } = options;
    if (store === undefined) {
      this.#persistence = undefined;
      this.ready = Promise.resolve();
      return;
    }
    const mirror = options.mirrorEvents;
    if (mirror !== undefined && mirror !== false && store.appendEvent === undefined) {
      throw new TypeError('mirrorEvents needs a store with an event stream (RedisSessionStore)');
    }
    const persistence = new SessionPersistence(
      {
        sessionId: this.sessionId,
        privateData: this.privateData,
        persistentSlices: () =>
          new Map([...this.#persistent].map((name) => [name, this.#host.read(name)])),
      },
      store,
      options.signal,
    );
    this.#persistence = persistence;
    this.ready = persistence.ready;
    if (mirror !== undefined && mirror !== false) {
      const mask = mirror === true ? undefined : mirror.mask;
      this.bus.subscribeAll((event) => persistence.mirror(event, mask));
    }
  }

  /**
   * Creates a session and loads what its store holds for `sessionId`: the
   * private-data state (so a resumed session starts at the stored
   * sensitivity or higher) and the persistent slices. The way to open a
   * session with a store.
   *
   * @throws SessionStoreError `session-not-loaded` when the store cannot be read.
   * @example
   * const session = await Session.open({ sessionId: 'conv-42', store: new FileSessionStore() });
   */
  static async open(options: SessionOptions = {}): Promise<Session> {
    const session = new Session(options);
    await session.ready;
    return session;
  }

  /** The store this session persists to, if any. */
  get store(): SessionStore | undefined {
    return this.#persistence?.store;
  }

  /** True once the stored state has been loaded (always true without a store). */
  get loaded(): boolean {
    return this.#persistence?.loaded ?? true;
  }

  /**
   * True while the private-data state holds an escalation the store has not
   * recorded yet (never true without a store). It stays true after a failed
   * flush; the next flush retries it.
   */
  get hasPendingPrivateData(): boolean {
    return this.#persistence?.pending ?? false;
  }

  /**
   * Writes what the store is missing: the private-data state when it
   * changed, then the persistent slices that changed. Application code that
   * calls `privateData.add` should await this before it reports the result
   * (MCP calls do it themselves). A no-op without a store.
   *
   * @throws SessionStoreError when the store cannot be written; the
   *   escalation stays pending and the next flush retries it.
   */
  async flush(options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    await this.#persistence?.flush(options.signal);
  }

  /**
   * Writes the private-data state to the store when it holds an escalation
   * the store has not recorded; persistent slices are left for `flush()`.
   * MCP tool calls await this before they return.
   *
   * @throws SessionStoreError when the store cannot be written; the
   *   escalation stays pending.
   */
  async flushPrivateData(options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    await this.#persistence?.flushPrivateData(options.signal);
  }

  /**
   * Merges escalations that other processes stored for this session. Cheap
   * when nothing changed: the store's `version()` (Redis: nothing while its
   * change channel is live and quiet, else one script call; file: one `stat`), and a
   * full read only when the version moved. MCP tool calls await this before
   * choosing a connection. See docs/sessions.md.
   *
   * @throws SessionStoreError when the store cannot be read.
   */
  syncFromStore(options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    return this.#persistence?.sync(options.signal) ?? SYNCED;
  }

  /**
   * Creates the slice `name` with `options.initial`, or returns the existing
   * one when `options` is omitted.
   *
   * @throws Error when the slice does not exist and no initial value is given,
   *   or when it exists and an initial value is given again.
   * @throws SessionStoreError `session-not-loaded` for a persistent slice of
   *   a session whose store has not been loaded yet.
   * @throws TypeError when a persistent slice's value is not JSON data, or
   *   its name holds a lone surrogate.
   */
  slice<S>(name: string, options?: SliceOptions<S>): Slice<S> {
    const existing = this.#slices.get(name);
    if (existing !== undefined) {
      if (options !== undefined) throw new Error(`slice "${name}" already exists`);
      return existing as Slice<S>;
    }
    if (options === undefined) {
      throw new Error(`slice "${name}" does not exist; pass { initial } to create it`);
    }
    let start: unknown = options.initial;
    if (options.persistent === true) {
      // Stores keep names as UTF-8, where two names with a lone surrogate read back as one.
      if (!isWellFormed(name)) {
        throw new TypeError(
          `persistent slice name ${JSON.stringify(name)} holds a lone surrogate (half of a UTF-16 pair); stores need well-formed Unicode`,
        );
      }
      const persistence = this.#persistence;
      if (persistence !== undefined && !persistence.loaded) {
        throw new SessionStoreError(
          'session-not-loaded',
          `persistent slice "${name}" of session "${this.sessionId}" was asked for before the stored state was loaded; open the session with await Session.open(...)`,
        );
      }
      assertJsonValue(options.initial, `slice "${name}"`);
      const stored = persistence?.storedSlice(name);
      if (stored !== undefined) start = stored.value;
      this.#persistent.add(name);
    }
    const initial = this.#immer.produce(start, () => undefined) as S;
    if (options.persistent === true && start !== options.initial) {
      this.#persistence?.markSaved(name, initial);
    }
    this.#initials.set(name, initial);
    this.#write(name, initial);
    const slice = new Slice<S>(name, this.#host);
    this.#slices.set(name, slice as Slice<unknown>);
    return slice;
  }

  /** The state of every slice now, in O(1). */
  snapshot(): SessionSnapshot {
    return new SessionSnapshot(this.sessionId, this.#state, new Date());
  }

  /**
   * Puts every slice back as it was in `snapshot`. The private-data state is
   * not part of a snapshot and is never lowered.
   *
   * @throws Error when the snapshot belongs to another session.
   */
  restore(snapshot: SessionSnapshot): void {
    if (snapshot.sessionId !== this.sessionId) {
      throw new Error(
        `snapshot of session "${snapshot.sessionId}" cannot restore session "${this.sessionId}"`,
      );
    }
    if (this.#journal.recording) this.#recordRestore(snapshot.state);
    this.#state = snapshot.state;
  }

  /**
   * @internal Opens the scope of one tool call (`invokeTool` does this):
   * the slice writes made inside `scope.run(...)` are the call's own, and
   * `scope.rollback()` undoes exactly those, keeping what other calls and
   * application code wrote meanwhile. See docs/runtime.md.
   */
  beginCall(info: CallInfo): CallScope {
    return this.#journal.begin(info);
  }

  /**
   * The innermost call of this session running on the current async stack
   * (begun with {@link beginCall} and inside its `run`), if any.
   */
  currentCall(): CallInfo | undefined {
    return this.#journal.current()?.info;
  }

  /** True when a reducer is registered for events of exactly `eventClass`. */
  hasReducers(eventClass: EventClass<object>): boolean {
    return (this.#reducers.get(eventClass)?.length ?? 0) > 0;
  }

  /**
   * {@link dispatch} as code outside any call: what the reducers write
   * belongs to no call, so no call's rollback undoes it. For what happens to
   * the session while a call runs but is not the call's doing (a server's
   * log, a changed tool list, a timeout, a malformed marker).
   */
  dispatchOutsideCalls(event: object): DispatchResult {
    return outsideCalls(() => this.dispatch(event));
  }

  /**
   * Runs the reducers registered for the event's class, then publishes it
   * on the bus. A throwing reducer leaves its slice unchanged and is
   * reported in the result's `errors`, like a throwing handler.
   */
  dispatch(event: object): DispatchResult {
    if (typeof event !== 'object' || event === null) {
      throw new TypeError(
        `dispatch(event): event must be an instance of an event class, received ${describeSent(event)}`,
      );
    }
    const reducers = this.#reducers.get(event.constructor as EventClass<object>);
    let reducerErrors: unknown[] | undefined;
    if (reducers !== undefined) {
      for (const { slice, reducer } of reducers) {
        try {
          this.#host.produce(slice, (draft: Draft<unknown>) => reducer(draft, event));
        } catch (error) {
          (reducerErrors ??= []).push(error);
        }
      }
    }
    const result = this.bus.dispatch(event);
    if (reducerErrors === undefined) return result;
    return Object.freeze({
      handlersInvoked: result.handlersInvoked,
      errors: Object.freeze([...reducerErrors, ...result.errors]),
      ok: false,
    });
  }

  /** A restore inside a running call is that call's write of every slice it changes. */
  #recordRestore(target: SliceState): void {
    for (const name of new Set([...Object.keys(this.#state), ...Object.keys(target)])) {
      const before = this.#host.read(name);
      const after = Object.hasOwn(target, name) ? target[name] : this.#initials.get(name);
      if (before === after) continue;
      this.#journal.record(
        name,
        [{ op: 'replace', path: [], value: after }],
        [{ op: 'replace', path: [], value: before }],
        { before, after },
      );
    }
  }

  #write(name: string, value: unknown): void {
    if (Object.hasOwn(this.#state, name) && this.#state[name] === value) return;
    if (this.#persistent.has(name)) assertJsonValue(value, `slice "${name}"`);
    this.#state = Object.freeze({ ...this.#state, [name]: value });
  }
}
