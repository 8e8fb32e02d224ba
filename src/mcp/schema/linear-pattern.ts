/**
 * A server's `pattern` (ECMA-262, `u` flag) as an RE2 program (`re2js`):
 * matching takes time linear in the string, whatever the pattern. The
 * pattern is first rewritten where RE2 reads the same text differently
 * (`\s`, `.`, `\u` escapes, …), so the verdict is ECMA-262's.
 */
import { RE2JS } from 're2js';

/** ECMA-262 WhiteSpace and LineTerminator: what `\s` means (RE2's `\s` is ASCII only). */
const SPACE =
  '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** Every code point but {@link SPACE}: `\S`, written as ranges so it also fits inside a class. */
const NOT_SPACE =
  '\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}';
/** What `.` matches without the `s` flag: anything but a line terminator (RE2's `.` takes `\r`). */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/**
 * A pattern compiled for RE2, or why it cannot be: `inherent` when no
 * linear-time engine has what it uses (a back-reference, a look-around, a
 * count above RE2's 1,000), else a spelling RE2 does not read.
 */
export type LinearPattern =
  { readonly re2: LinearMatcher } | { readonly unsupported: string; readonly inherent: boolean };

/** What checks a string against a compiled pattern: RE2's own program, or several that must all match. */
export interface LinearMatcher {
  matcher(text: string): { find(): boolean };
  programSize(): number;
}

/**
 * ECMA-262's long names and aliases of the general categories, as RE2
 * names them (it reads only the short ones, which ECMA-262 reads too).
 */
const GENERAL_CATEGORIES: ReadonlyMap<string, string> = new Map([
  ['Letter', 'L'],
  ['Cased_Letter', 'LC'],
  ['Uppercase_Letter', 'Lu'],
  ['Lowercase_Letter', 'Ll'],
  ['Titlecase_Letter', 'Lt'],
  ['Modifier_Letter', 'Lm'],
  ['Other_Letter', 'Lo'],
  ['Mark', 'M'],
  ['Combining_Mark', 'M'],
  ['Nonspacing_Mark', 'Mn'],
  ['Spacing_Mark', 'Mc'],
  ['Enclosing_Mark', 'Me'],
  ['Number', 'N'],
  ['Decimal_Number', 'Nd'],
  ['digit', 'Nd'],
  ['Letter_Number', 'Nl'],
  ['Other_Number', 'No'],
  ['Punctuation', 'P'],
  ['punct', 'P'],
  ['Connector_Punctuation', 'Pc'],
  ['Dash_Punctuation', 'Pd'],
  ['Open_Punctuation', 'Ps'],
  ['Close_Punctuation', 'Pe'],
  ['Initial_Punctuation', 'Pi'],
  ['Final_Punctuation', 'Pf'],
  ['Other_Punctuation', 'Po'],
  ['Symbol', 'S'],
  ['Math_Symbol', 'Sm'],
  ['Currency_Symbol', 'Sc'],
  ['Modifier_Symbol', 'Sk'],
  ['Other_Symbol', 'So'],
  ['Separator', 'Z'],
  ['Space_Separator', 'Zs'],
  ['Line_Separator', 'Zl'],
  ['Paragraph_Separator', 'Zp'],
  ['Other', 'C'],
  ['Control', 'Cc'],
  ['cntrl', 'Cc'],
  ['Format', 'Cf'],
  ['Surrogate', 'Cs'],
  ['Private_Use', 'Co'],
  ['Unassigned', 'Cn'],
]);

/**
 * `pattern`, already valid with the `u` flag (see `unicodePattern`), as an
 * RE2 program with ECMA-262's meaning; `unsupported` says why not (a
 * back-reference or a look-around, which no linear-time engine has, or a
 * construct RE2 lacks, such as `\p{Script=…}`).
 */
export function compileLinear(pattern: string): LinearPattern {
  const translated = re2Syntax(pattern);
  if (typeof translated !== 'string') {
    return leadingLookaheads(pattern) ?? { unsupported: translated.unsupported, inherent: true };
  }
  try {
    return { re2: RE2JS.compile(translated) };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { unsupported: why, inherent: why.includes('invalid repeat count') };
  }
}

