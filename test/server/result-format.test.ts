/**
 * Pins `serializeResult`: strings kept verbatim with their format detected
 * (JSON containers, consistent CSV, else text) or forced, other values as
 * 2-space JSON, and the exact errors for values without a JSON form; plus
 * `splitCsvRecords` and `extensionOf`.
 */
import { describe, expect, it } from 'vitest';
import { ContextResultError } from '../../src/server/errors.js';
import { extensionOf, serializeResult, splitCsvRecords } from '../../src/server/result-format.js';

function refusal(value: unknown, format?: 'json'): ContextResultError {
  try {
    serializeResult(value, format);
  } catch (error) {
    expect(error).toBeInstanceOf(ContextResultError);
    expect((error as ContextResultError).code).toBe('context-result');
    return error as ContextResultError;
  }
  throw new Error('expected a ContextResultError');
}

describe('extensionOf', () => {
  it('maps text to txt and keeps json and csv', () => {
    expect([extensionOf('json'), extensionOf('csv'), extensionOf('text')]).toEqual([
      'json',
      'csv',
      'txt',
    ]);
  });
});

describe('serializeResult of a string', () => {
  it.each([
    ['[1, 2]', { format: 'json', text: '[1, 2]', parsed: [1, 2] }],
    [
      ' {"a": {"b": null}}\n',
      { format: 'json', text: ' {"a": {"b": null}}\n', parsed: { a: { b: null } } },
    ],
    ['[]', { format: 'json', text: '[]', parsed: [] }],
    ['a,b\n1,2\n3,4\n', { format: 'csv', text: 'a,b\n1,2\n3,4\n' }],
    ['name,note\r\n"x","a,b"\r\n', { format: 'csv', text: 'name,note\r\n"x","a,b"\r\n' }],
    ['a,b\n"two\nlines",2\n', { format: 'csv', text: 'a,b\n"two\nlines",2\n' }],
    ['a,b\n1,2,3', { format: 'text', text: 'a,b\n1,2,3' }],
    ['a\n1\n2', { format: 'text', text: 'a\n1\n2' }],
    ['a,b', { format: 'text', text: 'a,b' }],
    ['[1, 2', { format: 'text', text: '[1, 2' }],
    ['[1, 2,]', { format: 'text', text: '[1, 2,]' }],
    ['"quoted"', { format: 'text', text: '"quoted"' }],
    ['42', { format: 'text', text: '42' }],
    ['', { format: 'text', text: '' }],
  ])('detects %j', (input, expected) => {
    expect(serializeResult(input)).toEqual(expected);
  });

  it('keeps a forced text or csv format without parsing', () => {
    expect(serializeResult('[1]', 'text')).toStrictEqual({ format: 'text', text: '[1]' });
    expect(serializeResult('just words', 'csv')).toStrictEqual({
      format: 'csv',
      text: 'just words',
    });
  });

  it('accepts a forced json format only for a JSON container', () => {
    expect(serializeResult('{"k":1}', 'json')).toEqual({
      format: 'json',
      text: '{"k":1}',
      parsed: { k: 1 },
    });
    expect(refusal('plain', 'json').message).toBe(
      'format "json" was requested but the string is not a JSON array or object',
    );
    expect(refusal('"a string"', 'json').message).toBe(
      'format "json" was requested but the string is not a JSON array or object',
    );
  });
});

describe('serializeResult of other values', () => {
  it('writes 2-space JSON and keeps the value itself as parsed', () => {
    const value = { a: [1, { b: 'c' }] };
    const result = serializeResult(value);
    expect(result.format).toBe('json');
    expect(result.text).toBe('{\n  "a": [\n    1,\n    {\n      "b": "c"\n    }\n  ]\n}');
    expect(result.parsed).toBe(value);
    expect(serializeResult(null)).toEqual({ format: 'json', text: 'null', parsed: null });
    expect(serializeResult(7)).toEqual({ format: 'json', text: '7', parsed: 7 });
  });

  it('honours a forced csv or text format with no parsed value', () => {
    expect(serializeResult([1], 'csv')).toStrictEqual({ format: 'csv', text: '[\n  1\n]' });
    expect(serializeResult(true, 'text')).toStrictEqual({ format: 'text', text: 'true' });
  });

  it.each([
    [undefined, 'the result is undefined, which has no JSON form; return a string or plain data'],
    [() => 1, 'the result is function, which has no JSON form; return a string or plain data'],
    [Symbol('s'), 'the result is symbol, which has no JSON form; return a string or plain data'],
    [
      10n,
      'the result cannot be serialised as JSON (Do not know how to serialize a BigInt); return a string or plain data',
    ],
  ])('refuses %s', (value, message) => {
    expect(refusal(value).message).toBe(message);
  });

  it('refuses a cycle, keeping the JSON error as cause', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const error = refusal(loop);
    expect(error.message).toMatch(
      /^the result cannot be serialised as JSON \(Converting circular structure to JSON[^]*\); return a string or plain data$/,
    );
    expect(error.cause).toBeInstanceOf(TypeError);
  });
});

describe('splitCsvRecords', () => {
  it.each([
    ['a,b\n1,2\n', ['a,b', '1,2']],
    ['a,b\r\n1,2\r\n3,4', ['a,b', '1,2', '3,4']],
    ['a\n\nb', ['a', '', 'b']],
    ['"x\ny",1\n2', ['"x\ny",1', '2']],
    ['"he said ""hi\nthere""",1\n2', ['"he said ""hi\nthere""",1', '2']],
    ['', []],
    ['\n', ['']],
    ['a\rb', ['a\rb']],
  ])('splits %j', (text, records) => {
    expect(splitCsvRecords(text)).toEqual(records);
  });
});
