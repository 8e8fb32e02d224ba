/**
 * Pins the Anthropic Messages format: `toAnthropicTools` sends each tool's
 * own object schema and refuses a schema that is not `"type": "object"`;
 * `invokeFromAnthropic` runs a `tool_use` block's input through the tool's
 * validator; `toAnthropicToolResult` sets `is_error` only for a failure.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PromptValidationError } from '../../src/core/errors.js';
import {
  invokeFromAnthropic,
  toAnthropicToolResult,
  toAnthropicTools,
} from '../../src/ecosystem/anthropic.js';
import { Session } from '../../src/runtime/session.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const add = Tool.create({
  name: 'add',
  description: 'Adds two numbers',
  params: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ToolResult.ok(a + b, `${a} + ${b}`),
});

function toolWithSchema(name: string, inputSchema: Record<string, unknown>): Tool {
  return Tool.create({
    name,
    description: 'A tool with a given schema',
    params: z.any(),
    inputSchema,
    handler: () => ToolResult.ok(null),
  });
}

describe('toAnthropicTools', () => {
  it('sends each tool with its own schema object as input_schema', () => {
    const tools = toAnthropicTools({ tools: [add] });
    expect(tools).toEqual([
      { name: 'add', description: 'Adds two numbers', input_schema: add.inputSchema },
    ]);
    expect(tools[0]?.input_schema).toBe(add.inputSchema);
    expect(toAnthropicTools([])).toEqual([]);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ type: 'string' }, '"string"'],
    [{ type: ['object', 'null'] }, '["object","null"]'],
    [{ anyOf: [{ type: 'object' }] }, 'no type'],
    [{}, 'no type'],
  ])('refuses the schema %j, quoting its type', (schema, shown) => {
    const tool = toolWithSchema('odd', schema);
    expect(() => toAnthropicTools([add, tool])).toThrow(
      new PromptValidationError(
        `tool "odd" cannot be sent to Anthropic: its input schema must have "type": "object", got ${shown}`,
      ),
    );
  });

  it('refuses a tool name Anthropic would refuse', () => {
    const bad = Tool.trusted({ ...add, name: 'a b', params: add.params, handler: add.handler });
    expect(() => toAnthropicTools([bad])).toThrow(
      'tool name "a b" cannot be sent to Anthropic: it must match ^[a-zA-Z0-9_-]{1,64}$',
    );
  });
});

describe('invokeFromAnthropic', () => {
  it('runs the input of a tool_use block through the validator', async () => {
    const session = new Session();
    const ok = await invokeFromAnthropic(
      [add],
      { id: 'toolu_1', name: 'add', input: { a: 2, b: 2 } },
      { session },
    );
    expect(ok).toMatchObject({ success: true, message: '2 + 2', value: 4 });
    const refused = await invokeFromAnthropic(
      [add],
      { name: 'add', input: { a: '2', b: 2 } },
      { session },
    );
    expect(refused).toMatchObject({
      success: false,
      message:
        'invalid arguments for tool "add": a: Invalid input: expected number, received string',
    });
  });

  it('answers an unknown name with the list of tools', async () => {
    const result = await invokeFromAnthropic(
      [add],
      { name: 'mul', input: {} },
      { session: new Session() },
    );
    expect(result).toMatchObject({
      success: false,
      message: 'unknown tool "mul"; available tools: add',
    });
  });
});

describe('toAnthropicToolResult', () => {
  it('answers a success with the text the model should see, without is_error', () => {
    const block = toAnthropicToolResult(
      [add],
      { id: 'toolu_1', name: 'add' },
      ToolResult.ok(4, '2 + 2'),
    );
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: '2 + 2\n4' });
    expect(block).not.toHaveProperty('is_error');
  });

  it('marks a failure with is_error: true and shows its message alone', () => {
    expect(
      toAnthropicToolResult(
        [add],
        { id: 'toolu_2', name: 'add' },
        ToolResult.error('overflow', 99),
      ),
    ).toEqual({ type: 'tool_result', tool_use_id: 'toolu_2', content: 'overflow', is_error: true });
  });
});
