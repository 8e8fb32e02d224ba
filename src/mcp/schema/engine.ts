/**
 * The check of tool arguments: @cfworker/json-schema's interpreting
 * validator, which walks the schema as data (no code is generated from
 * schema text), and its errors in one wording.
 */
import { validate, type Schema } from '@cfworker/json-schema';
import type { SchemaAnalysis, SchemaNode } from './analyze.js';
import type { ArgumentProblem } from './issues.js';
import { decodeLocation, problemsFromOutputUnits } from './output-units.js';
import { isJsonObject, type JsonValue } from './json.js';

/** Everything wrong with `value`; empty when it is valid. */
export type ArgumentCheck = (value: Record<string, unknown>) => ArgumentProblem[];

/**
 * Validates with `validate` on the lookup the analysis built (what the
 * library's `Validator` class does internally), with `shortCircuit = false`
 * so every error is reported.
 */
export function createArgumentCheck(analysis: SchemaAnalysis): ArgumentCheck {
  const { document, draft, lookup } = analysis;
  const root = document as Schema;
  const locate = (location: string): SchemaNode | JsonValue | undefined =>
    locateSchema(analysis, location);
  return (value) => {
    const result = validate(value, root, draft, lookup, false);
    return result.valid ? [] : problemsFromOutputUnits(result.errors, value, locate);
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
