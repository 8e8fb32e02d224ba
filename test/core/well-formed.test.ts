import { describe, expect, it } from 'vitest';
import { cutText, isWellFormed, toWellFormed } from '../../src/core/well-formed.js';

describe('well-formed text', () => {
  it.each([
    ['plain', true],
    ['emoji \uD83D\uDE00', true],
    ['high \uD83D alone', false],
    ['low \uDE00 alone', false],
    ['reversed \uDE00\uD83D', false],
    ['\uD83D', false],
  ])('%j is well formed: %s', (text, expected) => {
    expect(isWellFormed(text)).toBe(expected);
  });

  it('replaces each lone surrogate by U+FFFD, as UTF-8 reads it back, and keeps pairs', () => {
    const text = 'a\uD800b\uDC00c\uD83D\uDE00';
    expect(toWellFormed(text)).toBe('a\uFFFDb\uFFFDc\uD83D\uDE00');
    expect(toWellFormed(text)).toBe(Buffer.from(text, 'utf8').toString('utf8'));
    expect(toWellFormed('same')).toBe('same');
  });
});

describe('cutText', () => {
  it('keeps text that fits and cuts the rest to the limit with …, never inside a surrogate pair', () => {
    const emoji = '\u{1F600}';
    expect(cutText('short', 5)).toBe('short');
    expect(cutText('longer text', 7)).toBe('longer…');
    for (let max = 1; max < 12; max += 1) {
      const cut = cutText(`a${emoji.repeat(6)}`, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(isWellFormed(cut)).toBe(true);
    }
  });
});
