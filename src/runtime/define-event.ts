/** Constructor of an event class whose instances carry the fields of `I`. */
export type EventConstructor<I extends object> = new (init: I) => Readonly<I>;

/**
 * Makes a base class for an event with the fields of `I`: instances copy
 * their init object and are frozen. Extend it so each event is its own class,
 * which is what subscriptions match on.
 *
 * @example
 * export class ServerStarted extends defineEvent<{ readonly name: string }>() {}
 */
export function defineEvent<I extends object>(): EventConstructor<I> {
  return class {
    constructor(init: I) {
      Object.assign(this, init);
      Object.freeze(this);
    }
  } as EventConstructor<I>;
}
