/**
 * Regular expressions from a server's schema run in linear time. A
 * backtracking engine (JavaScript's) can take seconds on one string for a
 * pattern such as `^(a+)+$`, so patterns never reach it when they can be
 * avoided: every `pattern` on a plain path (nested `properties` and `items`,
 * the paths real tool schemas use) is taken out of the schema the
 * validators see and checked with RE2 (`re2js`, pure JavaScript, no
 * backtracking). A pattern elsewhere (under `anyOf`, `$ref`, ...) stays
 * with the validator only when it cannot backtrack badly (no quantified
 * group that itself repeats or alternates, no back-reference); otherwise
 * the schema is refused with the reason.
 */
import { RE2JS } from 're2js';
import { isJsonObject as isObject, schemaLikeObjects, SchemaProblem } from './json.js';

/** One pattern checked with RE2: `path` is where the strings are (`*` = every array item). */
export interface PatternCheck {
  readonly path: readonly string[];
  readonly pattern: string;
  readonly matches: (text: string) => boolean;
}

/**
 * Takes the plain-path patterns out of `schema` (which the caller owns and
 * which is changed in place) and returns the checks that replace them.
 *
 * @throws SchemaProblem naming the pattern when one left with the validator could backtrack badly.
 */
export function planPatterns(schema: unknown): PatternCheck[] {
  const checks: PatternCheck[] = [];
  strip(schema, [], checks);
  const risky = riskyPattern(schema);
  if (risky !== undefined) {
    throw new SchemaProblem(
      `pattern ${JSON.stringify(risky)} could take exponential time on a backtracking engine (a repeated group that repeats or alternates inside, or a back-reference), and is not where it can be checked in linear time`,
    );
  }
  return checks;
}

/** Moves the patterns RE2 can run on the plain path `path` from `node` into `checks`. */
function strip(node: unknown, path: string[], checks: PatternCheck[]): void {
  if (!isObject(node)) return;
  const { pattern, properties, items } = node;
  const matches = typeof pattern === 'string' ? compileRe2(pattern) : undefined;
  if (matches !== undefined) {
    checks.push({ path, pattern: pattern as string, matches });
    delete node['pattern'];
  }
  if (isObject(properties)) {
    for (const [key, sub] of Object.entries(properties)) strip(sub, [...path, key], checks);
  }
  strip(items, [...path, '*'], checks);
}

function compileRe2(pattern: string): ((text: string) => boolean) | undefined {
  try {
    const re = RE2JS.compile(pattern);
    // JSON Schema patterns are not anchored: a match anywhere counts.
    return (text) => re.matcher(text).find();
  } catch {
    return undefined;
  }
}

/** The first pattern still in `schema` that a backtracking engine could stall on. */
function riskyPattern(schema: unknown): string | undefined {
  for (const node of schemaLikeObjects(schema)) {
    const { pattern, patternProperties } = node;
    if (typeof pattern === 'string' && !isLinearSafe(pattern)) return pattern;
    const keys = isObject(patternProperties) ? Object.keys(patternProperties) : [];
    const risky = keys.find((key) => !isLinearSafe(key));
    if (risky !== undefined) return risky;
  }
  return undefined;
}

/**
 * True when a backtracking engine runs `pattern` without exponential blow-up:
 * no back-reference, and no quantified group that contains a quantifier or
 * an alternation (star height one). Conservative: it may refuse a safe pattern.
 */
export function isLinearSafe(pattern: string): boolean {
  const groups: { repeats: boolean }[] = [{ repeats: false }];
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i]!;
    if (char === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return false;
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') {
      inClass = true;
      continue;
    }
    if (char === '(') {
      groups.push({ repeats: false });
      continue;
    }
    if (char === '|') {
      groups.at(-1)!.repeats = true;
      continue;
    }
    if (char === ')') {
      const closed = groups.pop() ?? { repeats: false };
      if (groups.length === 0) groups.push({ repeats: false });
      const quantified = isQuantifier(pattern, i + 1);
      if (quantified && closed.repeats) return false;
      if (quantified || closed.repeats) groups.at(-1)!.repeats = true;
      continue;
    }
    if (isQuantifier(pattern, i)) groups.at(-1)!.repeats = true;
  }
  return true;
}

/** A quantifier that repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1) starts at `index`. */
function isQuantifier(pattern: string, index: number): boolean {
  const char = pattern[index];
  if (char === '*' || char === '+') return true;
  if (char !== '{') return false;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
  if (match === null) return false;
  if (match[2] === undefined) return Number(match[1]) > 1;
  return match[3] === '' || Number(match[3]) > 1;
}

/** Every string in `value` that breaks a check: its path, the pattern and the string. */
export function patternIssues(
  checks: readonly PatternCheck[],
  value: unknown,
): { readonly path: (string | number)[]; readonly pattern: string; readonly input: string }[] {
  const issues: { path: (string | number)[]; pattern: string; input: string }[] = [];
  for (const check of checks) {
    for (const [at, text] of stringsAt(value, check.path, [])) {
      if (!check.matches(text)) issues.push({ path: at, pattern: check.pattern, input: text });
    }
  }
  return issues;
}

function stringsAt(
  value: unknown,
  path: readonly string[],
  at: (string | number)[],
): [(string | number)[], string][] {
  if (path.length === 0) return typeof value === 'string' ? [[at, value]] : [];
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') {
    if (!Array.isArray(value)) return [];
    return value.flatMap((item, index) => stringsAt(item, rest, [...at, index]));
  }
  if (!isObject(value) || !Object.hasOwn(value, head)) return [];
  return stringsAt(value[head], rest, [...at, head]);
}
