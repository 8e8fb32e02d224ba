/** Small pieces the config schema is built from. */
import { z } from 'zod';
import { isPlainRecord } from '../core/json.js';

/**
 * A zod `error` option that ends a config error with `text`: the sentence
 * after the field's path ("must be …"). A missing required field says so.
 */
export function rule(
  text: string | ((input: unknown) => string),
): (issue: z.core.$ZodRawIssue) => string {
  return (issue) => {
    if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
    return typeof text === 'string' ? text : text(issue.input);
  };
}

/**
 * Shorter than this, a value taken from the environment is not masked in
 * an error: `app` or `true` would cut words apart, and no token is so short.
 */
const MIN_MASKED_VALUE = 6;

/**
 * Values a file's `${VAR}` expansion took from the environment, masked by
 * {@link quote} while a loader checks that file ({@link maskingTaken}).
 */
let taken: readonly string[] = [];

/**
 * Runs `check` (synchronous) with `values` masked wherever {@link quote}
 * shows a bad value: a field that holds no secret (a permission, a
 * prefix) may still have been given a token from the environment.
 */
export function maskingTaken<T>(values: readonly string[], check: () => T): T {
  const before = taken;
  // Longest first: a value inside another is masked with it.
  taken = values
    .filter((value) => value.length >= MIN_MASKED_VALUE)
    .sort((a, b) => b.length - a.length);
  try {
    return check();
  } finally {
    taken = before;
  }
}

/**
 * A short rendering of a bad value that is not a secret, with the values
 * taken from the environment masked before it is written out and cut (cut
 * first, a long token would no longer be found whole).
 */
export function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'bigint') return `${value}n`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = 'an object that is not JSON (it refers to itself)';
  }
  // As JSON writes them: a quote or a backslash in a value is escaped.
  for (const piece of taken) text = text.replaceAll(JSON.stringify(piece).slice(1, -1), '***');
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * A map keyed by names that come from outside (tools, variables, headers):
 * every own key survives, `__proto__` and `constructor` included, which
 * `z.record` would drop or turn into a prototype. Values are checked with
 * `value`; the map itself must be a plain object.
 */
export function ownRecord<V extends z.ZodType>(
  value: V,
  mapRule: string,
): z.ZodPipe<
  z.ZodCustom<Readonly<Record<string, z.input<V>>>, Readonly<Record<string, z.input<V>>>>,
  z.ZodTransform<Readonly<Record<string, z.output<V>>>, Readonly<Record<string, z.input<V>>>>
> {
  return z
    .custom<Readonly<Record<string, z.input<V>>>>(isPlainRecord, { error: rule(mapRule) })
    .transform((input, ctx) => {
      const out: Record<string, z.output<V>> = {};
      for (const key of Object.keys(input)) {
        const checked = value.safeParse(input[key]);
        if (!checked.success) {
          for (const issue of checked.error.issues) {
            ctx.issues.push({
              code: 'custom',
              input: input[key],
              path: [key, ...issue.path],
              message: issue.message,
            });
          }
          continue;
        }
        // defineProperty: assigning `__proto__` would set the prototype instead.
        Object.defineProperty(out, key, {
          value: checked.data,
          enumerable: true,
          configurable: false,
          writable: false,
        });
      }
      return Object.freeze(out);
    });
}
