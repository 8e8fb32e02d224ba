/**
 * Masking a server's long text before a cut reads only what the cut can
 * keep, plus a margin for a secret's longest form, and never shows the
 * start of a secret the window cut in two.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASK_MARGIN, MAX_QUOTED_CHARS, maskedHead, maskedQuote } from '../../src/core/errors.js';
import { SecretRedactor } from '../../src/mcp/redact.js';

/** A mask that records how many characters it was given. */
function countingMask(mask: (text: string) => string): {
  mask: (text: string) => string;
  read: () => number;
} {
  let read = 0;
  return {
    mask: (text) => {
      read += text.length;
      return mask(text);
    },
    read: () => read,
  };
}

describe('maskedHead and maskedQuote', () => {
  it('mask only what can be kept, and a margin, of megabytes', () => {
    const secret = 'tok-7Q2w9ZxY';
    const redactor = new SecretRedactor([secret]);
    const counted = countingMask((text) => redactor.redact(text));
    const text = `failed for ${secret}: ${'detail '.repeat(1_500_000)}`;
    const quoted = maskedQuote(text, counted.mask);
    expect(counted.read()).toBeLessThanOrEqual(MAX_QUOTED_CHARS + MASK_MARGIN);
    expect(quoted.startsWith('failed for ***: detail')).toBe(true);
    expect(quoted).toMatch(/… \(\d+ more characters\)$/);
    expect(quoted.length).toBeLessThan(MAX_QUOTED_CHARS + 40);
  });

  it('mask a text no longer than the window whole, as before', () => {
    const mask = (text: string): string => text.replaceAll('s3cret', '***');
    expect(maskedHead('a s3cret', mask, 10)).toBeUndefined();
    expect(maskedQuote('a s3cret', mask)).toBe('a ***');
    expect(maskedQuote('a s3cret', undefined)).toBe('a s3cret');
  });

  it('never keep the start of a secret the window cut in two, however much masking shortened', () => {
    const secret = `SECRET-${'abcdefghij'.repeat(10)}`;
    const mask = (text: string): string => text.replaceAll(secret, '*');
    fc.assert(
      fc.property(
        // Past about 610 of them, masking shortens the window by more than its margin.
        fc.oneof(fc.nat({ max: 50 }), fc.integer({ min: 600, max: 800 })),
        fc.integer({ min: 1, max: secret.length - 1 }),
        fc.integer({ min: 1, max: 2_000 }),
        (secretsBefore, cutInside, keep) => {
          // Secrets that masking shortens, then filler up to the window's end, which falls inside a secret.
          const before = secret.repeat(secretsBefore);
          const window = keep + MASK_MARGIN;
          const filler = 'x'.repeat(Math.max(0, window - before.length - cutInside));
          const text = `${before}${filler}${secret}${'y'.repeat(100)}`;
          const head = maskedHead(text, mask, keep);
          if (head === undefined) return;
          expect(head.length).toBeLessThanOrEqual(keep);
          // No piece of a secret's start (4 characters or more) survives.
          expect(head.replaceAll('*', '')).not.toMatch(/SECR|ECRE|CRET/);
        },
      ),
      { numRuns: 200 },
    );
  });
});
