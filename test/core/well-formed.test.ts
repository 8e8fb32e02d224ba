import { describe, expect, it } from 'vitest';
import { isWellFormed, toWellFormed } from '../../src/core/well-formed.js';

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
