/**
 * The check of tool arguments: @cfworker/json-schema's interpreting
 * validator, which walks the schema as data (no code is generated from
 * schema text), then the RE2 pattern checks, with every error in one wording.
 */
import { validate } from '@cfworker/json-schema';
import type { SchemaAnalysis } from './analyze.js';
import type { ArgumentProblem } from './issues.js';
import { decodeLocation, problemsFromOutputUnits } from './output-units.js';
import { isJsonObject, type JsonValue } from './json.js';
import { patternProblems, type PatternCheck } from './patterns.js';

/** Everything wrong with `value`; empty when it is valid. */
export type ArgumentCheck = (value: Record<string, unknown>) => ArgumentProblem[];

/**
 * Validates with `validate` on the lookup the analysis built (what the
 * library's `Validator` class does internally), with `shortCircuit = false`
 * so every error is reported, and every string on a plain path against the
 * patterns taken out for RE2.
 */
export function createArgumentCheck(
  analysis: SchemaAnalysis,
  patterns: readonly PatternCheck[],
): ArgumentCheck {
  const { document, draft, lookup, refTargets } = analysis;
  /** The schema value at a validator `keywordLocation`, following `$ref`. */
  const locate = (location: string): JsonValue | undefined => {
    let current: JsonValue | undefined = document;
    for (const segment of decodeLocation(location)) {
      if (segment === '$ref' && isJsonObject(current)) current = refTargets.get(current);
      else if (Array.isArray(current)) current = current[Number(segment)];
      else if (isJsonObject(current) && Object.hasOwn(current, segment)) current = current[segment];
      else return undefined;
    }
    return current;
  };
  return (value) => {
    const result = validate(value, document, draft, lookup, false);
    const problems = result.valid ? [] : problemsFromOutputUnits(result.errors, value, locate);
    return [...problems, ...patternProblems(patterns, value)];
  };
}
