/**
 * Patterns usable with the `u` flag and run in linear time. The validator
 * runs those that cannot backtrack badly, with ECMA-262's meaning; one that
 * could (`^(a+)+$` can take minutes) is checked with RE2 (`re2js`) on a
 * plain path (nested `properties` and `items`), and refused elsewhere.
 */
import { RE2JS } from 're2js';
import { describeValue, subjectOf, type ArgumentProblem } from './issues.js';
import { isJsonRecord, type JsonRecord } from '../../core/json.js';
import { SchemaProblem } from './json.js';

/** A step of a {@link PatternCheck} path that means every array item (no property name can be it). */
export const EVERY_ITEM = Symbol('every item');

/** One pattern checked with RE2: `path` is where the strings are. */
export interface PatternCheck {
  readonly path: readonly (string | typeof EVERY_ITEM)[];
  readonly pattern: string;
  readonly re2: RE2JS;
}

/**
 * Which patterns of `schema` RE2 checks (the validator's copy must then drop
 * them from the `taken` objects); `patterned` are its schema objects with a
 * `pattern` or `patternProperties` (a survey's).
 * @throws SchemaProblem naming a pattern left with the validator that could backtrack badly.
 */
export function planPatterns(
  schema: unknown,
  patterned: readonly JsonRecord[],
): { checks: PatternCheck[]; taken: Set<JsonRecord> } {
  const checks: PatternCheck[] = [];
  const taken = new Set<JsonRecord>();
  if (patterned.length === 0) return { checks, taken };
  const plain = (node: unknown, path: PatternCheck['path']): void => {
    if (!isJsonRecord(node)) return;
    const { pattern, properties, items } = node;
    // Only a pattern that could backtrack badly: RE2 reads `\s` and `.` a little unlike ECMA-262.
    const risky = typeof pattern === 'string' && !isLinearSafe(pattern);
    const re2 = risky ? compileRe2(pattern) : undefined;
    if (re2 !== undefined) {
      checks.push({ path, pattern: pattern as string, re2 });
      taken.add(node);
    }
    for (const [key, sub] of Object.entries(isJsonRecord(properties) ? properties : {})) {
      plain(sub, [...path, key]);
    }
    plain(items, [...path, EVERY_ITEM]);
  };
  plain(schema, []);
  for (const node of patterned) {
    const { pattern, patternProperties } = node;
    const left = typeof pattern === 'string' && !taken.has(node) ? [pattern] : [];
    if (isJsonRecord(patternProperties)) left.push(...Object.keys(patternProperties));
    assertLinearSafe(left);
  }
  return { checks, taken };
}

/**
 * @throws SchemaProblem naming the first of `patterns` that could
 *   backtrack badly: one left with the validator must not.
 */
export function assertLinearSafe(patterns: readonly string[]): void {
  const risky = patterns.find((source) => !isLinearSafe(source));
  if (risky !== undefined) {
    throw new SchemaProblem(
      `pattern ${JSON.stringify(risky)} could take exponential time on a backtracking engine (a repeated group that repeats or alternates inside, or a back-reference), and is not where it can be checked in linear time`,
    );
  }
}

function compileRe2(pattern: string): RE2JS | undefined {
  try {
    return RE2JS.compile(pattern);
  } catch {
    return undefined; // e.g. a look-ahead: left with the validator, if it is linear-safe
  }
}

/** A problem for every string on a check's path that its pattern does not match (anywhere in it). */
export function patternProblems(
  checks: readonly PatternCheck[],
  value: unknown,
): ArgumentProblem[] {
  const problems: ArgumentProblem[] = [];
  const visit = (check: PatternCheck, node: unknown, path: (string | number)[]): void => {
    const head = check.path[path.length];
    if (head === undefined) {
      if (typeof node !== 'string' || check.re2.matcher(node).find()) return;
      const message = `${subjectOf(path)} must match /${check.pattern}/u; received ${describeValue(node)}`;
      problems.push({ path, keyword: 'pattern', message });
    } else if (head !== EVERY_ITEM) {
      if (isJsonRecord(node) && Object.hasOwn(node, head))
        visit(check, node[head], [...path, head]);
    } else if (Array.isArray(node)) node.forEach((item, i) => visit(check, item, [...path, i]));
  };
  for (const check of checks) visit(check, value, []);
  return problems;
}

/**
 * True when a backtracking engine runs `pattern` without exponential blow-up:
 * no back-reference, and no quantified group that contains a quantifier or
 * an alternation (star height one). Conservative: it may refuse a safe pattern.
 */
export function isLinearSafe(pattern: string): boolean {
  /** For each open group: does it repeat or alternate inside? */
  const groups = [false];
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char === '\\') {
      if (/[1-9k]/.test(pattern[i + 1] ?? '')) return false;
      i += 1;
    } else if (inClass) {
      inClass = char !== ']';
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      groups.push(false);
    } else if (char === ')') {
      const repeats = groups.length > 1 ? groups.pop() === true : false;
      const quantified = isQuantifier(pattern, i + 1);
      if (quantified && repeats) return false;
      if (quantified || repeats) groups[groups.length - 1] = true;
    } else if (char === '|' || isQuantifier(pattern, i)) {
      groups[groups.length - 1] = true;
    }
  }
  return true;
}

/** A quantifier that repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1) starts at `index`. */
function isQuantifier(pattern: string, index: number): boolean {
  const char = pattern[index];
  if (char === '*' || char === '+') return true;
  const match = char === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index)) : null;
  if (match === null) return false;
  return match[2] === undefined ? Number(match[1]) > 1 : match[3] === '' || Number(match[3]) > 1;
}

/** Characters that keep their escape in Unicode mode; other escapes are legacy identity escapes. */
const UNICODE_ESCAPABLE = new Set('^$\\.*+?()[]{}|/');

/**
 * The pattern in a form the `u`-flag grammar accepts, or `undefined`. A
 * needless escape (`\_`, `\@`), which other languages allow, means the bare
 * character, so its backslash is dropped.
 */
export function unicodePattern(pattern: string): string | undefined {
  if (compiles(pattern)) return pattern;
  let repaired = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    const next = pattern[i + 1];
    if (char === '\\') {
      if (next === undefined) return undefined;
      i++;
      const keep =
        /[A-Za-z0-9]/.test(next) || UNICODE_ESCAPABLE.has(next) || (inClass && next === '-');
      repaired += keep ? `\\${next}` : next;
      continue;
    }
    if (char === '[' || char === ']') inClass = char === '[';
    repaired += char;
  }
  return compiles(repaired) ? repaired : undefined;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}
