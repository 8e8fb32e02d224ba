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
import { SchemaProblem } from './json.js';

/** One pattern checked with RE2: `path` is where the strings are (`*` = every array item). */
export interface PatternCheck {
  readonly path: readonly string[];
  readonly pattern: string;
  readonly matches: (text: string) => boolean;
}

/** A schema with its plain-path patterns taken out, and the checks that replace them. */
export interface PatternPlan {
  readonly schema: unknown;
  readonly checks: readonly PatternCheck[];
}

/**
 * Takes the plain-path patterns out of `schema` (a copy; the original is
 * kept for `toolDefinitions()`).
 *
 * @throws SchemaProblem naming the pattern when one left with the validator could backtrack badly.
 */
export function planPatterns(schema: unknown): PatternPlan {
  const checks: PatternCheck[] = [];
  const stripped = strip(schema, [], checks);
  const risky = riskyPattern(stripped);
  if (risky !== undefined) {
    throw new SchemaProblem(
      `pattern ${JSON.stringify(risky)} could take exponential time on a backtracking engine (a repeated group that repeats or alternates inside, or a back-reference), and is not where it can be checked in linear time`,
    );
  }
  return { schema: stripped, checks };
}

function strip(node: unknown, path: string[], checks: PatternCheck[]): unknown {
  if (!isObject(node)) return node;
  let copy: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown): void => {
    copy ??= { ...node };
    copy[key] = value;
  };
  const pattern = node['pattern'];
  if (typeof pattern === 'string') {
    const compiled = compileRe2(pattern);
    if (compiled !== undefined) {
      checks.push({ path, pattern, matches: compiled });
      copy ??= { ...node };
      delete copy['pattern'];
    }
  }
  const properties = node['properties'];
  if (isObject(properties)) {
    let changed = false;
    const next: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(properties)) {
      const out = strip(sub, [...path, key], checks);
      if (out !== sub) changed = true;
      Object.defineProperty(next, key, {
        value: out,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (changed) set('properties', next);
  }
  const items = node['items'];
  if (isObject(items)) {
    const out = strip(items, [...path, '*'], checks);
    if (out !== items) set('items', out);
  }
  return copy ?? node;
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

/** The first pattern still in `node` that a backtracking engine could stall on. */
function riskyPattern(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = riskyPattern(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'pattern' && typeof value === 'string' && !isLinearSafe(value)) return value;
    if (key === 'patternProperties' && isObject(value)) {
      const bad = Object.keys(value).find((name) => !isLinearSafe(name));
      if (bad !== undefined) return bad;
    }
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    const found = riskyPattern(value);
    if (found !== undefined) return found;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
