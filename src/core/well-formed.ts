/**
 * Well-formed Unicode: text without a lone surrogate (half of a UTF-16
 * pair). Only such text has one UTF-8 form of its own: every lone
 * surrogate is written as U+FFFD, so `a\uD800` and `a\uDC00` hash, name
 * a file, or come back from Redis as the same text.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** True when `text` has no lone surrogate. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** `text` with each lone surrogate replaced by U+FFFD, as its UTF-8 form reads back. */
export function toWellFormed(text: string): string {
  return isWellFormed(text) ? text : text.replace(LONE_SURROGATES, '\uFFFD');
}
