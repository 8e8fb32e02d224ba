import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { findJsonSyntaxError, parseCallArguments } from '../../src/cli/json-args.js';

describe('findJsonSyntaxError', () => {
  it.each([
    ['{"message": hi', 1, 13, 'a value', '"hi"'],
    ['{"a": 1,}', 1, 9, 'a property name in double quotes', '"}"'],
    ['[1, 2,]', 1, 7, 'a value', '"]"'],
    ['{"a": 1', 1, 8, "',' or '}'", 'end of input'],
    ['{\n  "a": "x\n}', 2, 10, 'no control character in a string', '"\\n"'],
    ["{'a': 1}", 1, 2, 'a property name in double quotes', '"\'a\'"'],
    ['{"a": 1} x', 1, 10, 'the end of the JSON text', '"x"'],
    ['{"a": "\\q"}', 1, 8, 'a valid escape such as \\n or \\u00e9', '"\\\\q"'],
  ])('%j: line %i, column %i, expected %s, found %s', (text, line, column, expected, found) => {
    expect(findJsonSyntaxError(text)).toMatchObject({ line, column, expected, found });
  });

  it('finds nothing in valid JSON, agreeing with JSON.parse', () => {
    for (const text of ['{}', '[]', '{"a": [1, -2.5e3, true, null, "\\u00e9"]}', ' {"b": {}} ']) {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(findJsonSyntaxError(text)).toBeUndefined();
    }
  });
});

describe('parseCallArguments', () => {
  it('parses JSON objects and ActionInput text', () => {
    expect(parseCallArguments(' {"message": "hi"}')).toEqual({ message: 'hi' });
    expect(parseCallArguments('message: hi')).toEqual({ message: 'hi' });
  });

  it('refuses JSON that is not an object, and broken JSON, with exit 2', () => {
    expect(() => parseCallArguments('[1]')).toThrow(
      expect.objectContaining({
        exitCode: EXIT_CODES.usage,
        message: 'JSON arguments must be an object such as {"name": "value"}, not an array',
      }),
    );
    expect(() => parseCallArguments('{"message": hi')).toThrow(
      expect.objectContaining({
        exitCode: EXIT_CODES.usage,
        details: ['  {"message": …', '              ^'],
      }),
    );
  });
});
