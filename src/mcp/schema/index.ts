/**
 * Run-time validators for MCP tool input schemas (JSON Schema sent by an
 * untrusted server), cached by content. See `docs/schemas.md` for the design.
 */
import { z } from 'zod';
import { createHash } from 'node:crypto';
import { McpSchemaError, messageOf } from '../../core/errors.js';
import { withDirectCheck } from '../../tools/direct-check.js';
import { createArgumentCheck } from './analyze.js';
import { schemaBoundsRefusal } from './bounds.js';
import { describeTyped } from './issues.js';
import { canonicalJsonText, isJsonRecord, type JsonRecord } from '../../core/json.js';
import { SCHEMA_TEXT_LIMITS, SchemaProblem, type SchemaSurvey, surveySchema } from './json.js';
import { dropForeignKeywords } from './keywords.js';
import { type PatternBudget, planPatterns } from './patterns.js';
import { describeSent } from '../../core/describe-sent.js';

/**
 * A validator of a tool's arguments. On success it returns the arguments
 * object it was given, unchanged: nothing is stripped, coerced or defaulted.
 */
export type InputValidator = z.ZodType<Record<string, unknown>>;

/** How many schemas the cache keeps before it drops the least recently used. */
export const DEFAULT_SCHEMA_CACHE_SIZE = 2_000;

/**
 * Most RE2 instructions the cached validators' patterns may hold together:
 * past it, the least recently used validators go first (≈ 170 bytes an
 * instruction here, so about 70 MB).
 */
export const MAX_CACHED_PATTERN_INSTRUCTIONS = 400_000;

/**
 * A cached verdict on a schema: its validator and the RE2 instructions its
 * patterns hold, or why it is refused. It names no tool.
 */
type CacheEntry =
  | { readonly validator: InputValidator; readonly instructions: number }
  | { readonly rejection: string };

/** Entries by the SHA-256 of the schema's canonical text; the first key is the least recently used. */
const cache = new Map<string, CacheEntry>();
let counts = { hits: 0, misses: 0, evictions: 0, rejections: 0 };
/** The RE2 instructions of every cached validator's patterns. */
let cachedInstructions = 0;
/** Cache keys by schema object: a listed schema asked for again skips its canonical form. */
let keysByObject = new WeakMap<JsonRecord, string>();

/** Counters of the validator cache since it was last cleared. */
export type SchemaCacheStats = Readonly<
  typeof counts & { size: number; maxEntries: number; patternInstructions: number }
>;

/**
 * The validator of a tool's `inputSchema` (the server's JSON), analysed at
 * once and cached by content, so a second tool, section or reconnect with
 * the same schema gets the same validator. The schema is never modified,
 * and is read once. `ids` are named in errors only.
 * @throws {McpSchemaError} when the schema cannot be honoured: not an
 * object schema, a remote or dangling `$ref`, a malformed keyword, …
 */
export function createInputValidator(
  schema: unknown,
  ids: { readonly serverName: string; readonly toolName: string },
): InputValidator {
  const fail = (reason: string, cause?: unknown): McpSchemaError =>
    new McpSchemaError(ids.serverName, ids.toolName, reason, cause === undefined ? {} : { cause });
  if (!isJsonRecord(schema)) {
    throw fail(
      `the input schema must be a JSON object with "type": "object", received ${describeTyped(schema)}`,
    );
  }
  const knownKey = keysByObject.get(schema);
  let entry = knownKey === undefined ? undefined : cached(knownKey);
  try {
    if (entry === undefined) {
      const text = canonicalJsonText(schema, SCHEMA_TEXT_LIMITS);
      const key = createHash('sha256').update(text).digest('base64url');
      keysByObject.set(schema, key);
      entry = cached(key) ?? remember(key, build(text));
    }
  } catch (error) {
    // Not cached: a value JSON cannot carry, or a failure that is not the schema's.
    throw fail(messageOf(error), error);
  }
  if ('rejection' in entry) throw fail(entry.rejection);
  return entry.validator;
}

/** The entry for `key`, now the most recently used; counts a hit or a miss. */
function cached(key: string): CacheEntry | undefined {
  const entry = cache.get(key);
  if (entry === undefined) counts.misses++;
  else {
    counts.hits++;
    cache.delete(key);
    cache.set(key, entry);
  }
  return entry;
}

/** Stores `entry`, dropping the least recently used entries beyond the bound. */
function remember(key: string, entry: CacheEntry): CacheEntry {
  cache.set(key, entry);
  if ('rejection' in entry) counts.rejections++;
  else cachedInstructions += entry.instructions;
  for (const [oldest, dropped] of cache) {
    const full =
      cache.size > DEFAULT_SCHEMA_CACHE_SIZE ||
      cachedInstructions > MAX_CACHED_PATTERN_INSTRUCTIONS;
    // The entry just made stays, whatever it weighs (one schema is bounded alone).
    if (!full || oldest === key) break;
    cache.delete(oldest);
    if ('instructions' in dropped) cachedInstructions -= dropped.instructions;
    counts.evictions++;
  }
  return entry;
}

