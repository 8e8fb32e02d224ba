import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MarkdownSection, Prompt, PromptTemplate, Tool, ToolResult } from '../../src/index.js';

describe('RenderedPrompt.toolDefinitions', () => {
  const search = Tool.create({
    name: 'search',
    description: '  Searches the notes.  ',
    params: z.object({
      query: z.string().describe('Words to look for'),
      limit: z.number().int().default(10),
      tags: z.array(z.string()).optional(),
    }),
    handler: () => ToolResult.ok([]),
  });
  const given = Tool.create({
    name: 'remote_echo',
    description: 'Echoes',
    params: z.object({ text: z.string() }),
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: ({ text }) => ToolResult.ok(text),
  });

  const template = PromptTemplate.create({
    ns: 'notes',
    key: 'main',
    sections: [
      new MarkdownSection({
        key: 'notes',
        title: 'Notes',
        template: 'Use the tools.',
        tools: [search, given],
      }),
    ],
  });

  it('gives name, trimmed description and a JSON Schema of the input for each tool', () => {
    const definitions = new Prompt(template).render().toolDefinitions();

    expect(definitions).toEqual([
      {
        name: 'search',
        description: 'Searches the notes.',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Words to look for' },
            limit: {
              type: 'integer',
              default: 10,
              minimum: Number.MIN_SAFE_INTEGER,
              maximum: Number.MAX_SAFE_INTEGER,
            },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['query'],
        },
      },
      {
        name: 'remote_echo',
        description: 'Echoes',
        inputSchema: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
        },
      },
    ]);
  });

  it('survives a JSON round trip unchanged, as an LLM API request would carry it', () => {
    const definitions = new Prompt(template).render().toolDefinitions();
    expect(JSON.parse(JSON.stringify(definitions))).toEqual(definitions);
  });

  it('returns frozen definitions', () => {
    const [first] = new Prompt(template).render().toolDefinitions();
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first!.inputSchema)).toBe(true);
  });
});
