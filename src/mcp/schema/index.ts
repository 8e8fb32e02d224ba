/**
 * Run-time validators for MCP tool input schemas (JSON Schema sent by an
 * untrusted server), cached by content. See `docs/schemas.md` for the design.
 */
import { z } from 'zod';
import { McpSchemaError } from '../../core/errors.js';
import { analyzeSchema } from './analyze.js';
import { schemaBoundsRefusal } from './bounds.js';
import { cacheKeyOf, SchemaCache, type CacheEntry, type SchemaCacheStats } from './cache.js';
import { createArgumentCheck, type ArgumentCheck } from './engine.js';
import { describeTyped } from './issues.js';
import { canonicalJsonText, isJsonObject, SchemaProblem, type JsonObject } from './json.js';
import { planPatterns } from './patterns.js';

export { DEFAULT_SCHEMA_CACHE_SIZE } from './cache.js';
export type { SchemaCacheStats };

/** Names the tool a schema belongs to, for error messages. */
export interface ToolSchemaIds {
  readonly serverName: string;
  readonly toolName: string;
}

/**
 * A validator of a tool's arguments. On success it returns the arguments
 * object it was given, unchanged: nothing is stripped, coerced or defaulted.
 */
export type InputValidator = z.ZodType<Record<string, unknown>>;

const cache = new SchemaCache<InputValidator>();
/** Cache keys by the schema's plain JSON text: a schema seen before skips the canonical form. */
const keysByText = new Map<string, string>();

/**
 * Builds (or takes from the cache) the validator of a tool's `inputSchema`.
 *
 * The schema is analysed at once, so a schema that cannot be honoured is
 * refused here. Validators are cached by schema content (keys sorted), so a
 * second tool, section or reconnect with the same schema gets the same
 * validator object. The input schema is never modified.
 *
 * @param schema - the tool's `inputSchema`, as the server sent it.
 * @param ids - the server and tool, named in errors only (never cached).
 * @throws {McpSchemaError} when the schema is not a JSON object, its
 * top-level `type` is not `"object"`, a `$ref` is remote or does not resolve
 * inside the schema, or a keyword is malformed or unsupported.
 */
export function createInputValidator(schema: unknown, ids: ToolSchemaIds): InputValidator {
  const fail = (reason: string, cause?: unknown): McpSchemaError =>
    new McpSchemaError(ids.serverName, ids.toolName, reason, cause === undefined ? {} : { cause });
  if (!isJsonObject(schema)) {
    throw fail(
      `the input schema must be a JSON object with "type": "object", received ${describeTyped(schema)}`,
    );
  }
  const raw = plainJsonText(schema);
  const seenKey = raw === undefined ? undefined : keysByText.get(raw);
  let entry = seenKey === undefined ? undefined : cache.get(seenKey);
  try {
    if (entry === undefined) {
      const text = canonicalJsonText(schema);
      const key = cacheKeyOf(text);
      if (raw !== undefined) {
        if (keysByText.size >= cache.maxEntries) keysByText.clear();
        keysByText.set(raw, key);
      }
      entry = cache.get(key) ?? cache.set(key, build(schema, text));
    }
  } catch (error) {
    // Not cached: a value JSON cannot carry, or a failure that is not the schema's.
    throw fail(messageOf(error), error);
  }
  if ('rejection' in entry) throw fail(entry.rejection);
  return entry.validator;
}

/** The cache entry of a schema not seen before: its validator, or why it is refused. */
function build(schema: JsonObject, text: string): CacheEntry<InputValidator> {
  try {
    // Bounded work first: size, and $ref cycles that no data ends.
    const refusal = schemaBoundsRefusal(schema, text);
    if (refusal !== undefined) return { rejection: refusal };
    // A private copy from the canonical text: the analysis edits it, and the
    // validator library annotates it, while the caller's schema stays as sent.
    const copy = JSON.parse(text) as JsonObject;
    const patterns = planPatterns(copy);
    return { validator: zodValidator(createArgumentCheck(analyzeSchema(copy), patterns)) };
  } catch (error) {
    if (error instanceof SchemaProblem) return { rejection: error.message };
    throw error;
  }
}

/**
 * The zod validator of a tool's arguments: a `z.custom` whose check runs
 * the JSON Schema check and reports each problem as a zod issue
 * (`code: 'custom'`, `params.keyword`) at its path.
 */
function zodValidator(check: ArgumentCheck): InputValidator {
  return z.custom<Record<string, unknown>>().check((payload) => {
    const value: unknown = payload.value;
    let problems: ReturnType<ArgumentCheck>;
    if (!isJsonObject(value)) {
      const message = `the arguments must be an object; received ${describeTyped(value)}`;
      problems = [{ path: [], keyword: 'type', message }];
    } else {
      try {
        problems = check(value);
      } catch (error) {
        // Refuse rather than let unchecked arguments through (e.g. a value JSON cannot carry).
        const message = `the arguments could not be validated: ${messageOf(error)}`;
        problems = [{ path: [], keyword: 'error', message }];
      }
    }
    for (const { path, keyword, message } of problems) {
      payload.issues.push({
        code: 'custom',
        input: value,
        path: [...path],
        message,
        params: { keyword },
      });
    }
  });
}

/**
 * Why a tool's input schema is refused outright, checked when a server's
 * tools are listed (cheaply: no validator is built): too large, `$ref`s
 * that loop without data, or a pattern that could stall a backtracking
 * engine where RE2 cannot take it. Undefined when the schema may be used.
 */
export function inputSchemaRefusal(schema: unknown): string | undefined {
  if (!isJsonObject(schema)) return undefined; // createInputValidator explains this one
  // The same listed schema is asked about more than once (connect, then bridging).
  let verdict = verdicts.get(schema);
  if (verdict === undefined) {
    const text = plainJsonText(schema);
    verdict = text === undefined ? '' : (judgeBounds(schema, text) ?? '');
    verdicts.set(schema, verdict);
  }
  return verdict === '' ? undefined : verdict;
}

/** Verdicts of {@link inputSchemaRefusal} by schema object; `''` when it may be used. */
const verdicts = new WeakMap<JsonObject, string>();

function judgeBounds(schema: JsonObject, text: string): string | undefined {
  const bounds = schemaBoundsRefusal(schema, text);
  if (bounds !== undefined || !text.includes('"pattern')) return bounds;
  try {
    planPatterns(JSON.parse(text));
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

function plainJsonText(schema: JsonObject): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined; // cycles, bigints: the canonical path reports them
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** @internal Drops every cached validator and zeroes the counters (tests, benchmarks). */
export function clearSchemaCache(): void {
  keysByText.clear();
  cache.clear();
}

/** @internal Counters of the validator cache: hits, misses, evictions, rejections. */
export function schemaCacheStats(): SchemaCacheStats {
  return cache.stats();
}
