import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpSchemaError } from '../../../src/core/errors.js';
import { createInputValidator, inputSchemaRefusal } from '../../../src/mcp/schema/index.js';
import { canonicalJsonText } from '../../../src/core/json.js';
import { MAX_SCHEMA_TEXT_LENGTH, surveySchema } from '../../../src/mcp/schema/json.js';
import { containersIn, escapeChars } from '../../support/json-text.js';

describe('surveySchema', () => {
  it('counts the characters of the JSON text, escapes aside, without writing it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(surveySchema(value).chars).toBe(text.length - escapeChars(value));
      }),
      { numRuns: 500 },
    );
  });

  it('counts every object and array, in data and in maps of schemas too', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const schema = { type: 'object', properties: { a: value }, default: value, items: value };
        expect(surveySchema(value).containers).toBe(containersIn(value));
        expect(surveySchema(schema).containers).toBe(2 + 3 * containersIn(value));
      }),
      { numRuns: 300 },
    );
  });

  it('lists the schemas with references, anchors and patterns, not data inside enum, const, default or examples', () => {
    const referring = { $ref: '#/$defs/a' };
    const anchored = { $anchor: 'a', type: 'string' };
    const patterned = { type: 'string', pattern: '^a' };
    const keyed = { type: 'object', patternProperties: { '^x': {} } };
    const data = { $ref: '#/x', $anchor: 'd', pattern: '^d', patternProperties: {} };
    const schema = {
      type: 'object',
      properties: { r: referring, p: patterned, k: keyed, remote: { $ref: 'https://x/y' } },
      $defs: { a: anchored },
      default: { x: data },
      enum: [data],
      const: data,
      examples: [[data]],
    };
    const survey = surveySchema(schema);
    expect(survey.referring).toEqual([referring]);
    expect(survey.anchored).toEqual([anchored]);
    expect(new Set(survey.patterned)).toEqual(new Set([patterned, keyed]));
  });

  it('counts every integer, negative, fractional and exponent form as JSON writes it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.constant(-0),
        ),
        (value) => {
          expect(surveySchema({ n: value }).chars).toBe(JSON.stringify({ n: value }).length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('lists nothing, and shares the empty lists, for a schema with no reference, anchor or pattern', () => {
    const one = surveySchema({ type: 'object', properties: { a: { type: 'string' } } });
    const two = surveySchema({ type: 'string', enum: [{ $ref: '#' }] });
    expect([one.referring, one.anchored, one.patterned]).toEqual([[], [], []]);
    expect(one.referring).toBe(two.patterned);
  });

  it('ends on shared and cyclic objects that only an in-process server can send', () => {
    // 2^200 paths through 200 shared levels, and a cycle at the end.
    let level: Record<string, unknown> = { type: 'object' };
    const bottom = level;
    for (let i = 0; i < 200; i++) level = { type: 'object', properties: { a: level, b: level } };
    bottom['properties'] = { loop: level };
    // Counted as JSON would write it, the walk stops at the size limit.
    const survey = surveySchema(level);
    expect(survey.chars).toBeGreaterThan(MAX_SCHEMA_TEXT_LENGTH);
    expect(survey.chars).toBeLessThan(MAX_SCHEMA_TEXT_LENGTH + 1_000);
    expect(inputSchemaRefusal(level)).toMatch(/above the limit of 262144/);
    expect(() => canonicalJsonText(level, { maxDepth: 200 })).toThrow(/deeper than|cyclic/);
  });

  it('stops the canonical text of shared objects at the size limit instead of writing 2^40 copies', () => {
    let level: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) level = { type: 'object', properties: { a: level, b: level } };
    expect(surveySchema(level).chars).toBeGreaterThan(MAX_SCHEMA_TEXT_LENGTH); // stopped there
    expect(inputSchemaRefusal(level)).toMatch(/above the limit of 262144/);
    expect(() => canonicalJsonText(level, { maxChars: MAX_SCHEMA_TEXT_LENGTH })).toThrow(
      /more than 262144 characters of JSON/,
    );
    expect(() => createInputValidator(level, { serverName: 's', toolName: 't' })).toThrow(
      McpSchemaError,
    );
  });

  it('leaves nothing behind for the next walk when a getter of an in-process schema throws', () => {
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    const clean = surveySchema(plain);
    const hostile = {
      type: 'object',
      properties: {
        loop: { $ref: '#/properties/loop', $anchor: 'x', pattern: '^a' },
        get boom(): never {
          throw new Error('boom');
        },
      },
    };
    expect(() => surveySchema(hostile)).toThrow('boom');
    expect(surveySchema(plain)).toEqual(clean);
    expect(inputSchemaRefusal(plain)).toBeUndefined();
  });

  it('keeps its own work when a getter starts another walk in the middle of it', () => {
    const inner = { type: 'string', pattern: '^b' };
    const outer = {
      type: 'object',
      properties: {
        p: { type: 'string', pattern: '^a' },
        get q(): unknown {
          surveySchema(inner);
          return { type: 'string' };
        },
      },
    };
    const survey = surveySchema(outer);
    expect(survey.patterned).toEqual([outer.properties.p]);
    expect(survey.chars).toBe(JSON.stringify(outer).length);
  });

  it('counts and lists only own keys, even of objects whose prototype has enumerable ones', () => {
    const inherited = Object.create({
      $ref: '#',
      pattern: '(a+)+$',
      padding: 'x'.repeat(1_000),
    }) as {
      type?: string;
    };
    inherited.type = 'string';
    const survey = surveySchema({ type: 'object', properties: { a: inherited } });
    expect(survey.chars).toBe(
      JSON.stringify({ type: 'object', properties: { a: inherited } }).length,
    );
    expect([survey.referring, survey.patterned]).toEqual([[], []]);
  });

  it('does not count a key that someone gave Object.prototype', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, default: { b: 1 } };
    const expected = JSON.stringify(schema).length;
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['polluted'] = { $ref: '#', huge: 'x'.repeat(300_000) }; // enumerable, as an assignment makes it
    try {
      const survey = surveySchema(schema);
      expect(survey.chars).toBe(expected);
      expect(survey.referring).toEqual([]);
    } finally {
      delete prototype['polluted'];
    }
  });

  it('stops at the size limit in cyclic data under default, and lists nothing in it', () => {
    const data: Record<string, unknown> = { $ref: '#', pattern: '^a' };
    data['self'] = data;
    const survey = surveySchema({ type: 'object', default: data, enum: [data] });
    expect(survey.chars).toBeGreaterThan(MAX_SCHEMA_TEXT_LENGTH);
    expect(survey.chars).toBeLessThan(MAX_SCHEMA_TEXT_LENGTH + 1_000);
    expect([survey.referring, survey.anchored, survey.patterned]).toEqual([[], [], []]);
  });

  it('leaves nothing behind when a getter inside data throws', () => {
    const plain = { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } };
    const clean = surveySchema(plain);
    const hostile = {
      type: 'object',
      properties: { a: { $ref: '#/properties/a' } },
      default: {
        list: [{ x: 1 }, { y: [2, 3] }],
        get boom(): never {
          throw new Error('boom');
        },
      },
    };
    expect(() => surveySchema(hostile)).toThrow('boom');
    expect(surveySchema(plain)).toEqual(clean);
  });

  it('reads the names in properties, $defs and the other maps of schemas as names, not keywords', () => {
    const slug = { type: 'string', pattern: '^([a-z0-9]+-)*[a-z0-9]+$' };
    const schema = {
      type: 'object',
      properties: { default: slug, enum: { $ref: '#/$defs/const' }, pattern: { type: 'string' } },
      $defs: { const: { allOf: [{ $ref: '#/$defs/const' }] } },
    };
    const survey = surveySchema(schema);
    expect(survey.patterned).toEqual([slug]);
    expect(survey.referring).toHaveLength(2);
    expect(inputSchemaRefusal(schema)).toMatch(/its \$refs loop without any data in between/);
    const withoutLoop = { type: 'object', properties: { default: slug } };
    const validator = createInputValidator(withoutLoop, { serverName: 's', toolName: 't' });
    expect(validator.safeParse({ default: 'a-b-c' }).success).toBe(true);
    expect(validator.safeParse({ default: `${'a-'.repeat(40)}!` }).success).toBe(false);
  });
});
