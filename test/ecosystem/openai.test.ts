/**
 * Pins the OpenAI Chat Completions format: `toOpenAITools` sends each tool's
 * own JSON Schema and claims `strict` only when asked and only for a schema
 * that qualifies; `invokeFromOpenAI` parses `function.arguments` (empty means
 * `{}`) and answers bad JSON with an error result; `toOpenAIToolMessage`
 * answers one call.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PromptValidationError } from '../../src/core/errors.js';
import {
  invokeFromOpenAI,
  OPENAI_MAX_DESCRIPTION_LENGTH,
  toOpenAIToolMessage,
  toOpenAITools,
} from '../../src/ecosystem/openai.js';
import { toOpenAIResponsesTools } from '../../src/ecosystem/openai-responses.js';
import { ToolInvoked } from '../../src/runtime/events.js';
import { Session } from '../../src/runtime/session.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const strictAdd = Tool.create({
  name: 'add',
  description: 'Adds two numbers',
  params: z.strictObject({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => ToolResult.ok(a + b),
});
const looseNote = Tool.create({
  name: 'note',
  description: 'Takes an optional note',
  params: z.object({ text: z.string().optional() }),
  handler: ({ text }) => ToolResult.ok(text ?? '(empty)', 'Noted'),
});

/** What JSON.parse says about `text`, as this Node version words it. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parsed`);
}

describe('toOpenAITools', () => {
  it('sends each tool as a function with its own schema object and no strict flag', () => {
    const tools = toOpenAITools({ tools: [strictAdd, looseNote] });
    expect(tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'add',
          description: 'Adds two numbers',
          parameters: strictAdd.inputSchema,
        },
      },
      {
        type: 'function',
        function: {
          name: 'note',
          description: 'Takes an optional note',
          parameters: looseNote.inputSchema,
        },
      },
    ]);
    expect(tools[0]?.function.parameters).toBe(strictAdd.inputSchema);
    expect(tools.map((tool) => 'strict' in tool.function)).toEqual([false, false]);
  });

  it('with strict, marks only the tools whose schema qualifies as it is', () => {
    const tools = toOpenAITools([strictAdd, looseNote], { strict: true });
    expect(tools[0]?.function.strict).toBe(true);
    expect('strict' in (tools[1]?.function ?? {})).toBe(false);
    expect(toOpenAITools([strictAdd], { strict: false })[0]?.function).not.toHaveProperty('strict');
  });

  it('refuses a tool name OpenAI would refuse', () => {
    const bad = Tool.trusted({
      ...strictAdd,
      name: 'a.b',
      params: strictAdd.params,
      handler: strictAdd.handler,
    });
    expect(() => toOpenAITools([bad])).toThrow(PromptValidationError);
    expect(() => toOpenAITools([bad])).toThrow('tool name "a.b" cannot be sent to OpenAI');
  });

  it('cuts a description past what OpenAI accepts, in both formats, never inside a surrogate pair', () => {
    const long = Tool.trusted({
      ...strictAdd,
      description: `${'A'.repeat(1_022)}\u{1F600}${'B'.repeat(500)}`,
      params: strictAdd.params,
      handler: strictAdd.handler,
    });
    const chat = toOpenAITools([long])[0]!.function.description;
    const responses = toOpenAIResponsesTools([long])[0]!.description;
    for (const description of [chat, responses]) {
      expect(description.length).toBeLessThanOrEqual(OPENAI_MAX_DESCRIPTION_LENGTH);
      expect(description).toBe(`${'A'.repeat(1_022)}…`);
    }
    expect(toOpenAITools([strictAdd])[0]!.function.description).toBe('Adds two numbers');
  });
});

describe('invokeFromOpenAI', () => {
  it('parses the JSON arguments and runs the tool through invokeTool', async () => {
    const session = new Session();
    const invoked: string[] = [];
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event.toolName));
    const result = await invokeFromOpenAI(
      [strictAdd],
      { id: 'call_1', function: { name: 'add', arguments: '{"a": 1.5, "b": 2}' } },
      { session },
    );
    expect(result).toMatchObject({ success: true, message: 'OK', value: 3.5 });
    expect(invoked).toEqual(['add']);
  });

  it.each(['', '   \n'])('reads arguments %j as {}', async (text) => {
    const result = await invokeFromOpenAI(
      [looseNote],
      { function: { name: 'note', arguments: text } },
      { session: new Session() },
    );
    expect(result).toMatchObject({ success: true, message: 'Noted', value: '(empty)' });
  });

  it('takes arguments a gateway handed over already parsed, and refuses any other value', async () => {
    const session = new Session();
    const call = (value: unknown) =>
      invokeFromOpenAI(
        [strictAdd],
        { function: { name: 'add', arguments: value as string } },
        { session },
      );
    expect(await call({ a: 1, b: 2 })).toMatchObject({ success: true, value: 3 });
    for (const [value, kind] of [
      [42, '42'],
      [[1, 2], 'an array'],
      [true, 'true'],
    ] as const) {
      expect(await call(value)).toMatchObject({
        success: false,
        message: `arguments of tool "add" must be JSON text (a string) or an object; received ${kind}`,
      });
    }
    // None at all is no arguments, as an empty text is.
    expect((await call(undefined)).message).toContain('a: Invalid input: expected number');
  });

  it('answers JSON it cannot parse with an error result, running nothing', async () => {
    const session = new Session();
    const invoked: string[] = [];
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event.toolName));
    const result = await invokeFromOpenAI(
      [strictAdd],
      { function: { name: 'add', arguments: '{"a": 1,' } },
      { session },
    );
    expect(result).toMatchObject({
      success: false,
      message: `arguments of tool "add" are not valid JSON at line 1, column 9: expected a property name in double quotes`,
      value: null,
    });
    expect(invoked).toEqual([]);
  });

  it('names where arguments stop being JSON, never quoting what the model wrote', async () => {
    const secret = 'sk-ARGSECRET-0123456789';
    const cases: [string, string][] = [
      [`{"text": ${secret}}`, 'line 1, column 10: expected a value'],
      [
        `{\n  "a": 1,\n  "token": "${secret}\u0007"}`,
        'line 3, column 36: expected no control character in a string',
      ],
      [
        `{"token": "${secret}\\x"}`,
        'line 1, column 35: expected a valid escape such as \\n or \\u00e9',
      ],
    ];
    // V8's own message quotes the text around the error.
    expect(parseError(cases[0]![0])).toContain('sk-ARGSECR');
    for (const [text, where] of cases) {
      const result = await invokeFromOpenAI(
        [looseNote],
        { function: { name: 'note', arguments: text } },
        { session: new Session() },
      );
      expect(result.message).toBe(`arguments of tool "note" are not valid JSON at ${where}`);
      expect(result.message).not.toContain('ARGSECRET');
    }
    // Nested past the scan's stack: no position, and still no text.
    const deep = await invokeFromOpenAI(
      [looseNote],
      { function: { name: 'note', arguments: '['.repeat(1_000_000) } },
      { session: new Session() },
    );
    expect(deep.message).toMatch(
      /^arguments of tool "note" are not valid JSON( at line 1, column \d+: expected .*)?$/,
    );
  });

  it('lets the validator refuse JSON that is not an object, or has unknown fields', async () => {
    const session = new Session();
    const nullArgs = await invokeFromOpenAI(
      [strictAdd],
      { function: { name: 'add', arguments: 'null' } },
      { session },
    );
    expect(nullArgs.message).toBe(
      'invalid arguments for tool "add": (arguments): Invalid input: expected object, received null',
    );
    const extra = await invokeFromOpenAI(
      [strictAdd],
      { function: { name: 'add', arguments: '{"a":1,"b":2,"c":3}' } },
      { session },
    );
    expect(extra.success).toBe(false);
    expect(extra.message).toContain('"c"');
  });

  it('answers an unknown name with the list of tools', async () => {
    const result = await invokeFromOpenAI(
      [strictAdd, looseNote],
      { function: { name: 'sub', arguments: '{}' } },
      { session: new Session() },
    );
    expect(result.message).toBe('unknown tool "sub"; available tools: add, note');
  });
});

describe('toOpenAIToolMessage', () => {
  it('answers the call by id with the text the model should see', () => {
    const call = { id: 'call_9', function: { name: 'add' } };
    expect(toOpenAIToolMessage([strictAdd], call, ToolResult.ok(5))).toEqual({
      role: 'tool',
      tool_call_id: 'call_9',
      content: '5',
    });
    expect(toOpenAIToolMessage([strictAdd], call, ToolResult.error('bad', { a: 1 }))).toEqual({
      role: 'tool',
      tool_call_id: 'call_9',
      content: 'bad',
    });
    expect(
      toOpenAIToolMessage(
        { tools: [looseNote] },
        { id: 'c', function: { name: 'note' } },
        ToolResult.ok('hi', 'Noted'),
      ),
    ).toEqual({ role: 'tool', tool_call_id: 'c', content: 'Noted\nhi' });
  });
});
