/**
 * `pattern` handling. JSON Schema patterns are ECMA-262 regular expressions
 * read with Unicode semantics (`u` flag, as @cfworker/json-schema compiles
 * them); zod's converter compiles them without the flag. This module decides
 * whether a pattern is usable at all and whether the two readings agree.
 */

/**
 * Characters that keep their escape in Unicode mode. Everything else after a
 * backslash is an identity escape that only the legacy (non-`u`) grammar
 * accepts, and there it means the character itself.
 */
const UNICODE_ESCAPABLE = new Set('^$\\.*+?()[]{}|/');

/**
 * The pattern in a form the `u`-flag grammar accepts, or `undefined` when
 * there is none. Servers written in other languages often escape characters
 * that need no escape (`\_`, `\@`, `\-` outside a class); in the legacy
 * grammar those mean the bare character, so dropping the backslash keeps the
 * meaning the server intended.
 */
export function unicodePattern(pattern: string): string | undefined {
  if (compiles(pattern, 'u')) return pattern;
  let repaired = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return undefined;
      i++;
      const keep =
        /[A-Za-z0-9]/.test(next) || UNICODE_ESCAPABLE.has(next) || (inClass && next === '-');
      repaired += keep ? `\\${next}` : next;
      continue;
    }
    if (char === '[' && !inClass) inClass = true;
    else if (char === ']' && inClass) inClass = false;
    repaired += char;
  }
  return compiles(repaired, 'u') ? repaired : undefined;
}

/**
 * True when the pattern matches the same strings with and without the `u`
 * flag, judged conservatively from its text: ASCII only, and none of the
 * constructs whose reach depends on the mode — `.`, negated classes,
 * `\S` `\W` `\D` `\B`, Unicode property and code-point escapes, `\u` and `\c`
 * escapes. Without those every atom matches one BMP code unit in both modes.
 */
export function isModeIndependentPattern(pattern: string): boolean {
  if (!compiles(pattern, '')) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char.charCodeAt(0) > 0x7f) return false;
    if (char === '\\') {
      const next = pattern[i + 1] ?? '';
      if ('SWDBpPuc'.includes(next)) return false;
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '.') return false;
    if (char === '[') {
      if (pattern[i + 1] === '^') return false;
      inClass = true;
    }
  }
  return true;
}

function compiles(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}
