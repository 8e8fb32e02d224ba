/**
 * Run-time validators for MCP tool input schemas (JSON Schema sent by an
 * untrusted server). See `docs/schemas.md` for the design.
 *
 * @example
 * ```ts
 * const params = createInputValidator(tool.inputSchema, { serverName: 'github', toolName: 'search' });
 * const result = params.safeParse({ query: 'zod' });
 * ```
 */
import { z } from 'zod';
import { McpSchemaError } from '../../core/errors.js';
import { analyzeSchema, type SchemaAnalysis } from './analyze.js';
import {
  cacheKeyOf,
  SchemaCache,
  DEFAULT_SCHEMA_CACHE_SIZE,
  type SchemaCacheStats,
} from './cache.js';
import { createArgumentCheck, type ArgumentCheck } from './engine.js';
import { describeTyped, describeValue, subjectOf } from './issues.js';
import { schemaBoundsRefusal } from './bounds.js';
import { canonicalJsonText, isJsonObject, SchemaProblem, type JsonObject } from './json.js';
import { type PatternCheck, type PatternPlan, patternIssues, planPatterns } from './patterns.js';

export { DEFAULT_SCHEMA_CACHE_SIZE };
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

const cache = new SchemaCache<InputValidator>(DEFAULT_SCHEMA_CACHE_SIZE);

/**
 * Builds (or takes from the cache) the validator of a tool's `inputSchema`.
 *
 * The schema is analysed at once, so a schema that cannot be honoured is
 * refused here. Validators are cached by schema content (keys sorted), so a second tool,
 * section or reconnect with the same schema gets the same validator object.
 * The input schema is never modified.
 *
 * @param schema - the tool's `inputSchema`, as the server sent it.
 * @param ids - the server and tool, named in errors only (never cached).
 * @throws {McpSchemaError} when the schema is not a JSON object, its
 * top-level `type` is not `"object"`, a `$ref` is remote or does not resolve
 * inside the schema, or a keyword is malformed or unsupported.
 */
export function createInputValidator(schema: unknown, ids: ToolSchemaIds): InputValidator {
  if (!isJsonObject(schema)) {
    throw new McpSchemaError(
      ids.serverName,
      ids.toolName,
      `the input schema must be a JSON object with "type": "object", received ${describeTyped(schema)}`,
    );
  }
  // Fast path: the same JSON text as a schema seen before (a reconnect, a
  // second section) skips the canonical form and its hash.
  const raw = plainJsonText(schema);
  const seenKey = raw === undefined ? undefined : keysByText.get(raw);
  const seen = seenKey === undefined ? undefined : cache.get(seenKey);
  if (seen !== undefined) return cachedValidator(seen, ids);
  let text: string;
  try {
    text = canonicalJsonText(schema);
  } catch (error) {
    throw schemaError(error, ids);
  }
  const key = cacheKeyOf(text);
  if (raw !== undefined) rememberText(raw, key);
  const cached = cache.get(key);
  if (cached !== undefined) return cachedValidator(cached, ids);
  let analysis: SchemaAnalysis;
  let plan: PatternPlan;
  try {
    // Bounded work first: size, and $ref cycles that no data ends.
    const refusal = schemaBoundsRefusal(schema, text);
    if (refusal !== undefined) throw new SchemaProblem(refusal);
    // A private copy from the canonical text: the analysis edits it, and the
    // validator library annotates it, while the caller's schema stays as sent.
    plan = planPatterns(JSON.parse(text) as JsonObject);
    analysis = analyzeSchema(plan.schema as JsonObject);
  } catch (error) {
    const failure = schemaError(error, ids);
    if (error instanceof SchemaProblem) cache.set(key, { rejection: error.message });
    throw failure;
  }
  const base = createValidator(createArgumentCheck(analysis));
  const validator = plan.checks.length === 0 ? base : withPatternChecks(base, plan.checks);
  cache.set(key, { validator });
  return validator;
}

