/**
 * Pins `compileLinear`: a pattern run on RE2 gives ECMA-262's verdict (the
 * `u` flag), where the two engines read the same text differently — `\s`,
 * `.`, escapes, an escaped surrogate pair, `[` inside a class — and
 * `hasNoChoice`: only an anchored pattern without choices stays with a
 * backtracking engine.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinear, hasNoChoice } from '../../../src/mcp/schema/linear-pattern.js';

function re2Verdict(pattern: string, text: string): boolean {
  const compiled = compileLinear(pattern);
  if (!('re2' in compiled)) throw new Error(`${pattern}: ${compiled.unsupported}`);
  return compiled.re2.matcher(text).find();
}

describe('compileLinear', () => {
  it.each([
    ['^\\s$', ['\u00a0', '\u2028', '\ufeff', ' ', 'x']],
    ['^.$', ['\n', '\r', '\u2028', 'a', '😀']],
    ['^\\uD83D\\uDE00$', ['😀', '\uD83D', 'x']],
    ['^[\\uD83D\\uDE00-\\uD83D\\uDE4F]$', ['😃', '🙏', '😀', 'a']],
    ['^[^\\uD83D\\uDE00]$', ['😀', 'a', '😃']],
    ['^[[:digit:][x]$', ['5', '[x', ':x', 'dx']],
    ['^[[:alpha:][]', ['a', '[', ':']],
    ['^\\u{1F600}$', ['😀']],
    ['^\\cJ\\0$', ['\n\0']],
    ['^[]$|^[^]$', ['', 'a', '😀']],
  ])('gives ECMA-262’s verdict for %s', (pattern, texts) => {
    for (const text of texts) {
      expect([text, re2Verdict(pattern, text)]).toEqual([
        text,
        new RegExp(pattern, 'u').test(text),
      ]);
    }
  });

  it('agrees with ECMA-262 on generated patterns of escapes, classes and pairs', () => {
    const atom = fc.constantFrom(
      'a',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '\\uD83D\\uDE00',
      '[\\uD83D\\uDE00-\\uD83D\\uDE4F]',
      '[^a]',
      '[[:x]',
      '\\u00a0',
      '[^\\s]',
      '(?:a|b)',
      'x*',
      '[a-z]+',
    );
    const text = fc.array(
      fc.constantFrom('a', 'b', 'x', ' ', '\u00a0', '😀', '😃', '[', ':', '\n', '5'),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        text,
        (atoms, anchored, chars) => {
          const pattern = `${anchored ? '^' : ''}${atoms.join('')}`;
          const sample = chars.join('');
          expect(re2Verdict(pattern, sample)).toBe(new RegExp(pattern, 'u').test(sample));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('says why it cannot compile a back-reference or a look-around, which no linear engine has', () => {
    expect(compileLinear('(a)\\1')).toEqual({ unsupported: 'a back-reference', inherent: true });
    expect(compileLinear('b(?=a)')).toEqual({ unsupported: 'a look-around', inherent: true });
    expect(compileLinear('^(?!a)')).toEqual({ unsupported: 'a look-around', inherent: true });
    expect(compileLinear('a{1001}')).toMatchObject({ inherent: true });
    // A spelling RE2 does not read is no inherent limit: the schema is refused for it.
    expect(compileLinear('\\p{Script=Grek}')).toMatchObject({ inherent: false });
  });

  it('compiles look-aheads that open a pattern as parts that must all match at the start', () => {
    const compiled = compileLinear('^(?=.*[A-Z])(?=.*\\d).{8,}$');
    expect('re2' in compiled).toBe(true);
    if (!('re2' in compiled)) return;
    const matches = (text: string): boolean => compiled.re2.matcher(text).find();
    for (const text of ['Abcdefg1', 'abcdefg1', 'ABCDEFGH', 'Ab1', 'xxxxxxxxZ9']) {
      expect({ text, matches: matches(text) }).toEqual({
        text,
        matches: /^(?=.*[A-Z])(?=.*\d).{8,}$/u.test(text),
      });
    }
    // An alternation at the top level would take the start from the look-aheads.
    expect(compileLinear('^(?=a)b|c')).toMatchObject({ unsupported: 'a look-around' });
  });

  it('reads the long names of general categories, gc= and General_Category=, and ASCII, as ECMA-262 does', () => {
    const texts = [
      'a',
      'Z',
      'é',
      'ß',
      '1',
      '٣',
      '_',
      '-',
      '(',
      '$',
      '+',
      ' ',
      '\u2028',
      '\u0000',
      'Ω',
      '😀',
      '\u00ad',
    ];
    for (const pattern of [
      '^\\p{Letter}+$',
      '^\\p{Lowercase_Letter}$',
      '^\\p{General_Category=Decimal_Number}$',
      '^\\p{gc=Uppercase_Letter}$',
      '^\\P{Letter}$',
      '^[\\p{Punctuation}\\p{Symbol}]$',
      '^\\p{ASCII}+$',
      '^\\P{ASCII}$',
      '^[\\p{ASCII}é]+$',
      '^\\p{Script=Greek}$',
      '^\\p{digit}$',
      '^\\p{Other}$',
    ]) {
      for (const text of texts) {
        expect(re2Verdict(pattern, text), `${pattern} on ${JSON.stringify(text)}`).toBe(
          new RegExp(pattern, 'u').test(text),
        );
      }
    }
  });
});

describe('hasNoChoice', () => {
  it('accepts only an anchored pattern without choices', () => {
    expect(hasNoChoice('^x-')).toBe(true);
    expect(hasNoChoice('^[A-Z]{3}$')).toBe(true);
    expect(hasNoChoice('x-')).toBe(false);
    expect(hasNoChoice('^a+')).toBe(false);
    expect(hasNoChoice('^(a|b)')).toBe(false);
  });
});
