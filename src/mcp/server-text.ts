/**
 * Text that an MCP server chose (tool names, descriptions, titles, error
 * reasons) reaches the system prompt. It is data, never structure: these
 * helpers put it on one line, strip what a reader cannot see, mask the
 * server's secrets in what is left, and bound it.
 */
import { maskedHead } from '../core/errors.js';
import { sliceSafe, toWellFormed } from '../core/well-formed.js';

/** Longest unavailable reason rendered in the prompt. */
export const MAX_REASON_LENGTH = 300;

/**
 * What masks a server's secrets in its text: its `SecretRedactor`, or the
 * route that holds one.
 */
export interface TextMasker {
  redact(text: string): string;
}

/** What masks a server's text, and whether it masks anything at all (a `SecretRedactor` is one). */
export interface ServerTextMasker extends TextMasker {
  readonly hasSecrets: boolean;
}

/**
 * Line breaks of every kind and other control characters (C0, DEL, C1)
 * become a space.
 */
const CONTROL_OR_SEPARATOR = /[\p{Cc}\p{Zl}\p{Zp}]/gu;

/**
 * What a reader cannot see is removed: format characters (bidi overrides
 * and isolates, zero-width characters, the BOM, tag characters) and every
 * other default-ignorable code point (variation selectors, the combining
 * grapheme joiner, Hangul fillers), which can carry text a model reads and
 * a person reviewing the prompt does not see. One exception: a single
 * VS15 or VS16 right after a pictograph stays, as it only chooses text or
 * emoji presentation (`❤️`); a second one, or one anywhere else, goes
 * (after a digit, `#` or `*` too, which `\p{Emoji}` counts: a selector
 * after each digit could carry text).
 */
const INVISIBLE =
  /(?<!\p{Extended_Pictographic})[\uFE0E\uFE0F]|(?![\uFE0E\uFE0F])[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * `text` on one line, without control or invisible characters, white
 * space collapsed, lone surrogates replaced by U+FFFD, at most `maxLength`
 * characters (cut with an ellipsis that says how long the text was, never
 * inside a surrogate pair).
 *
 * With `masker`, the server's secrets are masked before the text is
 * cleaned (a secret that holds a line break or an invisible character
 * itself) and again after (a secret split by invisible characters, which
 * cleaning joins up again), and before the cut, which could leave only
 * part of a secret for the masker to find.
 */
export function serverTextLine(text: string, maxLength: number, masker?: TextMasker): string {
  const clean = (part: string): string =>
    masker === undefined ? cleanLine(part) : masker.redact(cleanLine(masker.redact(part)));
  // Megabytes of it are not all cleaned and masked to show a line of them.
  const head = maskedHead(text, clean, maxLength);
  const line = head ?? clean(text);
  if (head === undefined && line.length <= maxLength) return line;
  const note = ` … (${head === undefined ? line.length : text.length} characters, cut)`;
  // A limit too short for the note gets the text cut with a bare ellipsis.
  if (note.length > maxLength) return `${sliceSafe(line, 0, Math.max(0, maxLength - 1))}…`;
  return `${sliceSafe(line, 0, maxLength - note.length).trimEnd()}${note}`;
}

function cleanLine(text: string): string {
  return toWellFormed(text)
    .replace(INVISIBLE, '')
    .replace(CONTROL_OR_SEPARATOR, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
