import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONTENT_HASH_PATTERN, contentHash } from '../../../src/index.js';

describe('contentHash', () => {
  it('is the lowercase hex SHA-256 of the UTF-8 text', () => {
    expect(contentHash('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    const text = 'Grüße, ${user} — 🙂';
    expect(contentHash(text)).toBe(
      createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'),
    );
    expect(contentHash(text)).toMatch(CONTENT_HASH_PATTERN);
  });

  it('tells apart texts that differ by one character or by whitespace', () => {
    expect(contentHash('Be brief.')).not.toBe(contentHash('Be brief!'));
    expect(contentHash('Be brief.')).not.toBe(contentHash('Be brief. '));
  });
});
