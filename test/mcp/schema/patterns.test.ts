/**
 * `patterns.ts` read directly: how `unicodePattern` repairs legacy escapes,
 * which patterns `planPatterns` takes out for RE2 and which it refuses, the
 * paths `patternProblems` reports, and that no pattern, however
 * catastrophic on a backtracking engine, is left for one.
 */
import { describe, expect, it } from 'vitest';
import type { JsonRecord } from '../../../src/core/json.js';
import { SchemaProblem, surveySchema } from '../../../src/mcp/schema/json.js';
import {
  clearSchemaCache,
  createInputValidator,
  inputSchemaRefusal,
  MAX_CACHED_PATTERN_INSTRUCTIONS,
  schemaCacheStats,
} from '../../../src/mcp/schema/index.js';
import { patternProblems } from '../../../src/mcp/schema/pattern-check.js';
import {
  MAX_SCHEMA_PATTERN_INSTRUCTIONS,
  planPatterns,
  unicodePattern,
} from '../../../src/mcp/schema/patterns.js';
import { regExpsRunDuring } from './regexp-spy.js';

function plan(schema: JsonRecord): ReturnType<typeof planPatterns> {
  return planPatterns(schema, surveySchema(schema).patterned);
}

/** The problems of `value` under the RE2 checks of `schema`, as path and message. */
function problems(schema: JsonRecord, value: unknown): [unknown[], string][] {
  return patternProblems(plan(schema).root, value).map(({ path, keyword, message }) => {
    expect(['pattern', 'propertyNames']).toContain(keyword);
    return [[...path], message];
  });
}