/**
 * A pattern that opens with positive look-aheads (`^(?=.*[A-Z])(?=.*\d).{8,}$`,
 * the usual password rule) as the patterns that must all match at the
 * start: each look-ahead's body, and the rest. Undefined for any other
 * shape (a look-ahead elsewhere, a negative one, an alternation at the top
 * level, which would take the `^` from the look-aheads), or when a part
 * has a look-around of its own.
 */
function leadingLookaheads(pattern: string): { readonly re2: LinearMatcher } | undefined {
  if (!pattern.startsWith('^') || hasTopLevelAlternation(pattern)) return undefined;
  const parts: string[] = [];
  let at = 1;
  while (pattern.startsWith('(?=', at)) {
    const end = closingParenthesis(pattern, at);
    if (end < 0) return undefined;
    parts.push(pattern.slice(at + 3, end));
    at = end + 1;
  }
  if (parts.length === 0) return undefined;
  parts.push(pattern.slice(at));
  const compiled: RE2JS[] = [];
  for (const part of parts) {
    const translated = re2Syntax(`^(?:${part})`);
    if (typeof translated !== 'string') return undefined;
    try {
      compiled.push(RE2JS.compile(translated));
    } catch {
      return undefined;
    }
  }
  return {
    re2: {
      matcher: (text) => ({ find: () => compiled.every((re2) => re2.matcher(text).find()) }),
      programSize: () => compiled.reduce((size, re2) => size + re2.programSize(), 0),
    },
  };
}

/** Where the group opening at `open` closes; -1 when it does not. */
function closingParenthesis(pattern: string, open: number): number {
  return scanGroups(pattern, open, (char, depth) => char === ')' && depth === 0);
}

/** Whether `pattern` has a `|` outside every group and class. */
function hasTopLevelAlternation(pattern: string): boolean {
  return scanGroups(pattern, 0, (char, depth) => char === '|' && depth === 0) >= 0;
}

/**
 * The first index from `from` whose character, outside classes and
 * escapes, `stop` accepts, told the depth of groups after it; -1 when none.
 */
function scanGroups(
  pattern: string,
  from: number,
  stop: (char: string, depth: number) => boolean,
): number {
  let depth = 0;
  let inClass = false;
  for (let i = from; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '\\') i += 1;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else {
      if (char === '(') depth += 1;
      else if (char === ')') depth -= 1;
      if (stop(char, depth)) return i;
    }
  }
  return -1;
}

/** `pattern` in RE2's syntax, token by token. */
function re2Syntax(pattern: string): string | { readonly unsupported: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? '';
    if (char === '\\') {
      const escape = escapeAt(pattern, i, inClass);
      if (typeof escape.text !== 'string') return { unsupported: escape.text.unsupported };
      out += escape.text;
      i = escape.end - 1;
    } else if (inClass) {
      if (char === ']') inClass = false;
      // RE2 reads `[:alpha:]` inside a class; ECMA-262 reads a plain `[`.
      out += char === '[' ? '\\[' : char;
    } else if (char === '[') {
      // `[]` matches nothing and `[^]` anything; RE2 reads neither.
      if (pattern.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10ffff}]';
        i += 1;
      } else if (pattern.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10ffff}]';
        i += 2;
      } else {
        inClass = true;
        out += char;
        if (pattern[i + 1] === '^') out += pattern[++i] ?? '';
      }
    } else if (char === '.') {
      out += DOT;
    } else if (char === '(' && /^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) {
      return { unsupported: 'a look-around' };
    } else out += char;
  }
  return out;
}

