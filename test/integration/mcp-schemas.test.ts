/**
 * Raw JSON Schemas from an in-process low-level SDK Server: every keyword
 * family validates valid and invalid calls correctly, invalid calls never
 * reach the server, and the schemas reach the model unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  invokeTool,
} from '../../src/index.js';
import { rawToolServer, toolNamed, type RawToolServer } from '../support/mcp-fixtures.js';

interface SchemaCase {
  readonly tool: string;
  readonly inputSchema: Record<string, unknown>;
  readonly valid: readonly Record<string, unknown>[];
  /** Arguments and the field (argument path) the refusal must name. */
  readonly invalid: readonly (readonly [Record<string, unknown>, string])[];
}

const CASES: readonly SchemaCase[] = [
  {
    tool: 'refs',
    inputSchema: {
      type: 'object',
      $defs: {
        point: {
          type: 'object',
          properties: { x: { type: 'number' }, y: { type: 'number' } },
          required: ['x', 'y'],
        },
      },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
      required: ['from', 'to'],
    },
    valid: [{ from: { x: 0, y: 0 }, to: { x: 3, y: 4 } }],
    invalid: [
      [{ from: { x: 0 }, to: { x: 3, y: 4 } }, 'from.y'],
      [{ from: { x: 0, y: 0 }, to: { x: '3', y: 4 } }, 'to.x'],
    ],
  },
  {
    tool: 'any_of',
    inputSchema: {
      type: 'object',
      properties: {
        id: {
          anyOf: [
            { type: 'string', minLength: 1 },
            { type: 'integer', minimum: 1 },
          ],
        },
      },
      required: ['id'],
    },
    valid: [{ id: 'abc' }, { id: 7 }],
    invalid: [
      [{ id: true }, 'id'],
      [{ id: 0 }, 'id'],
    ],
  },
  {
    tool: 'nullable',
    inputSchema: {
      type: 'object',
      properties: { note: { type: ['string', 'null'] } },
      required: ['note'],
    },
    valid: [{ note: null }, { note: 'text' }],
    invalid: [[{ note: 3 }, 'note']],
  },
  {
    tool: 'enums',
    inputSchema: {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'green'] } },
      required: ['color'],
    },
    valid: [{ color: 'green' }],
    invalid: [[{ color: 'blue' }, 'color']],
  },
  {
    tool: 'defaults',
    inputSchema: {
      type: 'object',
      properties: { limit: { type: 'integer', minimum: 1, default: 10 } },
    },
    valid: [{}, { limit: 5 }],
    invalid: [
      [{ limit: 0 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
    ],
  },
  {
    tool: 'closed',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      additionalProperties: false,
    },
    valid: [{ name: 'x' }],
    invalid: [[{ name: 'x', extra: 1 }, 'extra']],
  },
  {
    tool: 'conditional',
    inputSchema: {
      type: 'object',
      properties: { kind: { enum: ['card', 'cash'] }, number: { type: 'string' } },
      required: ['kind'],
      if: { properties: { kind: { const: 'card' } } },
      then: { required: ['number'] },
      else: { properties: { number: false } },
    },
    valid: [{ kind: 'card', number: '4242' }, { kind: 'cash' }],
    invalid: [
      [{ kind: 'card' }, 'number'],
      [{ kind: 'cash', number: '4242' }, 'number'],
    ],
  },
];

describe('raw JSON Schemas from an in-process server', () => {
  let raw: RawToolServer;
  let session: Session;
  let section: McpIntegrationSection;

  beforeAll(async () => {
    raw = rawToolServer(
      CASES.map((entry) => ({
        name: entry.tool,
        description: `The ${entry.tool} tool`,
        inputSchema: entry.inputSchema,
      })),
    );
    session = new Session();
    section = new McpIntegrationSection({
      servers: [{ name: 'raw', transport: { type: 'in-memory', server: raw.server } }],
      session,
    });
    await section.connect();
  });

  afterAll(async () => {
    await section?.disconnect();
  });

  describe.each(CASES)('$tool', ({ tool, valid, invalid }) => {
    it.each(valid.map((args) => [JSON.stringify(args), args] as const))(
      'passes %s through to the server unchanged',
      async (_label, args) => {
        const before = raw.callsTo(tool).length;
        const result = await invokeTool(toolNamed(section, `raw_${tool}`), args, { session });
        expect(result).toMatchObject({ success: true, message: `called ${tool}` });
        expect(raw.callsTo(tool).slice(before)).toEqual([{ name: tool, arguments: args }]);
      },
    );

    it.each(invalid.map(([args, field]) => [JSON.stringify(args), args, field] as const))(
      'refuses %s naming %s, without calling the server',
      async (_label, args, field) => {
        const before = raw.calls.length;
        const result = await invokeTool(toolNamed(section, `raw_${tool}`), args, { session });
        expect(result.success).toBe(false);
        expect(result.message).toMatch(new RegExp(`^invalid arguments for tool "raw_${tool}": `));
        // Each failing field is listed as `<path>: <what is wrong>`.
        const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        expect(result.message).toMatch(new RegExp(`(?:": |; )${escaped}: `));
        expect(raw.calls.length).toBe(before);
      },
    );
  });

  it('toolDefinitions() gives every schema exactly as the server sent it', () => {
    const template = PromptTemplate.create({ ns: 'test', key: 'schemas', sections: [section] });
    const rendered = new Prompt(template).render({ session });
    const definitions = rendered.toolDefinitions();
    expect(definitions.map((definition) => definition.name)).toEqual(
      CASES.map((entry) => `raw_${entry.tool}`),
    );
    for (const entry of CASES) {
      const definition = definitions.find((candidate) => candidate.name === `raw_${entry.tool}`);
      expect(definition?.description).toBe(`The ${entry.tool} tool`);
      expect(definition?.inputSchema).toStrictEqual(entry.inputSchema);
    }
  });
});
