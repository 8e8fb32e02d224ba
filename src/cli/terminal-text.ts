/**
 * Text the CLI prints for people, made safe for a terminal. A server's
 * names, descriptions, schemas, messages and results, and a config's
 * values, can hold control sequences that a terminal obeys rather than
 * shows (ESC[8m hides text, OSC 52 writes the clipboard, cursor movement
 * erases a line and forges another), bidi controls that show text in
 * another order than it is, and invisible characters that carry text a
 * person does not see. Each of them is written out visibly instead
 * (`\x1b`, `\u202e`, `\u{e0041}`), so a person sees that it was there.
 *
 * `--json` output is JSON: {@link terminalJson} writes every such
 * character of its strings as a `\u` escape, which JSON reads back as the
 * same character (`JSON.stringify` escapes only the C0 controls).
 */

/**
 * What a terminal does not show: format characters (bidi marks and
 * overrides, zero-width characters, tag characters) and other
 * default-ignorable code points, which can carry text a model reads and a
 * person at the terminal does not see. An emoji's own joiners stay: a
 * zero-width joiner between two pictographs (👨‍👩‍👧) and one variation
 * selector right after a pictograph (❤️).
 */
const INVISIBLE = [
  '(?<!\\p{Extended_Pictographic}\\uFE0F?)\\u200D',
  '\\u200D(?!\\p{Extended_Pictographic})',
  '(?<!\\p{Extended_Pictographic})(?:\\uFE0E|\\uFE0F)',
  '(?!\\u200D|\\uFE0E|\\uFE0F)[\\p{Cf}\\p{Default_Ignorable_Code_Point}]',
].join('|');

/** Control characters (C0, DEL, C1), line and paragraph separators, and the invisible. */
const UNSAFE = new RegExp(`[\\p{Cc}\\p{Zl}\\p{Zp}]|${INVISIBLE}`, 'gu');

/** The same, except the line feed and the tab. */
const UNSAFE_KEEPING_LINES = new RegExp(`(?![\\n\\t])[\\p{Cc}\\p{Zl}\\p{Zp}]|${INVISIBLE}`, 'gu');

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

/** The same, except the line feed and the space: JSON's own layout. */
const UNSAFE_IN_JSON = new RegExp(`(?![\\n ])[\\p{Cc}\\p{Zl}\\p{Zp}]|${INVISIBLE}`, 'gu');

/**
 * `value` as indented JSON that a terminal shows as it is: the controls,
 * separators and invisible characters `JSON.stringify` leaves raw (DEL,
 * C1 controls such as U+009B, line separators, bidi overrides, tag
 * characters) written as `\u` escapes. It parses to the same value.
 */
export function terminalJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(UNSAFE_IN_JSON, jsonEscape);
}

/** Each UTF-16 unit of `character` as a JSON `\u` escape. */
function jsonEscape(character: string): string {
  let escaped = '';
  for (let index = 0; index < character.length; index++) {
    escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  return escaped;
}

function visible(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}
