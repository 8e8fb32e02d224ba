/**
 * Pins `parseDotenv`: `KEY=value` lines with optional `export `, blank and
 * `#` lines skipped, a BOM and CRLF line ends accepted; unquoted values
 * trimmed and cut at ` #`; single quotes literal; double quotes with `\n`,
 * `\r`, `\t` and any other escaped character; a later key wins. A bad line
 * throws `McpConfigError` naming the source and line number, never the text.
 */
import { describe, expect, it } from 'vitest';
import { McpConfigError } from '../../src/core/errors.js';
import { parseDotenv } from '../../src/config/dotenv.js';

function errorOf(text: string, source = '.env'): McpConfigError {
  try {
    parseDotenv(text, source);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected a throw');
}

describe('parseDotenv', () => {
  it('reads keys and values, skipping blank and comment lines', () => {
    expect(parseDotenv('# top\n\n  \nA=1\n   # indented comment\nB_2=two\n', '.env')).toEqual({
      A: '1',
      B_2: 'two',
    });
  });

  it('accepts export, spaces around =, a BOM and CRLF line ends', () => {
    expect(parseDotenv('\uFEFFexport  A = 1\r\n  B=2\r\n', '.env')).toEqual({ A: '1', B: '2' });
  });

  it('gives an empty string for an empty value', () => {
    expect(parseDotenv('A=\nB=   ', '.env')).toEqual({ A: '', B: '' });
  });

  it('keeps = and quotes inside an unquoted value', () => {
    expect(parseDotenv(`URL=a=b?c=d\nS=it's "x"`, '.env')).toEqual({
      URL: 'a=b?c=d',
      S: `it's "x"`,
    });
  });

  it('cuts an unquoted value at a # after white space, but not at a # inside a word', () => {
    expect(parseDotenv('A=one two  # note\nB=a#b\nC=#x', '.env')).toEqual({
      A: 'one two',
      B: 'a#b',
      C: '#x',
    });
  });

  // The line pattern swallows the white space after `=`: the comment must still be one.
  it('reads "KEY= # comment" as an empty value', () => {
    expect(parseDotenv('TOKEN= # fill in', '.env')).toEqual({ TOKEN: '' });
  });

  it('reads single quotes literally, with a comment allowed after them', () => {
    expect(parseDotenv(`A='x \\n "y" # z'  # note\nB=''`, '.env')).toEqual({
      A: 'x \\n "y" # z',
      B: '',
    });
  });

  it('reads double-quoted escapes', () => {
    expect(parseDotenv(String.raw`A="l1\nl2\tt\rr \"q\" \\ \$ \x" # note`, '.env')).toEqual({
      A: 'l1\nl2\tt\rr "q" \\ $ x',
    });
  });

  it('keeps white space inside quotes', () => {
    expect(parseDotenv(`A="  a  "\nB='  b  '`, '.env')).toEqual({ A: '  a  ', B: '  b  ' });
  });

  it('lets a later line win for the same key', () => {
    expect(parseDotenv('A=1\nA=2', '.env')).toEqual({ A: '2' });
  });

  it('refuses bad lines, naming the source and line number', () => {
    const cases: [string, number][] = [
      ['A=1\nnot a pair', 2],
      ['1A=x', 1],
      ['=x', 1],
      ['A-B=x', 1],
      ['\n\nA="open', 3],
      [`A='open`, 1],
      ['A="x" trailing', 1],
      [`A='x' trailing`, 1],
      [String.raw`A="ends in a backslash\"`, 1],
      ['A="first\nline"', 1],
    ];
    for (const [text, line] of cases) {
      const error = errorOf(text, 'conf/.env');
      expect(error.code).toBe('mcp-config');
      expect(error.field).toBe(`conf/.env:${line}`);
      expect(error.message).toBe(
        `conf/.env line ${line}: expected KEY=value with KEY matching [A-Za-z_][A-Za-z0-9_]* ` +
          'and quotes closed on the same line',
      );
    }
  });

  it('never puts the content of a bad line in the error', () => {
    const error = errorOf('OK=1\nTOKEN="sk-live-secret');
    expect(error.message).not.toContain('sk-live');
    expect(error.message).not.toContain('TOKEN');
  });

  // A plain object would put it in the prototype slot and lose it.
  it('keeps a key named __proto__ as a key', () => {
    expect(Object.keys(parseDotenv('__proto__=x', '.env'))).toEqual(['__proto__']);
  });
});
