/**
 * Well-formed Unicode: text without a lone surrogate (half of a UTF-16
 * pair). Only such text has one UTF-8 form of its own: every lone
 * surrogate is written as U+FFFD, so `a\uD800` and `a\uDC00` hash, name
 * a file, or come back from Redis as the same text.
 */

/** ES2024's string methods, which Node 20 has and the ES2023 library does not declare. */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when `text` has no lone surrogate. */
export function isWellFormed(text: string): boolean {
  return (text as unknown as WellFormedString).isWellFormed();
}

/**
 * `text` with each lone surrogate replaced by U+FFFD, as its UTF-8 form
 * reads back. Text that is well-formed already, nearly all of it, is
 * returned as it is after the check: with cold caches, as a tool call's
 * result is read, the check costs a third of `toWellFormed` on such text.
 */
export function toWellFormed(text: string): string {
  const string = text as unknown as WellFormedString;
  return string.isWellFormed() ? text : string.toWellFormed();
}

/**
 * `text` in at most `max` characters: cut with `…` when longer, never
 * inside a surrogate pair (half of one makes text that providers refuse).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${sliceSafe(text, 0, Math.max(max - 1, 0)).trimEnd()}…`;
}

/** `slice` that never splits a UTF-16 surrogate pair (it drops the half instead). */
export function sliceSafe(text: string, start: number, end: number): string {
  let from = start;
  let to = end;
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--;
  return text.slice(from, Math.max(from, to));
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The number of characters of `text` as a reader counts them: Unicode
 * code points, not UTF-16 code units (`'😀'.length` is 2). A combining
 * mark is a code point of its own; a lone surrogate counts as one.
 */
export function characterCount(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        index++;
      }
    }
  }
  return count;
}
