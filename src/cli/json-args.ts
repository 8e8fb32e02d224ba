/**
 * Arguments of `call`: text that starts with `{` or `[` is JSON and nothing
 * else, so a typo is reported where it is (line, column, the offending
 * text) instead of being read as ActionInput text and refused for a
 * missing field.
 */
import { parseActionInput } from '../executor/action-input.js';
import { CliError, EXIT_CODES } from './exit-codes.js';

/** Where and why a JSON text stops being JSON. */
export interface JsonSyntaxIssue {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units of that line. */
  readonly column: number;
  /** 0-based offset into the text. */
  readonly offset: number;
  /** What the grammar wanted there, e.g. `a value`, `',' or '}'`. */
  readonly expected: string;
  /** The text found there, e.g. `"hi"`, or `end of input`. */
  readonly found: string;
}

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
    const issue = findJsonSyntaxError(text);
    if (issue === undefined) {
      throw new CliError(EXIT_CODES.usage, `invalid JSON arguments: ${String(error)}`);
    }
    // Argument values may be secrets (a password, a token, read from stdin):
    // the line is shown with the contents of its string values left out.
    const shown = hideStringValues(text.split(/\r\n|\r|\n/)[issue.line - 1] ?? '', issue.column);
    throw new CliError(
      EXIT_CODES.usage,
      `invalid JSON arguments at line ${issue.line}, column ${issue.column}: expected ${issue.expected}, found ${issue.found}`,
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
 * of each string value replaced by `…`, and `column` (1-based) moved to
 * where the same character, or the `…` that stands for it, is shown.
 * Property names are kept: they say where the error is and are not secret.
 */
export function hideStringValues(line: string, column: number): { line: string; column: number } {
  let out = '';
  let shownColumn = column;
  let at = 0;
  while (at < line.length) {
    if (line[at] !== '"') {
      out += line[at];
      at += 1;
      continue;
    }
    let end = at + 1;
    while (end < line.length && line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
    const closed = end < line.length;
    const next = closed ? end + 1 : line.length;
    const isName = /^\s*:/.test(line.slice(next));
    const original = line.slice(at, next);
    const shown = isName || next - at <= 2 ? original : `"…${closed ? '"' : ''}`;
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

/** Ends the scan at the first error; caught inside `findJsonSyntaxError`. */
class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
    /** What to name as found, when the text there must not be quoted. */
    readonly found?: string,
  ) {
    super(`expected ${expected} at ${offset}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const TOKEN = /[^\s,:{}[\]"]+/y;

/**
 * The first place where `text` breaks the JSON grammar, or `undefined` for
 * valid JSON. Written out because Node 20's `JSON.parse` messages do not
 * always give a position.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxIssue | undefined {
  let at = 0;
  const space = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at] ?? '')) at += 1;
  };
  const expect = (char: string, what: string): void => {
    space();
    if (text[at] !== char) throw new Stop(at, what);
    at += 1;
  };
  const string = (): void => {
    at += 1; // the opening quote
    for (;;) {
      const char = text[at];
      if (char === undefined) throw new Stop(at, "a closing '\"'");
      if (char === '"') break;
      if (char.charCodeAt(0) < 0x20) throw new Stop(at, 'no control character in a string');
      if (char === '\\') {
        const escape = text[at + 1] ?? '';
        if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) at += 6;
        else if (escape !== '' && '"\\/bfnrt'.includes(escape)) at += 2;
        // Only the escape: the rest of the string may be a secret.
        else
          throw new Stop(
            at,
            'a valid escape such as \\n or \\u00e9',
            JSON.stringify(text.slice(at, at + 2)),
          );
      } else {
        at += 1;
      }
    }
    at += 1;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') {
      at += 1;
      space();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        space();
        if (text[at] !== '"') throw new Stop(at, 'a property name in double quotes');
        string();
        expect(':', "':'");
        value();
        space();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return;
        } else throw new Stop(at, "',' or '}'");
      }
    }
    if (char === '[') {
      at += 1;
      space();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return;
        } else throw new Stop(at, "',' or ']'");
      }
    }
    if (char === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return;
      }
    }
    NUMBER.lastIndex = at;
    if (char !== undefined && NUMBER.test(text)) {
      at = NUMBER.lastIndex;
      return;
    }
    throw new Stop(at, 'a value');
  };
  try {
    value();
    space();
    if (at < text.length) throw new Stop(at, 'the end of the JSON text');
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    return issueAt(text, error);
  }
}

function issueAt(text: string, stop: Stop): JsonSyntaxIssue {
  const before = text.slice(0, stop.offset);
  const lines = before.split(/\r\n|\r|\n/);
  const column = (lines[lines.length - 1] ?? '').length + 1;
  return {
    line: lines.length,
    column,
    offset: stop.offset,
    expected: stop.expected,
    found: stop.found ?? foundAt(text, stop.offset),
  };
}

function foundAt(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input';
  TOKEN.lastIndex = offset;
  const token = TOKEN.exec(text)?.[0] ?? text[offset] ?? '';
  return JSON.stringify(token.length > 20 ? `${token.slice(0, 20)}…` : token);
}