/** The message `planPatterns` refuses `schema` with. */
function refusal(schema: JsonRecord): string {
  try {
    plan({ type: 'object', ...schema });
  } catch (error) {
    expect(error).toBeInstanceOf(SchemaProblem);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

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
  it('takes every pattern where it applies plainly, safe-looking ones too, for RE2', () => {
    const name = { type: 'string', pattern: '^[a-z]+$' };
    const digits = { type: 'string', pattern: '^\\d*\\d*x$' };
    const tag = { pattern: '^(#|@)*x$' };
    const code = { type: 'string', pattern: '^[A-Z]{3}$' };
    const optional = { type: 'string', pattern: '^(a|a)*$' };
    const schema: JsonRecord = {
      type: 'object',
      $defs: { Code: code },
      properties: {
        name,
        digits,
        tags: { type: 'array', items: tag },
        code: { $ref: '#/$defs/Code' },
        both: { allOf: [{ minLength: 1 }, { pattern: '^b' }] },
        maybe: { anyOf: [optional, { type: 'null' }] },
      },
    };
    const { root, taken } = plan(schema);
    expect([name, digits, tag, code, optional].every((node) => taken.has(node))).toBe(true);
    expect(taken.size).toBe(6);
    expect(root?.properties.get('name')?.own?.pattern).toBe('^[a-z]+$');
    expect(root?.properties.get('tags')?.items?.own?.pattern).toBe('^(#|@)*x$');
    expect(root?.properties.get('code')?.also[0]?.own?.pattern).toBe('^[A-Z]{3}$');
    expect(root?.properties.get('maybe')?.ifString[0]?.own?.pattern).toBe('^(a|a)*$');
  });

  it('plans nothing for a schema without patterns, or whose patterns never apply', () => {
    expect(plan({ type: 'object', properties: { a: { type: 'string' } } }).root).toBeUndefined();
    const unused = { pattern: '^(a+)+$' };
    const { root, inert } = plan({ type: 'object', $defs: { unused } });
    expect(root).toBeUndefined();
    expect(inert.has(unused)).toBe(true); // dropped from the validator's copy all the same
  });

  it.each([
    [
      'under an annotation (ajv-errors)',
      { properties: { id: { type: 'string', errorMessage: { pattern: 'digits only (0-9' } } } },
    ],
    ['under a vendor keyword', { 'x-ui': { patternProperties: { '^(a|b)$': {} } } }],
    ['under examples given as an object', { examples: { pattern: '(' } }],
    [
      'under a keyword draft-07 does not have',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        properties: { v: { unevaluatedProperties: { pattern: '^(a|b)+$' } } },
      },
    ],
    [
      'beside a $ref in draft-07',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: { o: { type: 'object' } },
        properties: { v: { $ref: '#/definitions/o', patternProperties: { '^(a|b)$': {} } } },
      },
    ],
  ])('judges no pattern the validator never applies: %s', (_where, schema) => {
    const { root, inert } = plan(schema);
    expect(root).toBeUndefined();
    expect(inert.size).toBe(1);
  });

  it('follows no reference the dialect does not have', () => {
    // 2020-12 replaced $recursiveRef with $dynamicRef; draft-07 has neither.
    expect(
      plan({ properties: { v: { $recursiveRef: '#/$defs/s' } }, $defs: { s: { pattern: '(' } } })
        .inert.size,
    ).toBe(1);
  });

  it('still judges a pattern under an unknown keyword that a $ref reaches', () => {
    expect(() =>
      plan({
        properties: { id: { $ref: '#/x-shared/id' } },
        'x-shared': { id: { type: 'string', pattern: '(' } },
      }),
    ).toThrow('is not a valid regular expression');
  });

  it.each([
    ['under not', { properties: { a: { not: { pattern: '^a+' } } } }, 'not'],
    ['under if', { if: { pattern: '^a+' }, then: {} }, 'if'],
    [
      'under an anyOf with two string branches',
      { properties: { a: { anyOf: [{ pattern: '^a+' }, { maxLength: 2 }] } } },
      'anyOf',
    ],
    [
      'under additionalProperties beside patternProperties',
      { patternProperties: { '^x-': {} }, additionalProperties: { pattern: '^a+' } },
      'additionalProperties',
    ],
    [
      'behind a $ref from under oneOf as well as from a property',
      {
        $defs: { S: { pattern: '^a+' } },
        properties: {
          a: { $ref: '#/$defs/S' },
          b: { oneOf: [{ $ref: '#/$defs/S' }, { type: 'string' }] },
        },
      },
      'oneOf',
    ],
  ])(
    'refuses a pattern with choices %s, naming it and where patterns are checked',
    (_name, schema, keyword) => {
      const message = refusal(schema);
      expect(message).toMatch(/^pattern "\^a\+" at #\/\S+ sits under "/);
      expect(message).toContain(
        `sits under "${keyword}", where it cannot be checked in linear time`,
      );
    },
  );

  it('leaves a pattern without choices with the validator where RE2 cannot take it', () => {
    const fixed = { pattern: '^[A-Z]{3}-x$' };
    const schema: JsonRecord = {
      type: 'object',
      patternProperties: { '^x-': { type: 'string' } },
      properties: { a: { not: fixed } },
    };
    const { root, taken } = plan(schema);
    expect(taken.has(fixed)).toBe(false);
    expect(root).toBeUndefined();
    const validator = createInputValidator(schema, { serverName: 's', toolName: 't' });
    expect(validator.safeParse({ a: 'ABC-x' }).success).toBe(false);
    expect(validator.safeParse({ a: 'abc', 'x-1': 's' }).success).toBe(true);
    expect(validator.safeParse({ 'x-1': 1 }).success).toBe(false);
  });

  it('checks additionalProperties, propertyNames and tuples plainly', () => {
    const schema: JsonRecord = {
      type: 'object',
      properties: {
        a: {},
        t: { prefixItems: [true, { pattern: '^t+$' }], items: { pattern: '^i+$' } },
      },
      additionalProperties: { pattern: '^v+$' },
      propertyNames: { pattern: '^[a-z]+$' },
    };
    expect(
      problems(schema, { a: 'x', b: 'vv', c: 'x', t: ['x', 'tt', 'ii', 'x'], Bad: 'v' }),
    ).toEqual([
      [['Bad'], '"Bad" is not an allowed property name: must match /^[a-z]+$/u; received "Bad"'],
      [['t', 3], '"t[3]" must match /^i+$/u; received "x"'],
      [['c'], '"c" must match /^v+$/u; received "x"'],
    ]);
  });

  it.each([
    ['a back-reference', '(a+)\\1', 'a back-reference'],
    ['a named back-reference', '(?<n>a)\\k<n>', 'a back-reference'],
    ['a look-ahead past the start', '^a(?=.*\\d).{8,}$', 'a look-around'],
    ['a look-behind', '(?<!a)b', 'a look-around'],
  ])(
    'leaves a pattern with %s unchecked where that only accepts more, and refuses it under not',
    (_name, pattern, reason) => {
      const property: JsonRecord = { pattern };
      const schema: JsonRecord = { type: 'object', properties: { a: property } };
      // Out of the validator's copy, and not checked: the server remains the authority.
      expect(plan(schema).taken.has(property)).toBe(true);
      expect(problems(schema, { a: 'anything' })).toEqual([]);
      expect(refusal({ properties: { a: { not: { pattern } } } })).toBe(
        `pattern ${JSON.stringify(pattern)} at #/properties/a/not cannot be checked in linear time (${reason}), and it sits where leaving it out would change what the schema refuses`,
      );
    },
  );

  it('names the $ref it cannot follow when that leaves a pattern unplaced', () => {
    expect(refusal({ $ref: '#/$defs/missing', properties: { a: { pattern: '^a+$' } } })).toBe(
      'pattern "^a+$" at #/properties/a cannot be checked in linear time: "$ref" "#/$defs/missing" of the schema does not resolve to one place inside it (a JSON Pointer to a subschema, or a unique anchor of a single resource), so where the pattern applies is unknown',
    );
  });

  it('refuses a choice-free pattern that is not anchored where RE2 cannot take it: every start would be tried', () => {
    expect(refusal({ properties: { a: { not: { pattern: '[^!]{200}!' } } } })).toMatch(
      /sits under "not"/,
    );
    expect(() =>
      plan({ type: 'object', properties: { a: { not: { pattern: '^[^!]{200}!' } } } }),
    ).not.toThrow();
  });

  it('ignores a pattern beside a $ref in draft 7, as the validator does', () => {
    const schema: JsonRecord = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { $ref: '#/definitions/s', pattern: '^x+$' } },
      definitions: { s: { type: 'string' } },
    };
    expect(problems(schema, { a: 'y' })).toEqual([]);
    const { $schema: _draft, ...latest } = schema;
    expect(problems(latest, { a: 'y' })).toHaveLength(1);
  });

  it('refuses a patternProperties key with choices, which only a backtracking engine would run', () => {
    expect(refusal({ patternProperties: { '^x-\\d+$': { type: 'string' } } })).toMatch(
      /^"patternProperties" at # has the key "\^x-\\\\d\+\$", which would run on JavaScript's backtracking engine/,
    );
  });

  it('refuses a pattern that is no regular expression', () => {
    expect(refusal({ properties: { a: { pattern: '(?i)abc' } } })).toBe(
      '"pattern" at #/properties/a is not a valid regular expression: "(?i)abc"',
    );
  });

  it('does not modify the schema', () => {
    const schema: JsonRecord = {
      type: 'object',
      properties: {
        s: { type: 'string', pattern: '^(a+)+$' },
        l: { items: { pattern: '(b|c)*' } },
        o: { oneOf: [{ pattern: '^c' }, { type: 'number' }] },
      },
    };
    const before = structuredClone(schema);
    expect(plan(schema).taken.size).toBe(3);
    expect(schema).toEqual(before);
  });

  it('checks a pattern under a property named "*"', () => {
    expect(problems({ properties: { '*': { pattern: '^(a+)+$' } } }, { '*': 'b' })).toEqual([
      [['*'], '"[\\"*\\"]" must match /^(a+)+$/u; received "b"'],
    ]);
    expect(problems({ properties: { '*': { pattern: '^(a+)+$' } } }, { '*': 'aa' })).toEqual([]);
  });
});

