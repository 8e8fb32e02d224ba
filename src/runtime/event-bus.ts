import { describeSent } from '../core/describe-sent.js';

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

/** The result of a dispatch no handler threw in, by the number of handlers: one each, shared. */
const OK_RESULTS: DispatchResult[] = [];

function okResult(handlersInvoked: number): DispatchResult {
  return Object.freeze({ handlersInvoked, errors: Object.freeze([]), ok: true });
}

const EMPTY_RESULT: DispatchResult = okResult(0);

/** One subscription: its own object, so a handler subscribed twice is removed once per unsubscribe. */
interface Subscription {
  readonly handler: EventHandler<object>;
}

const NO_SUBSCRIPTIONS: readonly Subscription[] = Object.freeze([]);

/**
 * The default bus: synchronous, in process. Each class's subscriptions are
 * a list that is replaced, never changed, when someone subscribes or
 * unsubscribes: a dispatch walks the list as it was when the dispatch began
 * (a handler removed meanwhile still sees this event, one added does not),
 * without copying it. A throwing handler does not stop the others.
 *
 * @example
 * const bus = new InProcessEventBus();
 * const off = bus.subscribe(ToolInvoked, (e) => console.log(e.toolName));
 * off();
 */
export class InProcessEventBus implements EventBus {
  readonly #byClass = new WeakMap<object, readonly Subscription[]>();
  #all: readonly Subscription[] = NO_SUBSCRIPTIONS;

  /** @throws TypeError when `eventClass` is not a class or `handler` not a function. */
  subscribe<E extends object>(eventClass: EventClass<E>, handler: EventHandler<E>): Unsubscribe {
    if (typeof eventClass !== 'function') {
      throw new TypeError(
        `subscribe(eventClass, handler): eventClass must be an event class, received ${describeSent(eventClass)}`,
      );
    }
    checkHandler(handler, 'subscribe(eventClass, handler)');
    const subscription: Subscription = { handler: handler as EventHandler<object> };
    this.#byClass.set(eventClass, [...this.#of(eventClass), subscription]);
    return once(() => this.#byClass.set(eventClass, without(this.#of(eventClass), subscription)));
  }

  /** @throws TypeError when `handler` is not a function. */
  subscribeAll(handler: EventHandler<object>): Unsubscribe {
    checkHandler(handler, 'subscribeAll(handler)');
    const subscription: Subscription = { handler };
    this.#all = [...this.#all, subscription];
    return once(() => {
      this.#all = without(this.#all, subscription);
    });
  }

  hasSubscribers(eventClass: EventClass<object>): boolean {
    return this.#of(eventClass).length > 0 || this.#all.length > 0;
  }

  /** @throws TypeError when `event` is not an object (an instance of an event class). */
  dispatch(event: object): DispatchResult {
    if (typeof event !== 'object' || event === null) {
      throw new TypeError(
        `dispatch(event): event must be an instance of an event class, received ${describeSent(event)}`,
      );
    }
    const typed = this.#of(event.constructor);
    const all = this.#all;
    if (typed.length === 0 && all.length === 0) return EMPTY_RESULT;
    const errors = deliver(all, event, deliver(typed, event, undefined));
    const handlersInvoked = typed.length + all.length;
    if (errors === undefined) return (OK_RESULTS[handlersInvoked] ??= okResult(handlersInvoked));
    return Object.freeze({ handlersInvoked, errors: Object.freeze(errors), ok: false });
  }

  #of(eventClass: object): readonly Subscription[] {
    return this.#byClass.get(eventClass) ?? NO_SUBSCRIPTIONS;
  }
}

function checkHandler(handler: unknown, call: string): void {
  if (typeof handler !== 'function') {
    throw new TypeError(`${call}: handler must be a function, received ${describeSent(handler)}`);
  }
}

/** Calls each handler with `event`; what they throw is added to `errors` (made when needed). */
function deliver(
  subscriptions: readonly Subscription[],
  event: object,
  errors: unknown[] | undefined,
): unknown[] | undefined {
  for (const { handler } of subscriptions) {
    try {
      handler(event);
    } catch (error) {
      (errors ??= []).push(error);
    }
  }
  return errors;
}

/** `subscriptions` without `removed` (the same list when it is not there). */
function without(
  subscriptions: readonly Subscription[],
  removed: Subscription,
): readonly Subscription[] {
  return subscriptions.includes(removed)
    ? subscriptions.filter((subscription) => subscription !== removed)
    : subscriptions;
}

/** An unsubscribe that acts on its first call only. */
function once(unsubscribe: () => void): Unsubscribe {
  let active = true;
  return () => {
    if (!active) return;
    active = false;
    unsubscribe();
  };
}
