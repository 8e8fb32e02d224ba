/**
 * The wording of argument problems in `issues.ts`: the subject a path
 * becomes, how a received value is described (strings cut at 40
 * characters), type phrases, merged and numbered alternatives, and the
 * predicate of each leaf keyword.
 */
import { describe, expect, it } from 'vitest';
import type { JsonData, JsonRecord } from '../../../src/core/json.js';
import {
  alternativesFinding,
  describeTyped,
  describeValue,
  leafPredicate,
  subjectOf,
  typeFinding,
  type Finding,
} from '../../../src/mcp/schema/issues.js';

describe('subjectOf', () => {
  it.each([
    [[], 'the arguments'],
    [['user'], '"user"'],
    [['user', 'age'], '"user.age"'],
    [['$ref', '_x', 'a-b', 'c1'], '"$ref._x.a-b.c1"'],
    [['tags', 0], '"tags[0]"'],
    [['grid', 1, 2, 'v'], '"grid[1][2].v"'],
    [[0], '"[0]"'],
    [[3, 'a'], '"[3].a"'],
    [['a.b'], '"[\\"a.b\\"]"'],
    [['items', 'a.b'], '"items[\\"a.b\\"]"'],
    [['first name'], '"[\\"first name\\"]"'],
    [['0'], '"[\\"0\\"]"'],
    [['-x'], '"[\\"-x\\"]"'],
    [[''], '"[\\"\\"]"'],
    [['é'], '"[\\"é\\"]"'],
    [['a"b'], '"[\\"a\\\\\\"b\\"]"'],
  ] as const)('labels %j as %s', (path, subject) => {
    expect(subjectOf(path)).toBe(subject);
  });
});

describe('describeValue and describeTyped', () => {
  const forty = 'x'.repeat(40);

  it.each([
    ['abc', '"abc"', 'a string ("abc")'],
    ['', '""', 'a string ("")'],
    [forty, `"${forty}"`, `a string ("${forty}")`],
    [`${forty}y`, `"${forty}…"`, `a string ("${forty}…")`],
    ['say "hi"', '"say \\"hi\\""', 'a string ("say \\"hi\\"")'],
    [5, '5', 'a number (5)'],
    [-0.5, '-0.5', 'a number (-0.5)'],
    [Number.NaN, 'NaN', 'a number (NaN)'],
    [true, 'true', 'a boolean (true)'],
    [null, 'null', 'null'],
    [undefined, 'nothing', 'nothing'],
    [[], 'an array of 0 items', 'an array of 0 items'],
    [[1], 'an array of 1 item', 'an array of 1 item'],
    [[1, 2], 'an array of 2 items', 'an array of 2 items'],
    [{ a: 1 }, 'an object', 'an object'],
    [10n, 'bigint', 'a value of type bigint (bigint)'],
    [Symbol('s'), 'symbol', 'a value of type symbol (symbol)'],
  ])('describes %o as %s, typed as %s', (value, plain, typed) => {
    expect(describeValue(value)).toBe(plain);
    expect(describeTyped(value)).toBe(typed);
  });

  it('cuts at 40 UTF-16 units, as String.slice does', () => {
    expect(describeValue('é'.repeat(41))).toBe(`"${'é'.repeat(40)}…"`);
  });
});

describe('typeFinding', () => {
  it.each([
    [['string'], 'must be a string'],
    [['integer'], 'must be an integer'],
    [['object'], 'must be an object'],
    [['array'], 'must be an array'],
    [['boolean'], 'must be a boolean'],
    [['number'], 'must be a number'],
    [['null'], 'must be null'],
    [['string', 'null'], 'must be a string or null'],
    [['string', 'integer', 'null'], 'must be a string, an integer or null'],
    [['string', 'string', 'number'], 'must be a string or a number'],
    [['date'], 'must be date'],
    [[], 'must be nothing'],
  ])('words %j as "%s"', (expected, phrase) => {
    expect(typeFinding(['a'], expected, 'x')).toEqual({
      path: ['a'],
      keyword: 'type',
      expected,
      predicate: `${phrase}; received a string ("x")`,
    });
  });
});

