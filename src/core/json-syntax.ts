/**
 * Where a text stops being JSON: line, column and what the grammar wanted
 * there, for messages that must not quote the text (a model's tool-call
 * arguments, a user's `call` arguments may hold secrets). `JSON.parse`'s
 * own messages quote a fragment of the text, and in Node 20 do not always
 * give a position.
 */

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
  /** An object's or an array's members, from its opening bracket to `close`. */
  const members = (close: '}' | ']', member: () => void): void => {
    at += 1;
    space();
    if (text[at] === close) {
      at += 1;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[at] === ',') at += 1;
      else if (text[at] === close) {
        at += 1;
        return;
      } else throw new Stop(at, `',' or '${close}'`);
    }
  };
  const property = (): void => {
    space();
    if (text[at] !== '"') throw new Stop(at, 'a property name in double quotes');
    string();
    expect(':', "':'");
    value();
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return members('}', property);
    if (char === '[') return members(']', value);
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

/**
 * ` at line L, column C: expected …` for text `JSON.parse` refused (never
 * what was found there, which may be a secret), `tooDeep` for text nested
 * past the stack (the scan recurses per level), or nothing when it cannot say.
 */
export function syntaxErrorPlace(text: string, tooDeep = ''): string {
  let issue: JsonSyntaxIssue | undefined;
  try {
    issue = findJsonSyntaxError(text);
  } catch {
    return tooDeep;
  }
  return issue === undefined
    ? ''
    : ` at line ${issue.line}, column ${issue.column}: expected ${issue.expected}`;
}
