/**
 * The two ways an analysed schema is turned into a check of arguments:
 * zod 4's `fromJSONSchema` where it is faithful, else the interpreting
 * validator of @cfworker/json-schema. Neither evaluates schema text as code.
 */
import { validate, type Schema } from '@cfworker/json-schema';
import { z } from 'zod';
import type { SchemaAnalysis, SchemaNode } from './analyze.js';
import type { ArgumentProblem } from './issues.js';
import { decodeLocation, problemsFromOutputUnits } from './output-units.js';
import { problemsFromZod } from './zod-issues.js';
import { isJsonObject, type JsonValue } from './json.js';
import { buildZodDocument } from './zod-document.js';

/** Which validator checks a tool's arguments. */
export type EngineKind = 'zod' | 'json-schema';

/** A built check of tool arguments. */
export interface ValidationEngine {
  readonly kind: EngineKind;
  /** Everything wrong with `value`; empty when it is valid. */
  check(value: Record<string, unknown>): ArgumentProblem[];
}

/**
 * Per-parse options for the zod path. `jitless` keeps zod from compiling an
 * object parser with `new Function`: that generated code would embed
 * property names taken from the server's schema. zod escapes them with
 * `JSON.stringify`, which is sound, but passing the option per parse means no
 * server text ever reaches a code generator, without touching the global
 * `z.config()` that the host application owns. `reportInput` puts the judged
 * value on each issue, for messages.
 */
const PARSE_CONTEXT = { jitless: true, reportInput: true } as const;

/**
 * Converts with zod. Throws whatever `fromJSONSchema` throws; the caller
 * falls back to {@link createJsonSchemaEngine}.
 */
export function createZodEngine(analysis: SchemaAnalysis): ValidationEngine {
  const document = buildZodDocument(analysis);
  // A private registry: the converter records metadata (even `id` values) in
  // the registry it is given, and the global one belongs to the application.
  const schema = z.fromJSONSchema(document, {
    registry: z.registry(),
  });
  return {
    kind: 'zod',
    check(value) {
      const result = schema.safeParse(value, PARSE_CONTEXT);
      return result.success ? [] : problemsFromZod(result.error.issues, value);
    },
  };
}

/**
 * Validates with @cfworker/json-schema, which walks the schema as data. Uses
 * its `validate` function on the lookup the analysis built (what its
 * `Validator` class does internally), with `shortCircuit = false` so every
 * error is reported.
 */
export function createJsonSchemaEngine(analysis: SchemaAnalysis): ValidationEngine {
  const { document, draft, lookup } = analysis;
  const root = document as Schema;
  const locate = (location: string): SchemaNode | JsonValue | undefined =>
    locateSchema(analysis, location);
  return {
    kind: 'json-schema',
    check(value) {
      const result = validate(value, root, draft, lookup, false);
      return result.valid ? [] : problemsFromOutputUnits(result.errors, value, locate);
    },
  };
}

/** The schema value at a validator `keywordLocation`, following `$ref`. */
function locateSchema(
  analysis: SchemaAnalysis,
  location: string,
): SchemaNode | JsonValue | undefined {
  let current: JsonValue | undefined = analysis.document;
  for (const segment of decodeLocation(location)) {
    if (segment === '$ref' && isJsonObject(current)) {
      current = analysis.refTargets.get(current);
      continue;
    }
    if (Array.isArray(current)) current = current[Number(segment)];
    else if (isJsonObject(current))
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    else return undefined;
  }
  return current;
}