/** Cache keys by the schema's plain JSON text, bounded like the cache itself. */
const keysByText = new Map<string, string>();

function plainJsonText(schema: JsonObject): string | undefined {
  try {
    return JSON.stringify(schema);
  } catch {
    return undefined; // cycles, bigints: the canonical path reports them
  }
}

function rememberText(raw: string, key: string): void {
  if (keysByText.size >= DEFAULT_SCHEMA_CACHE_SIZE) keysByText.clear();
  keysByText.set(raw, key);
}

function cachedValidator(
  entry: { validator: InputValidator } | { rejection: string },
  ids: ToolSchemaIds,
): InputValidator {
  if ('rejection' in entry) throw new McpSchemaError(ids.serverName, ids.toolName, entry.rejection);
  return entry.validator;
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

/**
 * The canonical JSON text of a schema (object keys sorted at every level):
 * equal for schemas that differ only in key order. The cache keys on its hash.
 * @throws {TypeError} when the value is not plain JSON (a cycle, a function,
 * a non-finite number, a class instance).
 */
export function schemaCanonicalKey(schema: unknown): string {
  try {
    return canonicalJsonText(schema);
  } catch (error) {
    throw new TypeError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function schemaError(error: unknown, ids: ToolSchemaIds): McpSchemaError {
  const reason = error instanceof Error ? error.message : String(error);
  return new McpSchemaError(ids.serverName, ids.toolName, reason, { cause: error });
}

/**
 * The zod validator of a tool's arguments: a `z.custom` whose check runs
 * the JSON Schema check and reports each problem as a zod issue
 * (`code: 'custom'`, `params.keyword`) at its path.
 */
function createValidator(check: ArgumentCheck): InputValidator {
  const validator = z.custom<Record<string, unknown>>().check((payload) => {
    const value: unknown = payload.value;
    if (!isJsonObject(value)) {
      payload.issues.push({
        code: 'custom',
        input: value,
        path: [],
        message: `the arguments must be an object; received ${describeTyped(value)}`,
        params: { keyword: 'type' },
      });
      return;
    }
    let problems: ReturnType<ArgumentCheck>;
    try {
      problems = check(value);
    } catch (error) {
      // Refuse rather than let unchecked arguments through (e.g. a value JSON cannot carry).
      const reason = error instanceof Error ? error.message : String(error);
      problems = [
        { path: [], keyword: 'error', message: `the arguments could not be validated: ${reason}` },
      ];
    }
    for (const problem of problems) {
      payload.issues.push({
        code: 'custom',
        input: value,
        path: [...problem.path],
        message: problem.message,
        params: { keyword: problem.keyword },
      });
    }
  });
  return validator;
}

/** `base`, then every RE2 pattern check on the strings it accepted. */
function withPatternChecks(base: InputValidator, checks: readonly PatternCheck[]): InputValidator {
  return base.superRefine((value, ctx) => {
    for (const issue of patternIssues(checks, value)) {
      // Worded as the engines word a failed pattern.
      ctx.addIssue({
        code: 'custom',
        path: issue.path,
        message: `${subjectOf(issue.path)} must match ${issue.pattern}; received ${describeValue(issue.input)}`,
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
  const known = verdicts.get(schema);
  if (known !== undefined) return known === ACCEPTED ? undefined : known;
  const text = plainJsonText(schema);
  if (text === undefined) return undefined;
  const refusal = judgeBounds(schema, text);
  verdicts.set(schema, refusal ?? ACCEPTED);
  return refusal;
}

/** Verdicts of {@link inputSchemaRefusal} by schema object, for as long as it lives. */
const verdicts = new WeakMap<JsonObject, string>();
/** The verdict of a schema that may be used (no refusal text is empty). */
const ACCEPTED = '';

function judgeBounds(schema: JsonObject, text: string): string | undefined {
  const bounds = schemaBoundsRefusal(schema, text);
  if (bounds !== undefined) return bounds;
  if (!text.includes('"pattern')) return undefined;
  try {
    planPatterns(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
