/** A class used as the key of a resource. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any constructor shape may key a resource
export type ResourceKey<T> = abstract new (...args: any[]) => T;

/**
 * Shared objects a tool handler may need (connection pools, clients),
 * looked up by class: `context.resources.get(McpConnectionPool)`.
 */
export class ResourceRegistry {
  readonly #items = new Map<ResourceKey<unknown>, unknown>();

  /** The resource registered for `key`, or `undefined`. */
  get<T>(key: ResourceKey<T>): T | undefined {
    return this.#items.get(key) as T | undefined;
  }

  /**
   * The resource registered for `key`.
   * @throws Error naming the class when none is registered.
   */
  require<T>(key: ResourceKey<T>): T {
    const item = this.get(key);
    if (item === undefined) throw new Error(`no resource registered for ${key.name}`);
    return item;
  }

  /** Registers `value` under `key`, replacing any earlier one. */
  set<T>(key: ResourceKey<T>, value: T): this {
    this.#items.set(key, value);
    return this;
  }

  /** True when a resource is registered for `key`. */
  has(key: ResourceKey<unknown>): boolean {
    return this.#items.has(key);
  }
}