/** The cache entry of a schema not seen before: its validator, or why it is refused. */
function build(text: string): CacheEntry {
  try {
    // A private copy from the canonical text: the analysis edits it, and the
    // validator library annotates it, while the caller's schema stays as sent.
    const copy = JSON.parse(text) as JsonRecord;
    // What the schema's own dialect does not have, the validator must not apply.
    dropForeignKeywords(copy);
    const survey = surveySchema(copy);
    const refusal = schemaBoundsRefusal(copy, { ...survey, chars: text.length });
    if (refusal !== undefined) return { rejection: refusal };
    const { root, taken, inert, instructions } = planPatterns(copy, survey.patterned);
    for (const node of taken) delete node['pattern'];
    for (const node of inert) {
      delete node['pattern'];
      delete node['patternProperties'];
    }
    const check = createArgumentCheck(copy, root);
    // Each problem an issue with `params.keyword`; `invokeTool` calls `check` directly.
    const validator = z.custom<Record<string, unknown>>().check((payload) => {
      const input = payload.value;
      for (const { path, keyword, message } of check(input)) {
        const params = { keyword };
        payload.issues.push({ code: 'custom', input, path: [...path], message, params });
      }
    });
    return { validator: withDirectCheck(validator, check), instructions };
  } catch (error) {
    if (error instanceof SchemaProblem) return { rejection: error.message };
    throw error;
  }
}

/**
 * What the listing found of one tool's input schema: its survey (for the
 * listing's weight, and the check at connect), and why its bounds refuse
 * it, if they do.
 */
export interface ListedSchema {
  /** Undefined when the schema is no object, or could not be read. */
  readonly survey?: SchemaSurvey;
  /** Too large, too deep, or `$ref`s without bound (see `bounds.ts`); a schema that cannot be read. */
  readonly refusal?: string;
}

/**
 * Surveys a listed input schema and checks its bounds, as the listing is
 * read, page by page and with turns of the event loop in between (see
 * `listAllTools`): one schema's check is bounded by its size, a whole
 * listing's is not. What depends on the listing as a whole (the patterns'
 * budget) and on the config (which tools are used) is left to
 * {@link inputSchemaRefusal}.
 */
export function checkListedSchema(schema: unknown): ListedSchema {
  if (!isJsonRecord(schema)) return {}; // createInputValidator explains this one
  try {
    const survey = surveySchema(schema);
    const refusal = schemaBoundsRefusal(schema, survey);
    return refusal === undefined ? { survey } : { survey, refusal };
  } catch (error) {
    return { refusal: unreadable(error) };
  }
}

/**
 * Why a tool's input schema is refused outright, checked when a server's
 * tools are listed (cheaply: no validator is built): too large, `$ref`s
 * that loop without data, or a pattern that cannot be checked in linear
 * time (RE2) where it stands, or patterns that compile to too much (alone,
 * or with those of the other schemas that share `budget`: a listing's).
 * `listed` is what {@link checkListedSchema} found as the listing was read,
 * so that a schema costs one walk in all; without it the schema is checked
 * whole now. Undefined when the schema may be used.
 */
export function inputSchemaRefusal(
  schema: unknown,
  budget?: PatternBudget,
  listed: ListedSchema = checkListedSchema(schema),
): string | undefined {
  const { survey, refusal } = listed;
  if (refusal !== undefined || survey === undefined) return refusal;
  if (survey.patterned.length === 0) return undefined;
  try {
    planPatterns(schema, survey.patterned, budget);
    return undefined;
  } catch (error) {
    return unreadable(error);
  }
}

/**
 * The reason for a schema whose check threw: its problem, or, for a schema
 * that cannot even be read (a getter or proxy of an in-process server that
 * throws), that: every later reader would fail too.
 */
function unreadable(error: unknown): string {
  return error instanceof SchemaProblem
    ? error.message
    : `the schema could not be read: ${describeSent(messageOf(error))}`;
}

/**
 * @internal Forgets which cached validator `schema` (the object) was
 * made into: an in-process server may have edited it in place since, and
 * its validator is then made from what it holds now.
 */
export function forgetSchemaObject(schema: unknown): void {
  if (isJsonRecord(schema)) keysByObject.delete(schema);
}

/** @internal Drops every cached validator and zeroes the counters (tests, benchmarks). */
export function clearSchemaCache(): void {
  keysByObject = new WeakMap();
  cache.clear();
  cachedInstructions = 0;
  counts = { hits: 0, misses: 0, evictions: 0, rejections: 0 };
}

/** @internal Counters of the validator cache: hits, misses, evictions, rejections. */
export function schemaCacheStats(): SchemaCacheStats {
  return {
    size: cache.size,
    maxEntries: DEFAULT_SCHEMA_CACHE_SIZE,
    patternInstructions: cachedInstructions,
    ...counts,
  };
}
