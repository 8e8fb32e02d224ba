/**
 * Pins `toPathSegment` beyond the basics in workspace.test.ts: the exact
 * escape of each kind of character, the length at which names are
 * shortened, and the exact shape of a shortened name.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormed } from '../../src/core/well-formed.js';
import { MAX_SEGMENT_LENGTH, toPathSegment } from '../../src/server/path-segment.js';

describe('toPathSegment', () => {
  it.each([
    ['Az09_-', 'Az09_-'],
    ['', ''],
    ['.', '%2E'],
    ['a b', 'a%20b'],
    ['~', '%7E'],
    ['%', '%25'],
    ['é', '%C3%A9'],
    ['😀', '%F0%9F%98%80'],
    ['a\\b', 'a%5Cb'],
    ['\u0000', '%00'],
  ])('encodes %j as %j', (id, expected) => {
    expect(toPathSegment(id)).toBe(expected);
  });

  it('keeps a name of exactly MAX_SEGMENT_LENGTH and shortens one character more', () => {
    expect(MAX_SEGMENT_LENGTH).toBe(200);
    expect(toPathSegment('a'.repeat(200))).toBe('a'.repeat(200));
    const id = 'a'.repeat(201);
    const digest = createHash('sha256').update(id, 'utf8').digest('hex');
    expect(toPathSegment(id)).toBe(`${'a'.repeat(135)}~${digest}`);
  });

  it('measures the escaped form: 67 dots (201 characters escaped) are shortened', () => {
    const id = '.'.repeat(67);
    const out = toPathSegment(id);
    expect(out).toHaveLength(200);
    expect(out.startsWith('%2E'.repeat(45))).toBe(true);
    expect(out.slice(135)).toBe(`~${createHash('sha256').update(id).digest('hex')}`);
    expect(toPathSegment('.'.repeat(66))).toBe('%2E'.repeat(66));
  });

  it('refuses an id with a lone surrogate, whose UTF-8 form another id shares', () => {
    expect(() => toPathSegment('carol\uD800')).toThrow(/lone surrogate/);
    expect(() => toPathSegment('\uDC00carol')).toThrow(/lone surrogate/);
    expect(toPathSegment('carol\uFFFD')).toBe('carol%EF%BF%BD');
  });

  it('gives distinct well-formed ids distinct segments', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        (a, b) => {
          fc.pre(a !== b && isWellFormed(a) && isWellFormed(b));
          expect(toPathSegment(a)).not.toBe(toPathSegment(b));
        },
      ),
    );
  });

  it('never yields a separator, a leading dot, or more than 200 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }).filter(isWellFormed), (id) => {
        const out = toPathSegment(id);
        expect(out).not.toMatch(/[/\\]/);
        expect(out.startsWith('.')).toBe(false);
        expect(out.length).toBeLessThanOrEqual(200);
        expect(out).toMatch(/^[A-Za-z0-9_%~-]*$/);
      }),
    );
  });
});
