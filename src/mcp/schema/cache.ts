/**
 * A bounded, least-recently-used cache of built validators keyed by schema
 * content, with the counters tests and benchmarks read. Entries hold no
 * server or tool name, so one entry serves every tool with the same schema.
 */
import { createHash } from 'node:crypto';

/** How many schemas the cache keeps before it drops the least recently used. */
export const DEFAULT_SCHEMA_CACHE_SIZE = 2_000;

/** One cached verdict on a schema: a validator, or the reason it was refused. */
export type CacheEntry<V> = { readonly validator: V } | { readonly rejection: string };

/** Counters since the last {@link SchemaCache.clear}: lookups answered, lookups that built, drops, refusals. */
export type SchemaCacheStats = Readonly<
  Record<'size' | 'maxEntries' | 'hits' | 'misses' | 'evictions' | 'rejections', number>
>;

/** The cache. A `Map` keeps insertion order, so its first key is the least recently used. */
export class SchemaCache<V> {
  private readonly entries = new Map<string, CacheEntry<V>>();
  private counts = { hits: 0, misses: 0, evictions: 0, rejections: 0 };

  constructor(readonly maxEntries: number = DEFAULT_SCHEMA_CACHE_SIZE) {}

  /** The entry for `key`, marked as most recently used; counts a hit or a miss. */
  get(key: string): CacheEntry<V> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) this.counts.misses++;
    else this.set(key, entry, true);
    return entry;
  }

  /** Stores `entry` and returns it, dropping the least recently used entries beyond the bound. */
  set(key: string, entry: CacheEntry<V>, hit = false): CacheEntry<V> {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (hit) this.counts.hits++;
    else if ('rejection' in entry) this.counts.rejections++;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
      this.counts.evictions++;
    }
    return entry;
  }

  /** Drops every entry and zeroes the counters. */
  clear(): void {
    this.entries.clear();
    this.counts = { hits: 0, misses: 0, evictions: 0, rejections: 0 };
  }

  /** A snapshot of the counters. */
  stats(): SchemaCacheStats {
    return { size: this.entries.size, maxEntries: this.maxEntries, ...this.counts };
  }
}

/** The key of a schema's canonical text: its SHA-256, so a key is short however large the schema. */
export function cacheKeyOf(canonicalText: string): string {
  return createHash('sha256').update(canonicalText).digest('base64url');
}
