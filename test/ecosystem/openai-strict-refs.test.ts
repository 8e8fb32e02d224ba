import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toOpenAITools } from '../../src/ecosystem/openai.js';
import { openAIStrictIssues } from '../../src/ecosystem/openai-strict.js';
import { Tool, ToolResult } from '../../src/index.js';

const strictObject = (properties: Record<string, unknown>): Record<string, unknown> => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/** Keywords strict mode does not support: the runtime enforces them, OpenAI would not. */
const hidden = { type: 'string', minLength: 8, not: { const: 'password1' } };

describe('openAIStrictIssues: additionalProperties and $ref targets', () => {
  it('refuses an additionalProperties schema on a node with neither type nor properties, and checks it', () => {
    const issues = openAIStrictIssues(strictObject({ m: { additionalProperties: hidden } }));
    expect(issues).toEqual([
      '#/properties/m: "additionalProperties" must be false',
      '#/properties/m/additionalProperties: "minLength" is not supported in strict mode',
      '#/properties/m/additionalProperties: "not" is not supported in strict mode',
    ]);
    expect(openAIStrictIssues(strictObject({ m: { additionalProperties: true } }))).toEqual([
      '#/properties/m: "additionalProperties" must be false',
    ]);
    expect(
      openAIStrictIssues(
        strictObject({ m: { anyOf: [{ type: 'null' }], additionalProperties: false } }),
      ),
    ).toEqual([]);
  });

  it("checks a typed object's additionalProperties schema too", () => {
    const issues = openAIStrictIssues(
      strictObject({ m: { type: 'object', additionalProperties: hidden } }),
    );
    expect(issues).toContain('#/properties/m: an object needs "additionalProperties": false');
    expect(issues).toContain(
      '#/properties/m/additionalProperties: "minLength" is not supported in strict mode',
    );
  });

  it.each([
    ['inside a definition', '#/$defs/holder/additionalProperties'],
    ['into enum data', '#/$defs/data/enum/0'],
    ['into a property', '#/properties/other'],
    ['to a missing definition', '#/$defs/missing'],
    ['with a malformed percent-encoding', '#/$defs/%E0%A4%A'],
  ])('refuses a $ref %s', (_label, ref) => {
    const schema = {
      ...strictObject({ pin: { $ref: ref }, other: { type: 'string' } }),
      $defs: {
        holder: { additionalProperties: hidden },
        data: { enum: [hidden] },
      },
    };
    expect(openAIStrictIssues(schema)).toContain(
      '#/properties/pin: "$ref" must be "#" or name an entry of the root "$defs" or "definitions"',
    );
  });

  it('accepts a $ref to #, to an escaped or encoded definition name and to definitions', () => {
    const schema = {
      ...strictObject({
        self: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
        slash: { $ref: '#/$defs/a~1b' },
        spaced: { $ref: '#/$defs/c%20d' },
        old: { $ref: '#/definitions/thing' },
      }),
      $defs: { 'a/b': { type: 'string' }, 'c d': { type: 'number' } },
      definitions: { thing: strictObject({ id: { type: 'string' } }) },
    };
    expect(openAIStrictIssues(schema)).toEqual([]);
  });

  it("does not send strict: true for a tool whose $ref reaches keywords OpenAI won't enforce", () => {
    const schema = {
      ...strictObject({ pin: { $ref: '#/$defs/holder/additionalProperties' } }),
      $defs: { holder: { additionalProperties: hidden } },
    };
    const tool = Tool.create({
      name: 'setpin',
      description: 'Sets a PIN',
      params: z.object({ pin: z.string() }),
      inputSchema: schema,
      handler: () => ToolResult.ok(1),
    });
    expect(toOpenAITools([tool], { strict: true })[0]?.function.strict).toBeUndefined();
  });

  it('still accepts what zod writes for a reused and a recursive model', () => {
    const Point = z.strictObject({ x: z.number(), y: z.number() }).meta({ id: 'Point' });
    const Node: z.ZodType = z.lazy(() =>
      z.strictObject({ label: z.string(), next: z.union([Node, z.null()]) }),
    );
    const schema = Tool.create({
      name: 't',
      description: 'd',
      params: z.strictObject({ from: Point, to: Point, chain: Node }),
      handler: () => ToolResult.ok(1),
    }).inputSchema;
    expect(JSON.stringify(schema)).toContain('"$ref":"#/$defs/Point"');
    expect(openAIStrictIssues(schema)).toEqual([]);
  });
});
