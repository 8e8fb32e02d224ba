import { EventEmitter } from 'eventemitter3';

/** A class whose instances are events. Subscriptions are by exact class. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- constructor arguments are irrelevant to matching
export type EventClass<E extends object> = abstract new (...args: any[]) => E;

/** Handler for one event class. */
export type EventHandler<E extends object> = (event: E) => void;

/** Removes a subscription; calling it twice is harmless. */
export type Unsubscribe = () => void;

/** What happened when an event was dispatched. */
export interface DispatchResult {
  /** Number of handlers called. */
  readonly handlersInvoked: number;
  /** Errors thrown by handlers; the other handlers still ran. */
  readonly errors: readonly unknown[];
  /** True when no handler threw. */
  readonly ok: boolean;
}

/** Publishes events to the handlers subscribed to their class. */
export interface EventBus {
  /** Subscribes to events of exactly `eventClass` (not subclasses). */
  subscribe<E extends object>(eventClass: EventClass<E>, handler: EventHandler<E>): Unsubscribe;
  /** Subscribes to every event, whatever its class. */
  subscribeAll(handler: EventHandler<object>): Unsubscribe;
  /** Delivers `event` synchronously to its class's handlers, then to catch-all handlers. */
  dispatch(event: object): DispatchResult;
  /**
   * True when dispatching an event of exactly `eventClass` would call a
   * handler (one of its class, or a catch-all one). Lets a producer skip
   * work that only an observer needs. A bus without it counts as observed.
   */
  hasSubscribers?(eventClass: EventClass<object>): boolean;
}

/**
 * Who may see an event dispatched through a session: its bus's handlers and
 * its reducers. `hasReducers` is optional: a session that cannot say counts
 * as having some.
 */
export interface EventObservers {
  readonly bus: EventBus;
  hasReducers?(eventClass: EventClass<object>): boolean;
}

/**
 * True unless it is certain that nothing would see an event of exactly
 * `eventClass`: no reducer and no bus handler. For skipping work that only
 * an observer needs (building an event, asking a server for progress).
 */
export function isObserved(observers: EventObservers, eventClass: EventClass<object>): boolean {
  return (
    (observers.hasReducers?.(eventClass) ?? true) ||
    (observers.bus.hasSubscribers?.(eventClass) ?? true)
  );
}

const ALL_EVENTS = Symbol('all-events');
const EMPTY_RESULT: DispatchResult = Object.freeze({ handlersInvoked: 0, errors: [], ok: true });

/**
 * The default bus: synchronous, in process, built on eventemitter3.
 *
 * eventemitter3's `emit` stops at the first throwing listener, so dispatch
 * walks the listener list itself and isolates each handler.
 *
 * @example
 * const bus = new InProcessEventBus();
 * const off = bus.subscribe(ToolInvoked, (e) => console.log(e.toolName));
 * off();
 */
export class InProcessEventBus implements EventBus {
  readonly #emitter = new EventEmitter<string | symbol>();
  readonly #keys = new WeakMap<object, symbol>();

  subscribe<E extends object>(eventClass: EventClass<E>, handler: EventHandler<E>): Unsubscribe {
    return this.#on(this.#keyOf(eventClass), handler as EventHandler<object>);
  }

  subscribeAll(handler: EventHandler<object>): Unsubscribe {
    return this.#on(ALL_EVENTS, handler);
  }

  hasSubscribers(eventClass: EventClass<object>): boolean {
    return this.#hasListeners(this.#keys.get(eventClass));
  }

  dispatch(event: object): DispatchResult {
    const key = this.#keys.get(event.constructor);
    if (!this.#hasListeners(key)) return EMPTY_RESULT;
    const typed = key === undefined ? [] : this.#emitter.listeners(key);
    const all = this.#emitter.listeners(ALL_EVENTS);
    const errors: unknown[] = [];
    for (const listener of [...typed, ...all]) {
      try {
        (listener as EventHandler<object>)(event);
      } catch (error) {
        errors.push(error);
      }
    }
    return Object.freeze({
      handlersInvoked: typed.length + all.length,
      errors: Object.freeze(errors),
      ok: errors.length === 0,
    });
  }

  /** Counting does not copy the listener lists, as `listeners()` does. */
  #hasListeners(key: symbol | undefined): boolean {
    return (
      (key !== undefined && this.#emitter.listenerCount(key) > 0) ||
      this.#emitter.listenerCount(ALL_EVENTS) > 0
    );
  }

  #on(key: symbol, handler: EventHandler<object>): Unsubscribe {
    // Wrap so that the same handler subscribed twice is removed once per unsubscribe.
    const listener = (event: object): void => handler(event);
    this.#emitter.on(key, listener);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.#emitter.off(key, listener);
    };
  }

  #keyOf(eventClass: object): symbol {
    let key = this.#keys.get(eventClass);
    if (key === undefined) {
      key = Symbol((eventClass as { name?: string }).name ?? 'event');
      this.#keys.set(eventClass, key);
    }
    return key;
  }
}
