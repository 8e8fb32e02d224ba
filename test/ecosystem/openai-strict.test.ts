import { describe, expect, it } from 'vitest';
import { openAIStrictIssues } from '../../src/ecosystem/openai-strict.js';

const strictObject = (properties: Record<string, unknown>): Record<string, unknown> => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

describe('openAIStrictIssues', () => {
  it('accepts schemas in the supported subset', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...strictObject({
        name: { type: 'string', description: 'who', pattern: '^[a-z]+$' },
        nickname: { type: ['string', 'null'] },
        when: { type: 'string', format: 'date-time' },
        count: { type: 'integer', minimum: 0, maximum: 10 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1 },
        nested: strictObject({ flag: { type: 'boolean' } }),
        either: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/thing' }] },
      }),
      $defs: { thing: strictObject({ id: { type: 'number' } }) },
    };
    const before = JSON.stringify(schema);
    expect(openAIStrictIssues(schema)).toEqual([]);
    expect(JSON.stringify(schema)).toBe(before);
  });

  it('requires additionalProperties: false and every property required, at every level', () => {
    expect(openAIStrictIssues({ type: 'object', properties: { a: { type: 'string' } } })).toEqual([
      '#: an object needs "additionalProperties": false',
      '#: "required" must list every property (missing: a)',
    ]);
    expect(
      openAIStrictIssues(
        strictObject({
          inner: {
            type: 'object',
            properties: { b: { type: 'number' } },
            additionalProperties: false,
          },
        }),
      ),
    ).toEqual(['#/properties/inner: "required" must list every property (missing: b)']);
  });

  it.each([
    [{ default: 'x' }, '"default" is not supported'],
    [{ minLength: 1 }, '"minLength" is not supported'],
    [{ oneOf: [{ type: 'string' }] }, '"oneOf" is not supported'],
    [{ format: 'uri' }, '"format": "uri" is not one of'],
    [{ minItems: 1 }, '"minItems" does not apply to type string'],
  ])('refuses unsupported keywords: %j', (extra, issue) => {
    const issues = openAIStrictIssues(strictObject({ a: { type: 'string', ...extra } }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain('#/properties/a: ');
    expect(issues[0]).toContain(issue);
  });

  it('refuses a non-object root, an anyOf root and remote references', () => {
    expect(openAIStrictIssues({ type: 'string' })).toContain(
      '#: the root must have "type": "object"',
    );
    expect(
      openAIStrictIssues({ type: 'object', anyOf: [], additionalProperties: false }),
    ).toContain('#: the root must not be "anyOf"');
    expect(openAIStrictIssues(strictObject({ a: { $ref: 'https://example.com/s.json' } }))).toEqual(
      ['#/properties/a: "$ref" must point inside the schema'],
    );
    expect(openAIStrictIssues(true)).toEqual(['#: the schema must be a JSON object']);
  });

  it('refuses schemas nested deeper than 10 levels', () => {
    let schema: Record<string, unknown> = strictObject({ leaf: { type: 'string' } });
    for (let level = 0; level < 10; level += 1) schema = strictObject({ child: schema });
    expect(openAIStrictIssues(schema).join('\n')).toContain('nested deeper than 10 levels');
  });
});
