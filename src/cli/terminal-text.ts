/**
 * Text the CLI prints for people, made safe for a terminal. A server's
 * names, descriptions, schemas, messages and results, and a config's
 * values, can hold control sequences that a terminal obeys rather than
 * shows (ESC[8m hides text, OSC 52 writes the clipboard, cursor movement
 * erases a line and forges another) and bidi controls that show text in
 * another order than it is. Each of them is written out visibly instead
 * (`\x1b`, `\u202e`), so a person sees that it was there.
 *
 * Only text mode needs this: `--json` output is JSON, whose strings escape
 * every C0 control.
 */

/** Control characters (C0, DEL, C1), and the bidi marks, embeddings, overrides and isolates. */
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** The same, except the line feed and the tab. */
const UNSAFE_KEEPING_LINES = /(?![\n\t])[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` for one line of the terminal: every control character (line
 * breaks and tabs included) and bidi control written as its escape.
 *
 * @example
 * terminalLine('read_file\x1b[8m'); // 'read_file\\x1b[8m'
 */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * `text` that may span lines (a tool's result): its line feeds (a CRLF
 * counts as one) and tabs kept, every other control character and bidi
 * control written as its escape.
 */
export function terminalLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_KEEPING_LINES, visible);
}

function visible(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
