/**
 * Pins `serverTextLine`: server-chosen text comes out on one line, with
 * format characters removed, every kind of line break and control character
 * turned into a space, white space collapsed and trimmed, and text over the
 * limit cut to exactly the limit with a note naming the cleaned length;
 * every default-ignorable code point removed but a presentation selector
 * after an emoji; lone surrogates replaced and pairs never cut; and the
 * server's secrets masked after cleaning as well as before.
 */
import { describe, expect, it } from 'vitest';
import { isWellFormed } from '../../src/core/well-formed.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { MAX_REASON_LENGTH, serverTextLine } from '../../src/mcp/server-text.js';

describe('serverTextLine', () => {
  it('bounds unavailable reasons at 300 characters', () => {
    expect(MAX_REASON_LENGTH).toBe(300);
  });

  it('gives clean text back unchanged', () => {
    expect(serverTextLine('Reads a file.', 100)).toBe('Reads a file.');
  });

  it('turns every kind of line break into one space', () => {
    expect(serverTextLine('a\nb\r\nc\rd\u2028e\u2029f\u0085g\vh\fi', 100)).toBe(
      'a b c d e f g h i',
    );
  });

  it('turns C0, DEL and C1 controls into spaces and collapses the run', () => {
    expect(serverTextLine('a\u0000\u0007\u001Bb\u007Fc\u009Bd', 100)).toBe('a b c d');
  });

  it('removes bidi overrides, isolates, zero-width characters and the BOM without a space', () => {
    expect(serverTextLine('ad\u202Emin\u2066x\u2069\u200By\u200Dz\uFEFF!', 100)).toBe('adminxyz!');
  });

  it('keeps a variation selector only right after a pictograph, not after a digit', () => {
    expect(serverTextLine('❤\uFE0F 1\uFE0F2\uFE0E#\uFE0F', 100)).toBe('❤\uFE0F 12#');
  });

  it('trims and collapses other white space, including no-break and ideographic spaces', () => {
    expect(serverTextLine('  \t a \u00A0\u3000 b \t ', 100)).toBe('a b');
  });

  it('keeps text exactly at the limit', () => {
    expect(serverTextLine('abcde', 5)).toBe('abcde');
  });

  it('drops white space left at the end of the cut', () => {
    // 38 - 23 (the note) = 15 characters kept: "word word word ", whose last space goes.
    expect(serverTextLine('word '.repeat(20), 38)).toBe('word word word … (99 characters, cut)');
  });

  it('cuts longer text to exactly the limit, the note naming the cleaned length', () => {
    const line = serverTextLine('word '.repeat(20), 40); // 99 characters once trimmed
    expect(line).toBe('word word word wo … (99 characters, cut)');
    expect(line).toHaveLength(40);
  });

  it('counts the length after cleaning, not before', () => {
    expect(serverTextLine(`${'\u200B'.repeat(50)}abc`, 3)).toBe('abc');
    expect(serverTextLine(`a\n\n\n\n\n\nb`, 3)).toBe('a b');
  });

  it('cuts with a bare ellipsis when the limit is shorter than the note', () => {
    expect(serverTextLine('x'.repeat(30), 5)).toBe('xxxx…');
  });

  it('is never longer than maxLength', () => {
    for (const limit of [1, 5, 22, 23, 24, 40]) {
      expect(serverTextLine('x'.repeat(300), limit).length).toBeLessThanOrEqual(limit);
    }
  });

  it('gives an empty line for text that is only white space and controls', () => {
    expect(serverTextLine(' \n\t\u200B\u0000 ', 10)).toBe('');
  });

  it('removes variation selectors, tag characters, the grapheme joiner and Hangul fillers', () => {
    const hidden = [...'HIDDEN'].map((c) => String.fromCodePoint(0xe00f0 + c.charCodeAt(0)));
    expect(serverTextLine(`a${hidden.join('')}\uFE00b\u034Fc\u{E0041}d\u3164e\u115F!`, 100)).toBe(
      'abcde!',
    );
  });

  it('keeps one VS15 or VS16 after an emoji character, and no other', () => {
    expect(serverTextLine('\u2764\uFE0F \u{1F600}\uFE0E', 100)).toBe(
      '\u2764\uFE0F \u{1F600}\uFE0E',
    );
    expect(serverTextLine('\u2764\uFE0F\uFE0F\uFE0E', 100)).toBe('\u2764\uFE0F');
    expect(serverTextLine('a\uFE0Fb\u200B\uFE0F', 100)).toBe('ab');
  });

  it('replaces a lone surrogate with U+FFFD', () => {
    expect(serverTextLine('a\uD800b\uDC00c', 100)).toBe('a\uFFFDb\uFFFDc');
  });

  it('never cuts inside a surrogate pair, with or without the note', () => {
    const emoji = '\u{1F600}';
    for (const limit of [2, 3, 24, 25, 26, 40]) {
      for (let at = 0; at < 30; at += 1) {
        const line = serverTextLine(`${'x'.repeat(at)}${emoji.repeat(30)}`, limit);
        expect(isWellFormed(line)).toBe(true);
        expect(line.length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it('masks a secret after cleaning, when invisible characters split it', () => {
    const secret = 'tok_9f8e7d6c5b4a';
    const redactor = new SecretRedactor([secret]);
    const split = [...secret].join('\u200B');
    expect(serverTextLine(`zw:${split}`, 100, redactor)).toBe('zw:***');
    expect(serverTextLine(`vs:${[...secret].join('\uFE01')}`, 100, redactor)).toBe('vs:***');
  });

  it('masks a secret before cleaning, when it holds what cleaning changes', () => {
    const secret = 'two  spaces\nand a line';
    expect(serverTextLine(`key ${secret}.`, 100, new SecretRedactor([secret]))).toBe('key ***.');
  });

  it('masks before the cut, so no part of a secret is left at the end', () => {
    const secret = 'sk-live-7Hq2ZpA9';
    const text = `${'x'.repeat(10)} ${[...secret].join('\u200B')} ${'y'.repeat(30)}`;
    // Cut first, 17 characters would keep "sk-liv".
    expect(serverTextLine(text, 40, new SecretRedactor([secret]))).toBe(
      'xxxxxxxxxx *** yy … (45 characters, cut)',
    );
  });
});
