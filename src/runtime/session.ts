import { randomUUID } from 'node:crypto';
import { type Draft, Immer } from 'immer';
import {
  type DispatchResult,
  type EventBus,
  type EventClass,
  InProcessEventBus,
} from './event-bus.js';
import { SensitivityEscalated } from './events.js';
import { PrivateData } from './private-data.js';
import { ResourceRegistry } from './resources.js';
import { Slice, type SliceHost, type SliceReducer } from './slice.js';

/** Options of {@link Session}. */
export interface SessionOptions {
  /** Where events go. @default new InProcessEventBus() */
  readonly bus?: EventBus;
  /** Identifier used in events. @default a random UUID */
  readonly sessionId?: string;
  /** Shared objects for tool handlers. @default an empty registry */
  readonly resources?: ResourceRegistry;
}

/** Options of {@link Session.slice}. */
export interface SliceOptions<S> {
  /** Value of a new slice; omit to get an existing slice. */
  readonly initial: S;
}

type SliceState = Readonly<Record<string, unknown>>;

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

  readonly #immer = new Immer({ autoFreeze: true });
  #state: SliceState = Object.freeze({});
  readonly #initials = new Map<string, unknown>();
  readonly #slices = new Map<string, Slice<unknown>>();
  readonly #reducers = new Map<EventClass<object>, RegisteredReducer[]>();
  readonly #host: SliceHost = {
    read: (name) =>
      Object.hasOwn(this.#state, name) ? this.#state[name] : this.#initials.get(name),
    produce: (name, recipe) => {
      const current = this.#host.read(name);
      this.#write(name, this.#immer.produce(current, recipe));
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

  constructor(options: SessionOptions = {}) {
    this.sessionId = options.sessionId ?? randomUUID();
    this.bus = options.bus ?? new InProcessEventBus();
    this.resources = options.resources ?? new ResourceRegistry();
    this.privateData = new PrivateData((previous, sensitivity, dataset) => {
      this.bus.dispatch(
        new SensitivityEscalated({
          sessionId: this.sessionId,
          previous,
          sensitivity,
          dataset,
          createdAt: new Date(),
        }),
      );
    });
  }

  /**
   * Creates the slice `name` with `options.initial`, or returns the existing
   * one when `options` is omitted.
   *
   * @throws Error when the slice does not exist and no initial value is given,
   *   or when it exists and an initial value is given again.
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
    const initial = this.#immer.produce(options.initial, () => undefined);
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
    this.#state = snapshot.state;
  }

  /**
   * Runs the reducers registered for the event's class, then publishes it
   * on the bus. A throwing reducer leaves its slice unchanged and is
   * reported in the result's `errors`, like a throwing handler.
   */
  dispatch(event: object): DispatchResult {
    const reducers = this.#reducers.get(event.constructor as EventClass<object>);
    const reducerErrors: unknown[] = [];
    if (reducers !== undefined) {
      for (const { slice, reducer } of reducers) {
        try {
          this.#host.produce(slice, (draft: Draft<unknown>) => reducer(draft, event));
        } catch (error) {
          reducerErrors.push(error);
        }
      }
    }
    const result = this.bus.dispatch(event);
    if (reducerErrors.length === 0) return result;
    return Object.freeze({
      handlersInvoked: result.handlersInvoked,
      errors: Object.freeze([...reducerErrors, ...result.errors]),
      ok: false,
    });
  }

  #write(name: string, value: unknown): void {
    if (Object.hasOwn(this.#state, name) && this.#state[name] === value) return;
    this.#state = Object.freeze({ ...this.#state, [name]: value });
  }
}
