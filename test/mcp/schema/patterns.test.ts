/**
 * `patterns.ts` read directly: which patterns `isLinearSafe` calls safe for a
 * backtracking engine, how `unicodePattern` repairs legacy escapes, which
 * patterns `planPatterns` takes for RE2 (risky ones on plain paths) and which it
 * leaves or refuses, and the paths `patternProblems` reports.
 */
import { describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../../src/core/json.js';
import { SchemaProblem, surveySchema } from '../../../src/mcp/schema/json.js';
import { createInputValidator } from '../../../src/mcp/schema/index.js';
import {
  EVERY_ITEM,
  isLinearSafe,
  patternProblems,
  planPatterns,
  unicodePattern,
} from '../../../src/mcp/schema/patterns.js';

const risky = (pattern: string): string =>
  `pattern ${JSON.stringify(pattern)} could take exponential time on a backtracking engine (a repeated group that repeats or alternates inside, or a back-reference), and is not where it can be checked in linear time`;

function plan(schema: JsonRecord): ReturnType<typeof planPatterns> {
  return planPatterns(schema, surveySchema(schema).patterned);
}

/** The problems of `value` under the RE2 checks of `schema`, as path and message. */
function problems(schema: JsonRecord, value: unknown): [unknown[], string][] {
  return patternProblems(plan(schema).checks, value).map(({ path, keyword, message }) => {
    expect(keyword).toBe('pattern');
    return [[...path], message];
  });
}

describe('isLinearSafe', () => {
  it.each([
    '',
    'abc',
    '^[a-z]+$',
    '^\\d{3}-\\d{4}$',
    'a*b*c+',
    '(ab)+',
    '(?:abc){2,5}',
    '(a|b)',
    '(a+)?',
    '(a+){1}',
    '(a+){0,1}',
    '(a*)(b*)',
    '((a)+)',
    '[(a+)+]',
    '[\\]+]+',
    '\\(a+\\)+',
    '(\\d)\\d+',
    '\\0',
    '(?=a+)b',
    '^\\p{L}+$',
  ])('calls %j safe', (pattern) => {
    expect(isLinearSafe(pattern)).toBe(true);
  });

  it.each([
    ['a quantified group that repeats inside', '^(a+)+$'],
    ['a starred group with a star', '(a*)*'],
    ['a non-capturing group', '(?:a*b)*'],
    ['a quantified group that alternates', '(a|b)+'],
    ['{n,} on a repeating group', '(a+){1,}'],
    ['{n} with n > 1 on a repeating group', '(a+){2}'],
    ['{n,m} with m > 1 on a repeating group', '(a+){0,2}'],
    ['a repeating group two levels down', '((a*))*'],
    ['an optional word repeated', '^(\\w+\\s?)*$'],
    ['a repeated group after a class with a paren', '[(]((x+x+)+y)'],
    ['a numbered back-reference', '(a)\\1'],
    ['a back-reference inside a class too', '[\\2]'],
    ['a named back-reference', '(?<n>a)\\k<n>'],
  ])('calls %s unsafe (%j)', (_name, pattern) => {
    expect(isLinearSafe(pattern)).toBe(false);
  });
});

describe('unicodePattern', () => {
  it('returns a pattern the u flag already accepts unchanged', () => {
    for (const pattern of ['^a+$', '^\\p{L}+$', '\\/\\.\\??', '[a\\-z]', '\\u{1F600}']) {
      expect(unicodePattern(pattern)).toBe(pattern);
    }
  });

  it.each([
    ['^[a-z\\_]+$', '^[a-z_]+$'],
    ['\\@example\\.com', '@example\\.com'],
    ['a\\-b', 'a-b'],
    ['[a\\-z\\_]\\-', '[a\\-z_]-'],
    ['\\d\\:\\d', '\\d:\\d'],
    ['\\"quoted\\"', '"quoted"'],
    ['\\ \\#\\%\\&', ' #%&'],
    ['[\\[\\_]\\_', '[\\[_]_'],
  ])('repairs the legacy identity escapes of %j to %j', (legacy, repaired) => {
    expect(unicodePattern(legacy)).toBe(repaired);
    expect(() => new RegExp(repaired, 'u')).not.toThrow();
  });

  it.each([
    ['an unclosed class', '([a-'],
    ['a trailing backslash', 'abc\\'],
    ['a lone brace', 'a{'],
    ['a bad control escape', '\\c'],
    ['a repairable escape beside a broken group', '\\_('],
    ['a look-behind that is not closed', '(?<=a'],
    ['an inline flag group', '(?i)abc'],
  ])('refuses %s (%j)', (_name, pattern) => {
    expect(unicodePattern(pattern)).toBeUndefined();
  });
});

describe('planPatterns', () => {
  it('takes the risky patterns on plain paths (the root, properties, items) for RE2', () => {
    const name = { type: 'string', pattern: '^([a-z]+)+$' };
    const tag = { type: 'string', pattern: '^(#|@)*x$' };
    const cell = { pattern: '^(\\d+)*$' };
    const safe = { type: 'string', pattern: '^[a-z]+$' };
    const schema: JsonRecord = {
      type: 'object',
      pattern: '(x+)+',
      properties: {
        name,
        safe,
        tags: { type: 'array', items: tag },
        grid: { items: { items: cell } },
        'a.b': { properties: { c: { pattern: '(c|d)+' } } },
      },
    };
    const { checks, taken } = plan(schema);
    expect(checks.map(({ path, pattern }) => [path, pattern])).toEqual([
      [[], '(x+)+'],
      [['name'], '^([a-z]+)+$'],
      [['tags', EVERY_ITEM], '^(#|@)*x$'],
      [['grid', EVERY_ITEM, EVERY_ITEM], '^(\\d+)*$'],
      [['a.b', 'c'], '(c|d)+'],
    ]);
    expect([schema, name, tag, cell].every((node) => taken.has(node))).toBe(true);
    expect(taken.has(safe)).toBe(false); // linear-safe: the validator runs it, with ECMA-262's meaning
    expect(taken.size).toBe(5);
    expect(checks[1]?.re2.matcher('abc').find()).toBe(true);
    expect(checks[1]?.re2.matcher('ab1').find()).toBe(false);
  });

  it('leaves patterns elsewhere with the validator when they are linear-safe', () => {
    const schema: JsonRecord = {
      type: 'object',
      $defs: { Code: { type: 'string', pattern: '^[A-Z]{3}$' } },
      properties: {
        a: { anyOf: [{ pattern: '^a' }, { type: 'number' }] },
        b: { $ref: '#/$defs/Code' },
        t: { type: 'array', prefixItems: [{ pattern: '^t' }], items: [{ pattern: '^u' }] },
        look: { pattern: '(?=a)a' }, // RE2 has no look-ahead
      },
      patternProperties: { '^x-': { type: 'string' } },
      additionalProperties: { pattern: '^z' },
    };
    const { checks, taken } = plan(schema);
    expect(checks).toEqual([]);
    expect(taken.size).toBe(0);
  });

  it.each([
    ['under anyOf', { properties: { a: { anyOf: [{ pattern: '^(a+)+$' }] } } }, '^(a+)+$'],
    ['under $defs', { $defs: { S: { pattern: '(x+x+)+y' } } }, '(x+x+)+y'],
    ['under allOf at the root', { allOf: [{ pattern: '(a|b)*c' }] }, '(a|b)*c'],
    ['as a patternProperties key', { patternProperties: { '^(a*)*$': {} } }, '^(a*)*$'],
    [
      'behind a $ref from a property',
      { $defs: { S: { pattern: '(a*)*' } }, properties: { a: { $ref: '#/$defs/S' } } },
      '(a*)*',
    ],
    [
      'on a plain path, when RE2 cannot compile it (a back-reference)',
      { properties: { a: { pattern: '(a+)\\1' } } },
      '(a+)\\1',
    ],
  ])('refuses a risky pattern %s, naming it', (_name, schema, pattern) => {
    let error: unknown;
    try {
      plan({ type: 'object', ...schema });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SchemaProblem);
    expect((error as Error).message).toBe(risky(pattern));
  });

  it('does not modify the schema', () => {
    const schema: JsonRecord = {
      type: 'object',
      properties: {
        s: { type: 'string', pattern: '^(a+)+$' },
        l: { items: { pattern: '(b|c)*' } },
        o: { oneOf: [{ pattern: '^c' }] },
      },
      patternProperties: { '^d': {} },
    };
    const before = structuredClone(schema);
    const { taken } = plan(schema);
    expect(taken.size).toBe(2);
    expect(schema).toEqual(before);
  });

  it('checks a pattern under a property named "*" (not read as "every item")', () => {
    expect(problems({ properties: { '*': { pattern: '^(a+)+$' } } }, { '*': 'b' })).toEqual([
      [['*'], '"[\\"*\\"]" must match /^(a+)+$/u; received "b"'],
    ]);
    expect(problems({ properties: { '*': { pattern: '^(a+)+$' } } }, { '*': 'aa' })).toEqual([]);
  });
});

describe('patterns as the validator reads them (end to end)', () => {
  const ids = { serverName: 's', toolName: 't' };
  const accepts = (pattern: string, text: string): boolean =>
    createInputValidator({ type: 'object', properties: { s: { pattern } } }, ids).safeParse({
      s: text,
    }).success;

  it('reads \\s and . as ECMA-262 does on a plain path', () => {
    expect(accepts('^\\s$', '\u00a0')).toBe(true); // a no-break space is white space
    expect(accepts('^.$', '\r')).toBe(false); // . matches no line terminator
    expect(accepts('^\\p{L}+$', 'é')).toBe(true);
  });

  it('refuses a pattern JavaScript cannot read, on a plain path too', () => {
    expect(() =>
      createInputValidator({ type: 'object', properties: { s: { pattern: '(?i)^abc$' } } }, ids),
    ).toThrow(/not a valid regular expression/);
  });
});

describe('patternProblems', () => {
  const schema: JsonRecord = {
    type: 'object',
    properties: {
      code: { pattern: '^([A-Z]{3})+$' },
      tags: { items: { pattern: '^(#+)+' } },
      grid: { items: { items: { pattern: '^(\\d+)+$' } } },
      user: { properties: { 'first name': { pattern: '(a+)+' } } },
    },
  };

  it('reports each string on a check’s path that its pattern does not match, with its path', () => {
    const value = {
      code: 'abcd',
      tags: ['#ok', 'bad', '#fine', 'worse'],
      grid: [['1', 'x'], [], ['22']],
      user: { 'first name': 'Bob' },
    };
    expect(problems(schema, value)).toEqual([
      [['code'], '"code" must match /^([A-Z]{3})+$/u; received "abcd"'],
      [['tags', 1], '"tags[1]" must match /^(#+)+/u; received "bad"'],
      [['tags', 3], '"tags[3]" must match /^(#+)+/u; received "worse"'],
      [['grid', 0, 1], '"grid[0][1]" must match /^(\\d+)+$/u; received "x"'],
      [['user', 'first name'], '"user[\\"first name\\"]" must match /(a+)+/u; received "Bob"'],
    ]);
  });

  it('matches anywhere in the string, as JSON Schema does (patterns are not anchored)', () => {
    expect(problems(schema, { user: { 'first name': 'Dana' } })).toEqual([]);
  });

  it('leaves values that are not strings, missing, or of another shape to the validator', () => {
    const value = {
      code: 5,
      tags: { 0: 'bad' },
      grid: ['x', [null, 3]],
      user: ['first name'],
    };
    expect(problems(schema, value)).toEqual([]);
    expect(problems(schema, {})).toEqual([]);
    expect(problems(schema, 'not an object')).toEqual([]);
  });

  it('does not read inherited members as arguments', () => {
    const inherited = Object.create({ code: 'abcd' }) as object;
    expect(problems(schema, inherited)).toEqual([]);
  });

  it('shortens a long received string to 40 characters', () => {
    const long = 'z'.repeat(45);
    expect(problems(schema, { code: long })).toEqual([
      [['code'], `"code" must match /^([A-Z]{3})+$/u; received "${'z'.repeat(40)}…"`],
    ]);
  });

  it('checks the arguments themselves under a root pattern (path [])', () => {
    expect(problems({ pattern: '(x+)+' }, 'abc')).toEqual([
      [[], 'the arguments must match /(x+)+/u; received "abc"'],
    ]);
  });
});