describe('catastrophic patterns never reach a backtracking engine', () => {
  const ids = { serverName: 's', toolName: 't' };
  // Small inputs: a backtracking engine still answers (it is slow, not stuck),
  // so without the linear engine this fails on its assertions, not a hang.
  it.each([
    ['^(a+)+$', `${'a'.repeat(18)}!`, 'aaa'],
    ['^(a|a)*$', `${'a'.repeat(18)}!`, 'aaa'],
    ['(a|ab)*c', 'ab'.repeat(12), 'abc'],
    ['^(\\w+\\s?)*$', `${'word '.repeat(5)}!`, 'two words'],
    ['^\\d*\\d*\\d*\\d*\\d*\\d*x$', '1'.repeat(20), '11x'],
    ['(x+x+)+y', 'x'.repeat(18), 'xxy'],
    ['^[a-z]+x', 'a'.repeat(200), 'ax'],
  ])('%j runs on RE2, with the right verdict', async (pattern, bad, good) => {
    const property = { type: 'string', pattern };
    const schema = {
      type: 'object',
      properties: { s: property, t: { anyOf: [property, { type: 'null' }] } },
    };
    expect(plan(schema).taken.has(property)).toBe(true);
    const validator = createInputValidator(schema, ids);
    const run = await regExpsRunDuring(() => {
      expect(validator.safeParse({ s: bad }).success).toBe(false);
      expect(validator.safeParse({ t: bad }).success).toBe(false);
      expect(validator.safeParse({ s: good, t: good }).success).toBe(true);
      expect(validator.safeParse({ t: null }).success).toBe(true);
    });
    expect(run).not.toContain(pattern);
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

  it('refuses a pattern JavaScript cannot read', () => {
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

describe('what patterns may compile to', () => {
  /** A schema of `count` properties, each with a pattern of about a thousand RE2 instructions. */
  const heavy = (count: number, tag = ''): JsonRecord => ({
    type: 'object',
    properties: Object.fromEntries(
      Array.from({ length: count }, (_, i) => [`p${i}`, { pattern: `^${tag}x{99${i % 10}}$` }]),
    ),
  });

  it(`refuses a schema whose patterns compile to more than ${MAX_SCHEMA_PATTERN_INSTRUCTIONS} instructions, naming the bound`, () => {
    expect(plan(heavy(9)).instructions).toBeGreaterThan(8_900);
    expect(plan(heavy(9)).instructions).toBeLessThanOrEqual(MAX_SCHEMA_PATTERN_INSTRUCTIONS);
    expect(refusal(heavy(11))).toMatch(
      new RegExp(
        `^its patterns compile to more than ${MAX_SCHEMA_PATTERN_INSTRUCTIONS} RE2 instructions \\(the limit of one schema; "\\^x\\{99\\d\\}\\$" at #/properties/p\\d+ alone takes \\d+\\)`,
      ),
    );
  });

  it('refuses the schema that takes a listing past its shared budget, and only from there', () => {
    const budget = { instructions: 30_000, instructionsLeft: 30_000 };
    expect(inputSchemaRefusal(heavy(9, 'a'), budget)).toBeUndefined();
    expect(inputSchemaRefusal(heavy(9, 'b'), budget)).toBeUndefined();
    expect(inputSchemaRefusal(heavy(9, 'c'), budget)).toBeUndefined();
    expect(inputSchemaRefusal(heavy(9, 'd'), budget)).toBe(
      "the patterns of the server's schemas together compile to more than 30000 RE2 instructions, more than checking them in bounded time and memory allows",
    );
    // Alone, the same schema passes: the budget is the listing's.
    expect(inputSchemaRefusal(heavy(9, 'd'))).toBeUndefined();
  });

  it(`keeps validators whose patterns hold at most ${MAX_CACHED_PATTERN_INSTRUCTIONS} instructions, dropping the least recently used`, () => {
    clearSchemaCache();
    const ids = { serverName: 's', toolName: 't' };
    const count = Math.ceil(MAX_CACHED_PATTERN_INSTRUCTIONS / 9_000) + 3;
    for (let i = 0; i < count; i++) createInputValidator(heavy(9, `v${i}-`), ids);
    const stats = schemaCacheStats();
    expect(stats.patternInstructions).toBeLessThanOrEqual(MAX_CACHED_PATTERN_INSTRUCTIONS);
    expect(stats.evictions).toBeGreaterThanOrEqual(3);
    expect(stats.size).toBe(count - stats.evictions);
    // The last one made is kept: asked for again, it is a hit.
    createInputValidator(heavy(9, `v${count - 1}-`), ids);
    expect(schemaCacheStats().hits).toBe(1);
    clearSchemaCache();
  });
});
