/**
 * Text that an MCP server chose (tool names, descriptions, titles, error
 * reasons) reaches the system prompt. It is data, never structure: these
 * helpers put it on one line, strip what a reader cannot see, and bound it.
 */

/** Longest unavailable reason rendered in the prompt. */
export const MAX_REASON_LENGTH = 300;

/**
 * Line breaks of every kind and other control characters (C0, DEL, C1)
 * become a space; invisible format characters (bidi overrides and
 * isolates, zero-width characters, the BOM) are removed, so nothing the
 * model reads differs from what a person reviewing the prompt sees.
 */
const CONTROL_OR_SEPARATOR = /[\p{Cc}\p{Zl}\p{Zp}]/gu;
const FORMAT = /\p{Cf}/gu;

/**
 * `text` on one line, without control or format characters, white space
 * collapsed, at most `maxLength` characters (cut with an ellipsis that says
 * how long the text was).
 */
export function serverTextLine(text: string, maxLength: number): string {
  const line = text
    .replace(FORMAT, '')
    .replace(CONTROL_OR_SEPARATOR, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (line.length <= maxLength) return line;
  const note = ` … (${line.length} characters, cut)`;
  // A limit too short for the note gets the text cut with a bare ellipsis.
  if (note.length > maxLength) return `${line.slice(0, Math.max(0, maxLength - 1))}…`;
  return `${line.slice(0, maxLength - note.length).trimEnd()}${note}`;
}
