import type { Draft } from 'immer';
import type { EventClass } from './event-bus.js';

/** A reducer: changes a slice's draft in response to an event. */
export type SliceReducer<S, E extends object> = (draft: Draft<S>, event: E) => void;

/** The operations a session gives a slice; kept private to the runtime. */
export interface SliceHost {
  read(name: string): unknown;
  produce(name: string, recipe: (draft: Draft<unknown>) => void): void;
  addReducer(
    name: string,
    eventClass: EventClass<object>,
    reducer: SliceReducer<unknown, object>,
  ): () => void;
}

/**
 * A named, immutable piece of session state. Values are frozen; changes go
 * through immer recipes, so snapshots share every untouched subtree.
 */
export class Slice<S> {
  readonly #host: SliceHost;

  /** @internal Created by `Session.slice`. */
  constructor(
    readonly name: string,
    host: SliceHost,
  ) {
    this.#host = host;
  }

  /** The current frozen value. */
  get(): S {
    return this.#host.read(this.name) as S;
  }

  /** Applies an immer recipe to the slice. */
  update(recipe: (draft: Draft<S>) => void): void {
    this.#host.produce(this.name, recipe as (draft: Draft<unknown>) => void);
  }

  /**
   * Registers a reducer run by `session.dispatch` for events of exactly
   * `eventClass`. Returns a function that removes it.
   */
  on<E extends object>(eventClass: EventClass<E>, reducer: SliceReducer<S, E>): () => void {
    return this.#host.addReducer(this.name, eventClass, reducer as SliceReducer<unknown, object>);
  }
}
