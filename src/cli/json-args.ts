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
 * parseCallArguments('{"message": hi'); // throws: line 1, column 13: expected a value, found "hi"
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
    const found = issue.found.startsWith(`"'`)
      ? 'a single-quoted string (JSON strings take double quotes)'
      : issue.found;
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
 * `line` (one line of JSON text, up to its first error) with the contents
 * of each string value (double-quoted, or single-quoted by mistake)
 * replaced by `…`, and `column` (1-based) moved to
 * where the same character, or the `…` that stands for it, is shown.
 * Property names are kept: they say where the error is and are not secret.
 */
export function hideStringValues(line: string, column: number): { line: string; column: number } {
  let out = '';
  let shownColumn = column;
  let at = 0;
  while (at < line.length) {
    const quote = line[at];
    if (quote !== '"' && quote !== "'") {
      out += line[at];
      at += 1;
      continue;
    }
    let end = at + 1;
    while (end < line.length && line[end] !== quote) end += line[end] === '\\' ? 2 : 1;
    const closed = end < line.length;
    const next = closed ? end + 1 : line.length;
    const isName = /^\s*:/.test(line.slice(next));
    const original = line.slice(at, next);
    const shown = isName || next - at <= 2 ? original : `${quote}…${closed ? quote : ''}`;
    // The error inside this string: point at its quote, or at the `…`.
    if (column - 1 >= at && column - 1 < next) {
      const inside = column - 1 - at;
      shownColumn = out.length + 1 + (shown === original ? inside : Math.min(inside, 1));
    } else if (column - 1 >= next) {
      shownColumn += shown.length - original.length;
    }
    out += shown;
    at = next;
  }
  return { line: out, column: shownColumn };
}
