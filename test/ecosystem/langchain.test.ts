/**
 * The LangChain export never hands a server's regular expressions to
 * LangChain, whose validator (@cfworker/json-schema) would run them on
 * JavaScript's backtracking engine before `invokeTool`: the schema it holds
 * has no `pattern` or `patternProperties`, and the call is still checked
 * (in linear time) by the section's validator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, Session } from '../../src/index.js';
import { toLangChainTools } from '../../src/ecosystem/langchain.js';
import { rawToolServer } from '../support/mcp-fixtures.js';
import { regExpsRunDuring } from '../mcp/schema/regexp-spy.js';

const CATASTROPHIC = '^(a+)+$';
const SCHEMA = {
  type: 'object',
  properties: {
    q: { type: 'string', pattern: CATASTROPHIC, description: 'letters a' },
    pattern: { type: 'string', description: 'a property named "pattern" is kept' },
    tags: { type: 'array', items: { type: 'string', pattern: '^#\\w+$' } },
    label: { $ref: '#/$defs/Label' },
  },
  $defs: { Label: { type: 'string', pattern: '^[a-z]+$' } },
  required: ['q'],
};

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function lookupTool(inputSchema: Record<string, unknown> = SCHEMA) {
  const raw = rawToolServer([{ name: 'lookup', description: 'Look up', inputSchema }]);
  const session = new Session();
  const section = new McpIntegrationSection({
    servers: [{ name: 'h', transport: { type: 'in-memory', server: raw.server } }],
    session,
  });
  sections.push(section);
  await section.connect();
  const [tool] = toLangChainTools(section.tools(), { session });
  return { tool: tool!, raw };
}

describe('toLangChainTools and server patterns', () => {
  it('hands LangChain the schema without pattern or patternProperties, at any depth', async () => {
    const { tool } = await lookupTool();
    expect(tool.schema).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'letters a' },
        pattern: { type: 'string', description: 'a property named "pattern" is kept' },
        tags: { type: 'array', items: { type: 'string' } },
        label: { $ref: '#/$defs/Label' },
      },
      $defs: { Label: { type: 'string' } },
      required: ['q'],
    });
  });

  it('shows data as it is, and drops a not or an if that a pattern or reference is under whole', async () => {
    const { tool } = await lookupTool({
      type: 'object',
      properties: {
        filter: { const: { field: 'name', pattern: 'abc' } },
        mode: { enum: [{ pattern: 'strict' }, { pattern: 'loose' }], default: { pattern: 'x' } },
        user: { type: 'string', not: { pattern: '^admin' }, minLength: 1 },
        code: { if: { $ref: '#/$defs/Short' }, then: { maxLength: 2 }, else: { minLength: 5 } },
        plain: { not: { type: 'number' } },
      },
      $defs: { Short: { type: 'string', maxLength: 2 } },
    });
    expect(tool.schema).toEqual({
      type: 'object',
      properties: {
        filter: { const: { field: 'name', pattern: 'abc' } },
        mode: { enum: [{ pattern: 'strict' }, { pattern: 'loose' }], default: { pattern: 'x' } },
        user: { type: 'string', minLength: 1 },
        code: {},
        plain: { not: { type: 'number' } },
      },
      $defs: { Short: { type: 'string', maxLength: 2 } },
    });
    // What the real schema accepts, LangChain's copy accepts: no fallback needed.
    const reply = await tool.invoke({
      filter: { field: 'name', pattern: 'abc' },
      mode: { pattern: 'loose' },
      user: 'bob',
      code: 'ab',
      plain: 'x',
    });
    expect(reply).not.toMatch(/invalid arguments/);
  });

  it('drops what counts the matches of a pattern it took out, and loosens a oneOf to an anyOf', async () => {
    const { tool } = await lookupTool({
      type: 'object',
      properties: {
        named: { type: 'object', patternProperties: { '^x_': {} }, additionalProperties: false },
        tags: { type: 'array', contains: { pattern: '^main$' }, maxContains: 1, minContains: 1 },
        code: {
          oneOf: [
            { type: 'string', pattern: '^a' },
            { type: 'string', pattern: '^b' },
          ],
        },
      },
    });
    expect(tool.schema).toEqual({
      type: 'object',
      properties: {
        named: { type: 'object' },
        tags: { type: 'array', contains: {}, minContains: 1 },
        code: { anyOf: [{ type: 'string' }, { type: 'string' }] },
      },
    });
    const reply = await tool.invoke({ named: { x_a: 'v' }, tags: ['main', 'dev'], code: 'a1' });
    expect(reply).not.toMatch(/invalid arguments/);
  });

  it('takes out a reference the rewrite left dangling, and what no subschema evaluated', async () => {
    const { tool } = await lookupTool({
      type: 'object',
      properties: {
        id: { oneOf: [{ type: 'string', pattern: '^a' }, { type: 'integer' }] },
        other: { $ref: '#/properties/id/oneOf/1' },
        open: {
          type: 'object',
          allOf: [{ patternProperties: { '^x_': { type: 'string' } } }],
          unevaluatedProperties: false,
        },
      },
    });
    expect(tool.schema).toMatchObject({
      properties: {
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        other: {},
        open: { type: 'object', allOf: [{}] },
      },
    });
    const reply = await tool.invoke({ id: 'a1', other: 3, open: { x_a: 'v' } });
    expect(reply).not.toMatch(/invalid arguments/);
  });

  it('still refuses arguments that break a pattern, without LangChain compiling it', async () => {
    const { tool, raw } = await lookupTool();
    const bad = { q: `${'a'.repeat(20)}!` };
    let reply: unknown;
    const run = await regExpsRunDuring(async () => {
      reply = await tool.invoke({ id: 'c1', name: tool.name, args: bad, type: 'tool_call' });
    });
    expect(run).not.toContain(CATASTROPHIC);
    expect(reply).toMatchObject({ status: 'error' });
    expect(String((reply as { content: unknown }).content)).toMatch(
      /^invalid arguments for tool "h_lookup": q: "q" must match \/\^\(a\+\)\+\$\/u/,
    );
    expect(raw.calls).toEqual([]);
    expect(await tool.invoke({ q: 'aaa', label: 'x' })).not.toMatch(/invalid arguments/);
    expect(raw.calls).toHaveLength(1);
  });
});
