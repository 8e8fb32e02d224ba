/**
 * How a message shows a value that a server (or any untrusted party) sent:
 * a string only when it is short and written as it is, so that secret
 * masking, which looks for a secret whole (see `SecretRedactor`), still
 * finds one in the message; anything else by its kind.
 */

/** Longest server string a message shows. */
const MAX_SHOWN_LENGTH = 60;

/**
 * Whether a server string may appear in a message: short, and written by
 * `JSON.stringify` as it is (no escape, no control, format or separator
 * character), so that it is shown whole and masking can still find a secret.
 */
export function isShowable(text: string): boolean {
  return (
    text.length <= MAX_SHOWN_LENGTH &&
    JSON.stringify(text) === `"${text}"` &&
    !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text)
  );
}

/**
 * A short, one-line account of a value a server sent, for a message: a
 * string only when {@link isShowable}, otherwise its kind and length.
 */
export function describeSent(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'nothing';
    case 'string':
      return isShowable(value) ? JSON.stringify(value) : `a string of ${value.length} characters`;
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'boolean':
      return String(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
    case 'function':
      return 'a function';
    case 'bigint':
      return 'a bigint';
    default:
      return 'a symbol';
  }
}
