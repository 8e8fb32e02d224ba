/**
 * Pins the template text helpers: `dedent` removes the common indentation
 * (tabs and spaces alike), blanks whitespace-only lines, normalises line
 * ends and trims; `parseTemplate` splits `${name}` placeholders from text,
 * reads `$$` as `$`, keeps a lone `$` and refuses an unterminated `${` or a
 * name that is not an identifier; `placeholderNames` lists each name once;
 * `fillTemplate` writes strings as they are, numbers, booleans and bigints
 * with `String`, other values as JSON, and refuses a missing value.
 */
import { describe, expect, it } from 'vitest';
import { PromptRenderError, PromptValidationError } from '../../src/core/errors.js';
import {
  dedent,
  fillTemplate,
  parseTemplate,
  placeholderNames,
} from '../../src/prompt/template-text.js';

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('dedent', () => {
  it('removes the indentation common to non-blank lines, keeping relative indentation', () => {
    expect(dedent('\n    a\n      b\n    c\n')).toBe('a\n  b\nc');
  });

  it('ignores blank and whitespace-only lines when measuring, and empties them', () => {
    expect(dedent('    a\n \n        \n    b')).toBe('a\n\n\nb');
  });

  it('turns CRLF and lone CR into LF', () => {
    expect(dedent('  a\r\n  b\r  c')).toBe('a\nb\nc');
  });

  it('counts a tab as one character of indentation', () => {
    expect(dedent('\ta\n\t\tb')).toBe('a\n\tb');
  });

  it('trims the result, and gives empty text for blank input', () => {
    expect(dedent('a  ')).toBe('a');
    expect(dedent('  \n\t\n')).toBe('');
    expect(dedent('')).toBe('');
  });
});

describe('parseTemplate', () => {
  it('splits text and placeholders in order, and freezes the parts', () => {
    const parts = parseTemplate('Hello ${name}, you have ${count} items', 'greeting');
    expect(parts).toEqual([
      { text: 'Hello ' },
      { placeholder: 'name' },
      { text: ', you have ' },
      { placeholder: 'count' },
      { text: ' items' },
    ]);
    expect(Object.isFrozen(parts)).toBe(true);
  });

  it('gives no empty text parts between or around placeholders', () => {
    expect(parseTemplate('${a}${b}', 'w')).toEqual([{ placeholder: 'a' }, { placeholder: 'b' }]);
    expect(parseTemplate('', 'w')).toEqual([]);
  });

  it('reads $$ as a literal $, joined with the text around it', () => {
    expect(parseTemplate('cost: $$5 and $${x}', 'w')).toEqual([{ text: 'cost: $5 and ${x}' }]);
  });

  it('keeps a $ that starts no token', () => {
    expect(parseTemplate('a $ b $x', 'w')).toEqual([{ text: 'a $ b $x' }]);
  });

  it('accepts identifiers with underscores and digits after the first character', () => {
    expect(parseTemplate('${_a1}${B_2}', 'w')).toEqual([
      { placeholder: '_a1' },
      { placeholder: 'B_2' },
    ]);
  });

  it('refuses an unterminated ${, naming where and the offset', () => {
    const error = thrown(() => parseTemplate('ok ${name', 'section "s"'));
    expect(error).toBeInstanceOf(PromptValidationError);
    expect((error as PromptValidationError).code).toBe('prompt-validation');
    expect((error as Error).message).toBe('section "s": unterminated "${" at offset 3');
  });

  it('refuses a name that is not an identifier', () => {
    for (const name of ['', '1a', 'a-b', ' a', 'a.b']) {
      const error = thrown(() => parseTemplate(`\${${name}}`, 'w'));
      expect(error).toBeInstanceOf(PromptValidationError);
      expect((error as Error).message).toBe(
        `w: placeholder "\${${name}}" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_]*$`,
      );
    }
  });
});

describe('placeholderNames', () => {
  it('lists each name once, in order of first use', () => {
    expect(placeholderNames(parseTemplate('${b} ${a} ${b} ${c} ${a}', 'w'))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(placeholderNames(parseTemplate('no placeholders', 'w'))).toEqual([]);
  });
});

describe('fillTemplate', () => {
  const fill = (template: string, values: Record<string, unknown>): string =>
    fillTemplate(parseTemplate(template, 'w'), values, 'w');

  it('writes strings as they are, even when they look like placeholders', () => {
    expect(fill('[${a}]', { a: '${b} $$' })).toBe('[${b} $$]');
  });

  it('writes numbers, booleans and bigints with String', () => {
    expect(fill('${n} ${f} ${b} ${i}', { n: 1.5, f: false, b: true, i: 12n })).toBe(
      '1.5 false true 12',
    );
  });

  it('writes objects and arrays as JSON, and what JSON cannot show by its type', () => {
    expect(fill('${o} ${l}', { o: { a: [1, 'x'] }, l: [null] })).toBe('{"a":[1,"x"]} [null]');
    expect(fill('${f} ${s}', { f: () => 1, s: Symbol('x') })).toBe('function symbol');
  });

  it('allows empty strings and zero', () => {
    expect(fill('<${a}|${b}>', { a: '', b: 0 })).toBe('<|0>');
  });

  it('refuses a missing, undefined or null value, naming the placeholder', () => {
    for (const values of [{}, { name: undefined }, { name: null }]) {
      const error = thrown(() => fill('hi ${name}', values));
      expect(error).toBeInstanceOf(PromptRenderError);
      expect((error as PromptRenderError).code).toBe('prompt-render');
      expect((error as Error).message).toBe('w: no value for placeholder "${name}"');
    }
  });

  it('reads only own values, not inherited ones', () => {
    const values = Object.create({ name: 'inherited' }) as Record<string, unknown>;
    expect(() => fill('${name}', values)).toThrow(PromptRenderError);
    expect(() => fill('${toString}', {})).toThrow('no value for placeholder "${toString}"');
  });
});