describe('alternativesFinding', () => {
  const value = 1.5;
  const typed = (path: (string | number)[], ...names: string[]): Finding =>
    typeFinding(path, names, value);
  const finding = (path: (string | number)[], predicate: string): Finding => ({
    path,
    keyword: 'minLength',
    predicate,
  });

  it('merges alternatives that differ only by type at the same path', () => {
    expect(
      alternativesFinding(['v'], 'anyOf', value, [
        [typed(['v'], 'string')],
        [typed(['v'], 'integer', 'null')],
        [typed(['v'], 'string')],
      ]),
    ).toEqual({
      path: ['v'],
      keyword: 'type',
      expected: ['string', 'integer', 'null', 'string'],
      predicate: 'must be a string, an integer or null; received a number (1.5)',
    });
  });

  it('numbers the alternatives when one is not a plain type finding here', () => {
    expect(
      alternativesFinding(['v'], 'oneOf', value, [
        [typed(['v'], 'string')],
        [typed(['v', 'id'], 'integer')],
        [
          finding(['v'], 'must have at least 2 characters'),
          finding(['v', 'x'], 'is required'),
          finding(['v'], 'third'),
        ],
        [],
      ]),
    ).toEqual({
      path: ['v'],
      keyword: 'oneOf',
      predicate:
        'must match exactly one of 4 alternatives, but: (1) must be a string; received a number (1.5); (2) "id" must be an integer; received a number (1.5); (3) must have at least 2 characters, "x" is required; (4) does not match',
    });
  });

  it('says "at least one" for anyOf', () => {
    const result = alternativesFinding([], 'anyOf', {}, [[finding(['a'], 'is required')], []]);
    expect(result.predicate).toBe(
      'must match at least one of 2 alternatives, but: (1) "a" is required; (2) does not match',
    );
    expect(result.keyword).toBe('anyOf');
  });

  it('shows at most 8 alternatives, and counts them all', () => {
    const alternatives = Array.from({ length: 10 }, (_, i) => [finding([], `no ${i + 1}`)]);
    const { predicate } = alternativesFinding([], 'anyOf', 'x', alternatives);
    expect(predicate).toBe(
      `must match at least one of 10 alternatives, but: ${Array.from({ length: 8 }, (_, i) => `(${i + 1}) no ${i + 1}`).join('; ')}`,
    );
  });
});

describe('leafPredicate', () => {
  const leaf = (
    keyword: string,
    own: JsonData | undefined,
    value: unknown,
    node: JsonRecord | undefined = undefined,
    error = 'the validator says no.',
  ): string => leafPredicate(keyword, { own, node, value, error });

  it.each([
    ['const', 2, 3, 'must be 2; received 3'],
    ['const', { a: [1] }, 'x', 'must be {"a":[1]}; received "x"'],
    ['enum', [], 'x', 'is not allowed here (the schema lists no value)'],
    ['enum', ['a'], 'b', 'must be "a"; received "b"'],
    ['enum', ['S', 'M', 'L'], 'XL', 'must be one of "S", "M", "L"; received "XL"'],
    [
      'enum',
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
      0,
      'must be one of 1, 2, 3, 4, 5, 6, 7, 8, …; received 0',
    ],
    ['enum', 'not a list', 'x', 'is not allowed here (the schema lists no value)'],
    ['exclusiveMinimum', 5, 5, 'must be > 5; received 5'],
    ['exclusiveMaximum', 5, 6, 'must be < 5; received 6'],
    ['multipleOf', 0.5, 0.3, 'must be a multiple of 0.5; received 0.3'],
    ['pattern', '^a$', 'b', 'must match /^a$/u; received "b"'],
    ['minLength', 1, '', 'must have at least 1 character; received "" (0)'],
    ['maxLength', 2, '😀😀😀', 'must have at most 2 characters; received "😀😀😀" (3)'],
    ['minItems', 1, [], 'must have at least 1 item; received 0'],
    ['maxItems', 2, [1, 2, 3], 'must have at most 2 items; received 3'],
    ['minItems', 3, 'x', 'must have at least 3 items; received "x"'],
    ['minProperties', 1, {}, 'must have at least 1 property; received 0'],
    ['maxProperties', 2, { a: 1, b: 2, c: 3 }, 'must have at most 2 properties; received 3'],
  ])('words %s of %j for %j', (keyword, own, value, predicate) => {
    expect(leaf(keyword, own, value)).toBe(predicate);
  });

  it('reads draft-04 boolean exclusive bounds beside minimum and maximum', () => {
    expect(leaf('minimum', 0, 0, { exclusiveMinimum: true })).toBe('must be > 0; received 0');
    expect(leaf('minimum', 0, -1, { exclusiveMinimum: false })).toBe('must be >= 0; received -1');
    expect(leaf('minimum', 0, -1)).toBe('must be >= 0; received -1');
    expect(leaf('maximum', 9, 9, { exclusiveMaximum: true })).toBe('must be < 9; received 9');
    expect(leaf('maximum', 9, 10, { exclusiveMaximum: 9 })).toBe('must be <= 9; received 10');
  });

  it('uses the validator’s words where the schema value is not known', () => {
    expect(leaf('minLength', undefined, 'a', undefined, 'String is too short.')).toBe(
      'is invalid: String is too short.',
    );
    expect(leaf('format', 'date', 'x', undefined, 'Bad date.')).toBe('is invalid: Bad date.');
  });

  it('words unquoted keywords from the validator’s sentence', () => {
    expect(
      leaf('uniqueItems', true, [1, 1], undefined, 'Duplicate items at indexes 0 and 3.'),
    ).toBe('must not repeat items; item 3 equals item 0');
    expect(leaf('uniqueItems', true, [1, 1], undefined, 'Duplicates.')).toBe(
      'must not repeat items; item ? equals item ?',
    );
    expect(leaf('not', {}, 1)).toBe('must not match the schema under "not"');
    expect(leaf('minContains', 2, [], undefined, 'Too few.')).toBe(
      'does not hold the right number of matching items: Too few.',
    );
    expect(leaf('maxContains', 1, [], undefined, 'Too many.')).toBe(
      'does not hold the right number of matching items: Too many.',
    );
  });
});
