/**
 * The library as the benchmark measures it: compiled `dist/` (what `npm
 * install mcp-sections` gives a user) or `src/` through tsx. Both are
 * loaded by URL at run time, so the bench type-checks against `src/` and
 * runs whichever the flavour names; every bench module takes the loaded
 * library as a value instead of importing `src/` itself.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as Index from '../src/index.js';
import type * as Redis from '../src/redis.js';

/** The public surface of `mcp-sections` (its `.` entry). */
export type Library = typeof Index;

/** The `mcp-sections/redis` entry. */
export type RedisEntry = typeof Redis;

/** Which build of the library: the published `dist/` or `src/` through tsx. */
export type Flavor = 'dist' | 'src';

/** Where `npm run build` writes the entry points. */
const DIST_INDEX = new URL('../dist/src/index.js', import.meta.url);
const DIST_REDIS = new URL('../dist/src/redis.js', import.meta.url);
const SRC_INDEX = new URL('../src/index.ts', import.meta.url);
const SRC_REDIS = new URL('../src/redis.ts', import.meta.url);

/** The flavour a comparison runs unless told otherwise: `BENCH_FLAVOR`, else `dist`. */
export function defaultFlavor(): Flavor {
  return process.env.BENCH_FLAVOR === 'src' ? 'src' : 'dist';
}

/**
 * Loads the library's main entry.
 *
 * @throws Error when `dist` is asked for and `npm run build` has not run.
 */
export async function loadLibrary(flavor: Flavor = defaultFlavor()): Promise<Library> {
  return (await import(entry(flavor, DIST_INDEX, SRC_INDEX))) as Library;
}

/** Loads `mcp-sections/redis` (ioredis is a dev dependency here). */
export async function loadRedisEntry(flavor: Flavor = defaultFlavor()): Promise<RedisEntry> {
  return (await import(entry(flavor, DIST_REDIS, SRC_REDIS))) as RedisEntry;
}

function entry(flavor: Flavor, dist: URL, src: URL): string {
  if (flavor === 'src') return src.href;
  if (!existsSync(fileURLToPath(dist))) {
    throw new Error(`${fileURLToPath(dist)} is missing: run \`npm run build\` first`);
  }
  return dist.href;
}
