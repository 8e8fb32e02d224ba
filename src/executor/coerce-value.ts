/**
 * Turns the text of a `key: value` pair into the value a tool expects, the
 * way the seed's `coerceValue` does with Go's `strconv`: booleans, null,
 * then `strconv.ParseInt(s, 10, 64)`, then `strconv.ParseFloat(s, 64)`.
 *
 * Two places where a JavaScript number cannot hold what Go would return keep
 * the text instead, so that an id is never silently rounded: decimal integers
 * outside ±(2^53 − 1) (Go: an exact int64, or a rounded float64 past 2^63),
 * and NaN/Infinity (SPEC §7; the seed's own port rejects them too, since JSON
 * cannot carry them).
 */

/** `strconv.ParseInt(s, 10, 64)`'s syntax: a sign, then decimal digits only. */
const GO_INT = /^[+-]?\d+$/;

/**
 * `strconv.ParseFloat`'s decimal syntax (Go float literals): digits with at
 * most one `.` and at least one digit, then an optional exponent.
 * Underscores are checked separately ({@link underscoresOk}).
 */
const GO_DECIMAL_FLOAT = /^[+-]?(?:\d[\d_]*(?:\.[\d_]*)?|\.[\d_]+)(?:[eE][+-]?\d[\d_]*)?$/;

/** Hexadecimal float: `0x` mantissa and a mandatory binary exponent `p`. */
const GO_HEX_FLOAT = /^([+-]?)0[xX]([\da-fA-F_]*)(?:\.([\da-fA-F_]*))?[pP]([+-]?\d[\d_]*)$/;

/**
 * Coerces a pair's value text: `true`/`false` (any case) → boolean,
 * `null`/`none` (any case) → `null`, an integer as `strconv.ParseInt` reads
 * it (`007` → 7, `+5` → 5), a float as `strconv.ParseFloat` reads it (`1e3`,
 * `.5`, `1_000.5`, `0x1p-2`); anything else stays the (trimmed) text.
 */
export function coerceValue(raw: string): unknown {
  const text = raw.trim();
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null' || lower === 'none') return null;
  if (GO_INT.test(text)) {
    const number = Number(text);
    // Go has no negative zero integer: `-0` is 0.
    if (Number.isSafeInteger(number)) return number === 0 ? 0 : number;
    return text;
  }
  const float = parseGoFloat(text);
  return float !== undefined && Number.isFinite(float) ? float : text;
}

/**
 * `strconv.ParseFloat(s, 64)` without its special values: the number, or
 * `undefined` where Go returns an error (syntax, or overflow to ±Inf).
 */
function parseGoFloat(text: string): number | undefined {
  if (GO_DECIMAL_FLOAT.test(text)) {
    if (!underscoresOk(text, false)) return undefined;
    const number = Number(text.replaceAll('_', ''));
    return Number.isNaN(number) ? undefined : number;
  }
  const hex = GO_HEX_FLOAT.exec(text);
  if (hex === null || !underscoresOk(text, true)) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = hex;
  const digits = (whole + fraction).replaceAll('_', '');
  if (digits === '') return undefined;
  // A BigInt mantissa rounds once, when it becomes a number.
  const mantissa = Number(BigInt(`0x${digits}`));
  const power = Number(exponent.replaceAll('_', '')) - 4 * fraction.replaceAll('_', '').length;
  // In two steps, so a small power does not underflow before the multiply.
  const half = Math.trunc(power / 2);
  const value = mantissa * 2 ** half * 2 ** (power - half);
  return sign === '-' ? -value : value;
}

/**
 * Go's `underscoreOK`: an underscore only between two digits, or between a
 * base prefix (`0x`) and a digit.
 */
function underscoresOk(text: string, hex: boolean): boolean {
  if (!text.includes('_')) return true;
  const body = text.replace(/^[+-]/, '');
  const digit = hex ? /[\da-fA-F]/ : /\d/;
  let previous = '^';
  let start = 0;
  if (hex) {
    previous = '0'; // the prefix counts as a digit
    start = 2;
  }
  for (const char of body.slice(start)) {
    if (digit.test(char)) {
      previous = '0';
    } else if (char === '_') {
      if (previous !== '0') return false;
      previous = '_';
    } else {
      if (previous === '_') return false;
      previous = '!';
    }
  }
  return previous !== '_';
}
