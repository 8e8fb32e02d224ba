/**
 * A bounded, least-recently-used cache of built validators keyed by schema
 * content, plus the counters tests and benchmarks read. Entries hold no
 * server or tool name, so one entry serves every tool with the same schema.
 */
import { createHash } from 'node:crypto';

/** How many schemas the cache keeps before it drops the least recently used. */
export const DEFAULT_SCHEMA_CACHE_SIZE = 2_000;

/** Counters of the schema cache since the last {@link SchemaCache.clear}. */
export interface SchemaCacheStats {
  /** Entries held now. */
  readonly size: number;
  /** The bound on `size`. */
  readonly maxEntries: number;
  /** Lookups answered from the cache. */
  readonly hits: number;
  /** Lookups that had to analyse the schema. */
  readonly misses: number;
  /** Entries dropped to stay within `maxEntries`. */
  readonly evictions: number;
  /** Schemas refused (each is cached, so it is analysed once). */
  readonly rejections: number;
}

/** One cached verdict on a schema: a validator, or the reason it was refused. */
export type CacheEntry<V> = { readonly validator: V } | { readonly rejection: string };

/**
 * The cache. A `Map` keeps insertion order, so re-inserting on every hit
 * makes its first key the least recently used one.
 */
export class SchemaCache<V> {
  private readonly entries = new Map<string, CacheEntry<V>>();
  private readonly counts = {
    hits: 0,
    misses: 0,
    evictions: 0,
    rejections: 0,
  };

  constructor(readonly maxEntries: number = DEFAULT_SCHEMA_CACHE_SIZE) {}

  /** The entry for `key`, marked as most recently used; counts a hit or miss. */
  get(key: string): CacheEntry<V> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.counts.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores `entry`, dropping the least recently used entries beyond the bound. */
  set(key: string, entry: CacheEntry<V>): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if ('rejection' in entry) this.counts.rejections++;
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
      this.counts.evictions++;
    }
  }

  /** Drops every entry and zeroes the counters. */
  clear(): void {
    this.entries.clear();
    for (const name of Object.keys(this.counts) as (keyof typeof this.counts)[])
      this.counts[name] = 0;
  }

  /** A snapshot of the counters. */
  stats(): SchemaCacheStats {
    return Object.freeze({ size: this.entries.size, maxEntries: this.maxEntries, ...this.counts });
  }
}

/**
 * The cache key of a schema's canonical text: its SHA-256, so an entry costs
 * 43 characters however large the schema is.
 */
export function cacheKeyOf(canonicalText: string): string {
  return createHash('sha256').update(canonicalText).digest('base64url');
}