/** The escape at `index` in RE2's syntax, and where it ends. */
function escapeAt(
  pattern: string,
  index: number,
  inClass: boolean,
): { text: string | { unsupported: string }; end: number } {
  const next = pattern[index + 1] ?? '';
  const end = index + 2;
  const rest = pattern.slice(index);
  const codePoint = (hex: string, length: number): { text: string; end: number } => ({
    text: `\\x{${hex}}`,
    end: index + length,
  });
  const braced = /^\\u\{([0-9a-fA-F]+)\}/.exec(rest);
  if (braced?.[1] !== undefined) return codePoint(braced[1], braced[0].length);
  // With the `u` flag an escaped surrogate pair is one code point, as in the text.
  const pair = /^\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/i.exec(rest);
  if (pair?.[1] !== undefined && pair[2] !== undefined) {
    const high = Number.parseInt(pair[1], 16);
    const low = Number.parseInt(pair[2], 16);
    return codePoint((0x10000 + (high - 0xd800) * 0x400 + (low - 0xdc00)).toString(16), 12);
  }
  const fixed = /^\\u([0-9a-fA-F]{4})/.exec(rest);
  if (fixed?.[1] !== undefined) return codePoint(fixed[1], 6);
  const control = /^\\c([A-Za-z])/.exec(rest);
  if (control?.[1] !== undefined) {
    return codePoint(((control[1].codePointAt(0) ?? 0) % 32).toString(16), 3);
  }
  if (/[1-9k]/.test(next)) return { text: { unsupported: 'a back-reference' }, end };
  const property = /^\\([pP])\{(General_Category=|gc=|Script=|sc=)?([^}]*)\}/.exec(rest);
  if (property !== null) {
    const [whole, sign = 'p', kind, name = ''] = property;
    // A script keeps its name (RE2 reads the long ones); a category may be named long.
    const script = kind === 'Script=' || kind === 'sc=';
    const category = script ? undefined : GENERAL_CATEGORIES.get(name);
    if (kind === undefined && name === 'ASCII') {
      const ascii = sign === 'p' ? '\\x{0}-\\x{7f}' : '\\x{80}-\\x{10ffff}';
      return { text: inClass ? ascii : `[${ascii}]`, end: whole.length + index };
    }
    return { text: `\\${sign}{${category ?? name}}`, end: whole.length + index };
  }
  if (next === 's') return { text: inClass ? SPACE : `[${SPACE}]`, end };
  if (next === 'S') return { text: inClass ? NOT_SPACE : `[${NOT_SPACE}]`, end };
  if (next === 'v') return { text: '\\x{b}', end };
  if (next === '0') return { text: '\\x{0}', end };
  if (next === 'b' && inClass) return { text: '\\x{8}', end };
  return { text: `\\${next}`, end };
}

/** The longest pattern {@link hasNoChoice} accepts: its cost on a backtracking engine grows with it. */
const MAX_CHOICELESS_LENGTH = 256;

/**
 * True when a backtracking engine has nothing to backtrack over in
 * `pattern` (`u`-flag syntax): anchored at its start (`^`), no quantifier
 * but an exact `{n}`, no alternation, back-reference or look-around, and
 * at most 256 characters. It then makes one attempt, in time linear in the
 * string (`^x-`, `^[A-Z]{3}$`); such a pattern may stay where RE2 cannot
 * run it (a `patternProperties` key, under `not`). Unanchored, every start
 * is tried again, which costs the string's length times what the pattern
 * can consume.
 */
export function hasNoChoice(pattern: string): boolean {
  if (pattern.length > MAX_CHOICELESS_LENGTH || !pattern.startsWith('^')) return false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    const rest = pattern.slice(i);
    if (char === '\\') {
      if (/^\\[1-9k]/.test(rest)) return false;
      const braced = /^\\[pPu]\{[^}]*\}/.exec(rest);
      i += braced === null ? 1 : braced[0].length - 1;
    } else if (inClass) {
      inClass = char !== ']';
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(') {
      if (/^\(\?<?[=!]/.test(rest)) return false;
      const opening = /^\(\?(?::|<[^>]*>)/.exec(rest);
      if (opening !== null) i += opening[0].length - 1;
    } else if (char === '{') {
      const exact = /^\{\d+\}/.exec(rest);
      if (exact === null) return false;
      i += exact[0].length - 1;
    } else if (char === '|' || char === '*' || char === '+' || char === '?') {
      return false;
    }
  }
  return true;
}
