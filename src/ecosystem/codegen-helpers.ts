/**
 * Functions the generated bindings module declares for its schemas to call
 * (written only when one does): checks zod does not make the way the run
 * time does.
 */

/** Functions of the generated module's own that its schemas call: written only when one does. */
export interface Helpers {
  multipleOf: boolean;
}

/**
 * `multipleOf` as the run time checks it (@cfworker/json-schema): in
 * decimal, on the numbers' shortest digits, never by floating-point
 * division, which zod's `.multipleOf()` uses and so accepts `0.1 + 0.2` as
 * a multiple of `0.1` and `1e20` as one of `3`. `BigInt()` calls rather
 * than literals and `**`: they compile for any target.
 */
export const MULTIPLE_OF_HELPER = [
  '/** Whether `value` is a multiple of `divisor` in decimal arithmetic, as the run time checks `multipleOf`. */',
  'function isMultipleOf(value: number, divisor: number): boolean {',
  '  const decimal = (n: number): [bigint, number] => {',
  "    const [digits = '0', exponent = '0'] = Math.abs(n).toString().split('e');",
  "    const point = digits.indexOf('.');",
  '    const fraction = point === -1 ? 0 : digits.length - point - 1;',
  "    return [BigInt(digits.replace('.', '')), Number(exponent) - fraction];",
  '  };',
  "  const tenTo = (power: number): bigint => BigInt(`1${'0'.repeat(power)}`);",
  '  const [a, x] = decimal(value);',
  '  const [b, y] = decimal(divisor);',
  '  return x >= y ? (a * tenTo(x - y)) % b === BigInt(0) : a % (b * tenTo(y - x)) === BigInt(0);',
  '}',
].join('\n');
