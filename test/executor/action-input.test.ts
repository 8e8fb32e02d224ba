import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseActionInput } from '../../src/executor/action-input.js';
import type { ParseActionInputOptions } from '../../src/executor/action-input.js';

describe('parseActionInput', () => {
  // Every example of the seed (`mcp-client-infrastructure.md`, section 4 and
  // "Tool Lifecycle During Execution"), one row per reading of its cascade.
  describe("the seed's cases", () => {
    it.each<[string, string, Record<string, unknown>]>([
      // Lifecycle: "namespace: default" → tryJSON(fail) → tryYAML(fail) → tryKV(success).
      ['a key-value ActionInput', 'namespace: default', { namespace: 'default' }],
      // Lifecycle: '{"namespace":"default"}' → tryJSON(success).
      ['a JSON object', '{"namespace":"default"}', { namespace: 'default' }],
      // 1. JSON object → map.
      [
        'a JSON object with values',
        '{"namespace": "default", "limit": 10}',
        { namespace: 'default', limit: 10 },
      ],
      // 2. JSON non-object (string, number, array) → {"input": value}.
      ['a JSON array', '["pod1", "pod2"]', { input: ['pod1', 'pod2'] }],
      ['a JSON string', '"hello"', { input: 'hello' }],
      ['a JSON number inside an array', '[42]', { input: [42] }],
      // Quick-reject: JSON is tried only after `{`, `[` or `"`.
      ['a bare number', '42', { input: '42' }],
      ['a bare true', 'true', { input: 'true' }],
      ['a bare null', 'null', { input: 'null' }],
      // 3. YAML with complex structures (arrays, nested maps).
      [
        'YAML with a list value',
        'namespaces:\n  - default\n  - kube-system\nlabel: app=nginx',
        { namespaces: ['default', 'kube-system'], label: 'app=nginx' },
      ],
      [
        'YAML with a nested map',
        'selector:\n  app: nginx\n  tier: web\nlimit: 5',
        { selector: { app: 'nginx', tier: 'web' }, limit: 5 },
      ],
      ['YAML in flow style', '{names: [a, b]}', { names: ['a', 'b'] }],
      // Tags of YAML 1.1 leave plain values, never a Set, a Date, a Uint8Array or a Map.
      ['a !!set tag', 'a: !!set {x, y}\nb: [1]', { a: { x: null, y: null }, b: [1] }],
      ['a !!timestamp tag', 'a: !!timestamp 2001-12-14\nb: [1]', { a: '2001-12-14', b: [1] }],
      ['a !!binary tag', 'a: !!binary aGVsbG8=\nb: [1]', { a: 'aGVsbG8=', b: [1] }],
      ['a !!omap tag', 'a: !!omap [x: 1]\nb: [1]', { a: [{ x: 1 }], b: [1] }],
      // A YAML map of scalars is left to the key-value reading.
      ['YAML of scalars', 'a: 1\nb: two', { a: 1, b: 'two' }],
      // 4. Key-value pairs (key: value or key=value, comma/newline separated).
      ['an equals pair', 'namespace=default', { namespace: 'default' }],
      [
        'pairs split on commas and newlines',
        'namespace: default, verbose=true\nlimit: 5',
        { namespace: 'default', verbose: true, limit: 5 },
      ],
      ['CRLF line ends', 'a: 1\r\nb: 2', { a: 1, b: 2 }],
      ['a later duplicate wins', 'a: 1, a: 2', { a: 2 }],
      ['an equals sign in a value', 'url=http://x/?a=b', { url: 'http://x/?a=b' }],
      ['a colon in a value', 'a: b: c', { a: 'b: c' }],
      // "If any part fails, reject the whole thing", and the known
      // limitation: a comma inside a value makes the text raw.
      ['a comma inside a value', 'tags: a,b,c, name: foo', { input: 'tags: a,b,c, name: foo' }],
      ['a quoted comma', 'msg: "hello, world", n=1', { input: 'msg: "hello, world", n=1' }],
      [
        'prose before a pair',
        'list the pods\nnamespace: default',
        { input: 'list the pods\nnamespace: default' },
      ],
      // 5. Single raw string → {"input": string}.
      [
        'plain prose',
        'get all pods in the default namespace',
        { input: 'get all pods in the default namespace' },
      ],
      ['prose with commas', '  pods, services and jobs  ', { input: 'pods, services and jobs' }],
      ['a URL, which is not a pair', 'http://example.com/a', { input: 'http://example.com/a' }],
      ['a key with a space', 'my key: value', { input: 'my key: value' }],
      ['malformed JSON', '{"message": hi', { input: '{"message": hi' }],
      // Empty input returns empty map (for no-parameter tools).
      ['empty text', '', {}],
      ['whitespace', ' \n\t ', {}],
    ])('%s', (_label, text, expected) => {
      expect(parseActionInput(text)).toStrictEqual(expected);
    });
  });

  describe("the issue's examples (#16)", () => {
    it('takes key-value text with a part that is not a pair whole as raw input', () => {
      expect(parseActionInput('k: v\nplain text line')).toStrictEqual({
        input: 'k: v\nplain text line',
      });
    });

    it('reads integers as strconv.ParseInt does', () => {
      expect(parseActionInput('count: 007')).toStrictEqual({ count: 7 });
    });

    it('leaves a bare YAML list raw', () => {
      expect(parseActionInput('- a\n- b')).toStrictEqual({ input: '- a\n- b' });
    });

    it('skips empty parts between commas', () => {
      expect(parseActionInput('a: 1,, b: 2')).toStrictEqual({ a: 1, b: 2 });
    });
  });

  // coerceValue: booleans, null, strconv.ParseInt(s, 10, 64), then
  // strconv.ParseFloat(s, 64) without NaN and Inf.
  it.each<[string, unknown]>([
    ['true', true],
    ['TRUE', true],
    ['False', false],
    ['null', null],
    ['NULL', null],
    ['None', null],
    ['none', null],
    ['-5', -5],
    ['+7', 7],
    ['0', 0],
    ['-0', 0],
    ['007', 7],
    ['-003', -3],
    ['9007199254740991', 9007199254740991],
    ['3.14', 3.14],
    ['-0.5', -0.5],
    ['.5', 0.5],
    ['5.', 5],
    ['+.5e-3', 0.0005],
    ['1e3', 1000],
    ['1E+3', 1000],
    ['1e-400', 0],
    ['1_000', 1000], // not an integer in base 10, but a Go float literal
    ['1_23.50_0e+1_2', 1.235e14],
    ['0x1p-2', 0.25],
    ['0x1.8p1', 3],
    ['-0X_Fp0', -15],
    // Strings: NaN and Infinity (SPEC §7), overflow, and what Go rejects.
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['+Inf', '+Inf'],
    ['-inf', '-inf'],
    ['1e400', '1e400'],
    ['9007199254740993', '9007199254740993'], // an int64 a number cannot hold
    ['12345678901234567890', '12345678901234567890'],
    ['0x1F', '0x1F'],
    ['0x1p', '0x1p'],
    ['1__000', '1__000'],
    ['_1', '_1'],
    ['1_', '1_'],
    ['1_.5', '1_.5'],
    ['1.2.3', '1.2.3'],
    ['1e', '1e'],
    ['.', '.'],
    ['-', '-'],
    ['+', '+'],
    ['1 000', '1 000'],
    ['yes', 'yes'],
    ['"true"', '"true"'], // the seed keeps quotes
    ["'42'", "'42'"],
    ['', ''],
  ])('coerces the pair value %j to %j', (raw, expected) => {
    expect(parseActionInput(`value=${raw}`)).toStrictEqual({ value: expected });
  });

  describe('options', () => {
    it('quotedValues: unquotes a quoted value and keeps its commas', () => {
      const options = { quotedValues: true };
      expect(parseActionInput('msg: "hello, world", n=1', options)).toStrictEqual({
        msg: 'hello, world',
        n: 1,
      });
      expect(parseActionInput('a="true", b=\'42\', c: "x\\"y"', options)).toStrictEqual({
        a: 'true',
        b: '42',
        c: 'x"y',
      });
      // Without a comma after it, a quote is just text.
      expect(parseActionInput('msg: "a" b, c', options)).toStrictEqual({
        input: 'msg: "a" b, c',
      });
    });

    it('commasInValues: a piece that is not a pair continues the value before it', () => {
      const options = { commasInValues: true };
      expect(parseActionInput('labels: a, b, c', options)).toStrictEqual({ labels: 'a, b, c' });
      expect(parseActionInput('tags: a,b,c, name: foo', options)).toStrictEqual({
        tags: 'a,b,c',
        name: 'foo',
      });
      // Only on the same line, and never before the first pair.
      expect(parseActionInput('k: v\nplain text line', options)).toStrictEqual({
        input: 'k: v\nplain text line',
      });
      expect(parseActionInput('x, k: v', options)).toStrictEqual({ input: 'x, k: v' });
    });

    it('yamlLists: a YAML list becomes { input: list }', () => {
      expect(parseActionInput('- a\n- b', { yamlLists: true })).toStrictEqual({
        input: ['a', 'b'],
      });
      expect(parseActionInput('[a, b]', { yamlLists: true })).toStrictEqual({
        input: ['a', 'b'],
      });
      expect(parseActionInput('[a, b]')).toStrictEqual({ input: '[a, b]' });
    });

    it('all together', () => {
      expect(
        parseActionInput('msg: "hi, there", labels: a, b\nlist: [1]', {
          quotedValues: true,
          commasInValues: true,
          yamlLists: true,
        }),
      ).toStrictEqual({ msg: 'hi, there', labels: 'a, b', list: '[1]' });
    });
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
    expect(parseActionInput('a: 1\n---\nb: [2]')).toStrictEqual({ input: 'a: 1\n---\nb: [2]' });
    expect(parseActionInput('a: 1\na: [2]')).toStrictEqual({ a: '[2]' }); // last duplicate wins
  });

  it('keeps YAML numbers that JSON or JavaScript cannot hold exactly as their text', () => {
    // Sent as numbers they would arrive as null (.inf, .nan, 1e400) or as another number.
    expect(parseActionInput('a: .inf\nb: -.Inf\nc: .nan\nd: 1e400\nl: [1]')).toEqual({
      a: '.inf',
      b: '-.Inf',
      c: '.nan',
      d: '1e400',
      l: [1],
    });
    expect(parseActionInput('big: 9007199254740993\nl: [9007199254740991, 2.5, 0x10]')).toEqual({
      big: '9007199254740993',
      l: [9007199254740991, 2.5, 16],
    });
  });

  it('refuses YAML aliases that make a cycle', () => {
    expect(parseActionInput('&a [*a]', { yamlLists: true })).toStrictEqual({ input: '&a [*a]' });
    // Refused as YAML, the text is still a pair.
    expect(parseActionInput('a: &a [*a]')).toStrictEqual({ a: '&a [*a]' });
  });

  it('returns {} or { input } for non-string input from untyped callers', () => {
    expect(parseActionInput(undefined as unknown as string)).toStrictEqual({});
    expect(parseActionInput(5 as unknown as string)).toStrictEqual({ input: 5 });
    expect(parseActionInput('a: 1', null as unknown as ParseActionInputOptions)).toStrictEqual({
      a: 1,
    });
  });

  describe('never throws and always returns a plain object', () => {
    // A predicate rather than `expect` calls: fast-check reports the
    // shrunk counterexample, and thousands of runs stay fast.
    const check = (text: string, options?: ParseActionInputOptions): boolean => {
      const result: unknown = parseActionInput(text, options);
      return (
        typeof result === 'object' &&
        result !== null &&
        Object.getPrototypeOf(result) === Object.prototype
      );
    };
    const options = fc.record(
      { quotedValues: fc.boolean(), commasInValues: fc.boolean(), yamlLists: fc.boolean() },
      { requiredKeys: [] },
    );

    it('for random strings', () => {
      fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), options, check), {
        numRuns: 500,
      });
    });

    it('for JSON text', () => {
      fc.assert(
        fc.property(fc.jsonValue(), options, (value, settings) =>
          check(JSON.stringify(value) ?? '', settings),
        ),
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
        '0x',
        '_',
        'p-2',
        '.5',
        'e9',
        '007',
        '\\"',
      );
      fc.assert(
        fc.property(fc.array(token, { maxLength: 40 }), options, (tokens, settings) =>
          check(tokens.join(''), settings),
        ),
        { numRuns: 1000 },
      );
    });
  });
});
