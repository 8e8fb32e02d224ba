/**
 * `pattern` handling. JSON Schema patterns are ECMA-262 regular expressions
 * read with Unicode semantics (`u` flag, as @cfworker/json-schema compiles
 * them). This module decides whether a pattern is usable at all, repairing
 * legacy identity escapes that only the non-`u` grammar accepts.
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

function compiles(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}
