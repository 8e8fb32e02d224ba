import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseActionInput } from '../../src/executor/action-input.js';

describe('parseActionInput', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['empty text', '', {}],
    ['whitespace', ' \n\t ', {}],
    ['a JSON object', '{"namespace": "default", "limit": 10}', { namespace: 'default', limit: 10 }],
    ['a JSON array', '["pod1", "pod2"]', { input: ['pod1', 'pod2'] }],
    ['a JSON number', '42', { input: 42 }],
    ['a JSON string', '"hello"', { input: 'hello' }],
    ['JSON null', 'null', { input: null }],
    [
      'YAML with a list value',
      'namespaces:\n  - default\n  - kube-system\nlabel: app=nginx',
      { namespaces: ['default', 'kube-system'], label: 'app=nginx' },
    ],
    ['a YAML list', '- default\n- kube-system', { input: ['default', 'kube-system'] }],
    ['a colon pair', 'namespace: default', { namespace: 'default' }],
    ['an equals pair', 'namespace=default', { namespace: 'default' }],
    [
      'pairs split on commas and newlines',
      'namespace: default, verbose=true\nlimit: 5',
      { namespace: 'default', verbose: true, limit: 5 },
    ],
    [
      'plain prose',
      'get all pods in the default namespace',
      { input: 'get all pods in the default namespace' },
    ],
    ['prose with commas', '  pods, services and jobs  ', { input: 'pods, services and jobs' }],
    ['a URL, which is not a pair', 'http://example.com/a', { input: 'http://example.com/a' }],
    ['a key that is not an identifier', 'my key: value', { input: 'my key: value' }],
    ['a comma inside a value', 'labels: a, b, c', { labels: 'a, b, c' }],
    ['a quoted comma', 'msg: "hello, world", n=1', { msg: 'hello, world', n: 1 }],
    ['an equals sign in a value', 'url=http://x/?a=b', { url: 'http://x/?a=b' }],
    ['a colon in a value', 'a: b: c', { a: 'b: c' }],
    [
      'prose beside pairs',
      'list the pods\nnamespace: default',
      { input: 'list the pods', namespace: 'default' },
    ],
    ['CRLF line ends', 'a: 1\r\nb: 2', { a: 1, b: 2 }],
  ])('%s', (_label, text, expected) => {
    expect(parseActionInput(text)).toStrictEqual(expected);
  });

  it.each<[string, unknown]>([
    ['true', true],
    ['TRUE', true],
    ['False', false],
    ['null', null],
    ['None', null],
    ['-5', -5],
    ['+7', 7],
    ['0', 0],
    ['3.14', 3.14],
    ['-0.5', -0.5],
    ['1e3', 1000],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['+Inf', '+Inf'],
    ['-inf', '-inf'],
    ['007', '007'],
    ['1.2.3', '1.2.3'],
    ['12345678901234567890', '12345678901234567890'],
    ['"true"', 'true'],
    ["'42'", '42'],
    ['"a\\"b"', 'a"b'],
    ['', ''],
  ])('coerces the pair value %j to %j', (raw, expected) => {
    expect(parseActionInput(`value=${raw}`)).toStrictEqual({ value: expected });
  });

  it.each([
    '{"__proto__": {"polluted": true}}',
    '__proto__: {polluted: true}\nlist: [1]',
    '__proto__: x\nconstructor=y',
    '__proto__=polluted',
  ])('keeps the prototype of the result for %j', (text) => {
    const result = parseActionInput(text);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('reads YAML that is not exactly one valid document as pairs', () => {
    expect(parseActionInput('a: 1\n---\nb: [2]')).toStrictEqual({ a: 1, b: '[2]', input: '---' });
    expect(parseActionInput('a: 1\na: [2]')).toStrictEqual({ a: '[2]' }); // last duplicate wins
  });

  it('refuses YAML aliases that make a cycle', () => {
    expect(parseActionInput('&a [*a]')).toStrictEqual({ input: '&a [*a]' });
  });

  it('returns {} or { input } for non-string input from untyped callers', () => {
    expect(parseActionInput(undefined as unknown as string)).toStrictEqual({});
    expect(parseActionInput(5 as unknown as string)).toStrictEqual({ input: 5 });
  });

  describe('never throws and always returns a plain object', () => {
    // A predicate rather than `expect` calls: fast-check reports the
    // shrunk counterexample, and thousands of runs stay fast.
    const check = (text: string): boolean => {
      const result: unknown = parseActionInput(text);
      return (
        typeof result === 'object' &&
        result !== null &&
        Object.getPrototypeOf(result) === Object.prototype
      );
    };

    it('for random strings', () => {
      fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), check), {
        numRuns: 500,
      });
    });

    it('for JSON text', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => check(JSON.stringify(value) ?? '')),
        { numRuns: 300 },
      );
    });

    it('for YAML-ish and pair-ish text', () => {
      const token = fc.constantFrom(
        'a',
        '__proto__',
        'constructor',
        'key.name',
        'x-y',
        ' ',
        ':',
        ': ',
        '=',
        ',',
        '\n',
        '\r\n',
        '  - ',
        '- ',
        '[',
        ']',
        '{',
        '}',
        '"',
        "'",
        '&a ',
        '*a',
        '!!str ',
        '!tag ',
        '---',
        '#',
        '? ',
        '|',
        '>',
        '<<: ',
        'true',
        'None',
        'NaN',
        '-5',
        '3.14',
        '.inf',
        '\t',
        '%YAML 1.2',
      );
      fc.assert(
        fc.property(fc.array(token, { maxLength: 40 }), (tokens) => check(tokens.join(''))),
        { numRuns: 1000 },
      );
    });
  });
});
