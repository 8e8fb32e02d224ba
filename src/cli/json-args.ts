/**
 * Arguments of `call`: text that starts with `{` or `[` is JSON and nothing
 * else, so a typo is reported where it is (line, column, the offending
 * text) instead of being read as ActionInput text and refused for a
 * missing field.
 */
import { parseActionInput } from '../executor/action-input.js';
import { findJsonSyntaxError, type JsonSyntaxIssue } from '../core/json-syntax.js';
import { CliError, EXIT_CODES } from './exit-codes.js';

export { findJsonSyntaxError, type JsonSyntaxIssue } from '../core/json-syntax.js';

/**
 * The arguments of `call` as an object: JSON when `text` starts with `{` or
 * `[` (after white space), ActionInput text otherwise.
 *
 * @throws CliError (exit 2) for JSON that does not parse, with line, column
 * and the offending text, or that is not an object.
 * @example
 * parseCallArguments('{"message": "hi"}'); // { message: 'hi' }
 * parseCallArguments('message: hi'); // { message: 'hi' }
 * parseCallArguments('{"message": hi'); // throws: line 1, column 13: expected a value, found a value without quotes …
 */
export function parseCallArguments(text: string): Record<string, unknown> {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return parseActionInput(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    let issue: JsonSyntaxIssue | undefined;
    try {
      issue = findJsonSyntaxError(text);
    } catch {
      // The scan recurses per level: text nested past the stack has no position to give.
      throw new CliError(
        EXIT_CODES.usage,
        'invalid JSON arguments: nested too deeply to say where (the tool was not called)',
      );
    }
    if (issue === undefined) {
      throw new CliError(EXIT_CODES.usage, `invalid JSON arguments: ${String(error)}`);
    }
    // Argument values may be secrets (a password, a token, read from stdin):
    // the line is shown with the contents of its string values left out,
    // single-quoted ones (a common slip) too.
    const shown = hideStringValues(text.split(/\r\n|\r|\n/)[issue.line - 1] ?? '', issue.column);
    const found = foundValue(issue, text);
    throw new CliError(
      EXIT_CODES.usage,
      `invalid JSON arguments at line ${issue.line}, column ${issue.column}: expected ${issue.expected}, found ${found}`,
      { details: [`  ${shown.line}`, `  ${' '.repeat(shown.column - 1)}^`] },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    throw new CliError(
      EXIT_CODES.usage,
      `JSON arguments must be an object such as {"name": "value"}, not ${kind}`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * What the error found, as the message says it: a value quoted by mistake
 * or not at all may be a secret, and is named by its kind only, also when
 * the error falls inside it (`3f9a…` is read as `3` then `f9a…`).
 */
function foundValue(issue: JsonSyntaxIssue, text: string): string {
  let token: unknown;
  try {
    token = JSON.parse(issue.found);
  } catch {
    return issue.found; // `end of input`
  }
  if (typeof token !== 'string') return issue.found;
  // After a number or literal the grammar wanted a `,`: a word going on there is one value.
  const afterValue = issue.expected.startsWith("','");
  if (afterValue && UNQUOTED.test(text[issue.offset - 1] ?? '') && UNQUOTED.test(token[0] ?? '')) {
    return 'the rest of a value without quotes (JSON strings take double quotes)';
  }
  if (token.startsWith("'")) return 'a single-quoted string (JSON strings take double quotes)';
  if (token.startsWith('`')) return 'a string in backticks (JSON strings take double quotes)';
  if (issue.expected !== 'a value') return issue.found;
  if (/^[^\s{}[\]:,"]/.test(token) && !LITERAL_START.test(token.replace(/…$/, ''))) {
    return 'a value without quotes (JSON strings take double quotes)';
  }
  return issue.found;
}

/** A character of a value written without quotes. */
const UNQUOTED = /^[^\s{}[\]:,"'`]$/;

/** What quotes a string value, by JSON's rule or by mistake. */
const QUOTES = `"'\``;

/** A run of characters of a value written without quotes, read from `lastIndex`. */
const WORD = /[^\s{}[\]:,"'`]+/y;

/** Whether a `:` follows `at` (white space aside): what ends there is a property name. */
function isNameAt(line: string, at: number): boolean {
  NAME_END.lastIndex = at;
  return NAME_END.test(line);
}
const NAME_END = /\s*:/y;

/** A value JSON writes without quotes, or the start of one: not hidden. */
const LITERAL_START = /^(-?\d[\d.eE+-]*|t(r(ue?)?)?|f(a(l(se?)?)?)?|n(u(ll?)?)?)$/;

/**
 * `line` (one line of JSON text, up to its first error) with the contents
 * of each string value replaced by `…` (double-quoted, or quoted with `'`
 * or a backtick by mistake), and so each value written without quotes
 * (`{"token": ghp_…}`) but for `true`, `false`, `null`, a number or the
 * start of one; `column` (1-based) is moved to where the same character,
 * or the `…` that stands for it, is shown. Property names are kept: they
 * say where the error is and are not secret.
 */
export function hideStringValues(line: string, column: number): { line: string; column: number } {
  let out = '';
  let shownColumn = column;
  let at = 0;
  /** Whether what was put out so far ends where a value may start (`:`, `[`, `,` or nothing). */
  let valueMayStart = true;
  /** Puts `original` (from `at` to `next`) out as `shown`, and moves the column with it. */
  const emit = (original: string, shown: string, next: number, pointAt: number): void => {
    if (column - 1 >= at && column - 1 < next) {
      const inside = column - 1 - at;
      shownColumn = out.length + 1 + (shown === original ? inside : Math.min(inside, pointAt));
    } else if (column - 1 >= next) {
      shownColumn += shown.length - original.length;
    }
    out += shown;
    at = next;
  };
  while (at < line.length) {
    const quote = line[at]!;
    if (QUOTES.includes(quote)) {
      let end = at + 1;
      while (end < line.length && line[end] !== quote) end += line[end] === '\\' ? 2 : 1;
      const closed = end < line.length;
      const next = closed ? end + 1 : line.length;
      const isName = isNameAt(line, next);
      const original = line.slice(at, next);
      const shown = isName || next - at <= 2 ? original : `${quote}…${closed ? quote : ''}`;
      // The error inside this string: point at its quote, or at the `…`.
      emit(original, shown, next, 1);
      valueMayStart = false;
      continue;
    }
    WORD.lastIndex = at;
    const word = WORD.exec(line)?.[0];
    const isName = word !== undefined && isNameAt(line, at + word.length);
    if (word !== undefined && !isName && valueMayStart && !LITERAL_START.test(word)) {
      emit(word, '…', at + word.length, 0);
      valueMayStart = false;
      continue;
    }
    // A value starts after `:`, `[` or `,` (white space aside), and at the start.
    if (!/\s/.test(quote)) valueMayStart = quote === ':' || quote === '[' || quote === ',';
    out += quote;
    at += 1;
  }
  return { line: out, column: shownColumn };
}
