/**
 * A session store seen through a counter: every method call on it is
 * counted by name and passed on unchanged (bound to the real store, so its
 * private fields work; `instanceof` still answers for the real class). The
 * bench reads how many store operations — round trips to Redis, reads of
 * the session file — a bridged call costs.
 */
import type { SessionStore } from '../src/index.js';

/** A store and the counts of the calls made on it. */
export interface CountedStore<S extends SessionStore> {
  readonly store: S;
  /** Calls so far, by method name. */
  readonly counts: Map<string, number>;
  /** Sum of all counts. */
  total(): number;
}

/** Wraps `store` so that every method call on it is counted. */
export function countCalls<S extends SessionStore>(target: S): CountedStore<S> {
  const counts = new Map<string, number>();
  const wrapped = new Map<PropertyKey, unknown>();
  const store = new Proxy(target, {
    get(object, key) {
      const value: unknown = Reflect.get(object, key, object);
      if (typeof value !== 'function' || key === 'constructor') return value;
      let method = wrapped.get(key);
      if (method === undefined) {
        const name = String(key);
        method = (...args: unknown[]): unknown => {
          counts.set(name, (counts.get(name) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
        wrapped.set(key, method);
      }
      return method;
    },
  });
  return {
    store,
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
  };
}
