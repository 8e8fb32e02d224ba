import type Anthropic from '@anthropic-ai/sdk';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import {
  invokeFromAnthropic,
  toAnthropicToolResult,
  toAnthropicTools,
} from '../../src/ecosystem/anthropic.js';
import { toAiSdkTools } from '../../src/ecosystem/ai-sdk.js';
import {
  invokeFromOpenAI,
  toOpenAITools,
  toOpenAIToolMessage,
} from '../../src/ecosystem/openai.js';
import { MarkdownSection } from '../../src/prompt/markdown-section.js';
import { Prompt } from '../../src/prompt/prompt.js';
import { PromptTemplate } from '../../src/prompt/prompt-template.js';
import type { RenderedPrompt } from '../../src/prompt/rendered-prompt.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { ToolInvoked } from '../../src/runtime/events.js';
import { Session } from '../../src/runtime/session.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';
import { everythingServerPath } from '../support/everything.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const lookup = vi.fn((args: { city: string; units: 'c' | 'f' }) =>
  ToolResult.ok({ city: args.city, temperature: args.units === 'c' ? 21 : 70 }),
);
const waitForAbort = vi.fn(
  (_args: Record<string, never>, context: { signal: AbortSignal }) =>
    new Promise<ToolResult<null>>((_resolve, reject) => {
      if (context.signal.aborted) reject(new Error('aborted'));
      context.signal.addEventListener('abort', () => reject(new Error('aborted')));
    }),
);

const weather = Tool.create({
  name: 'weather',
  description: 'Current weather in a city',
  params: z.strictObject({ city: z.string(), units: z.enum(['c', 'f']) }),
  handler: lookup,
});
const slow = Tool.create({
  name: 'slow',
  description: 'Waits until cancelled',
  params: z.object({}),
  handler: waitForAbort,
});

describe('provider tool formats against server-everything (stdio)', () => {
  const before = childPids();
  const session = new Session();
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'everything',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [everythingServerPath, 'stdio'],
        },
      },
    ],
    session,
  });
  let rendered: RenderedPrompt;
  const invoked: ToolInvoked[] = [];

  beforeAll(async () => {
    await section.connect();
    const native = new MarkdownSection({
      key: 'native',
      title: 'Native tools',
      template: 'Local tools.',
      tools: [weather, slow],
    });
    const template = PromptTemplate.create({
      ns: 'test',
      key: 'formats',
      sections: [section, native],
    });
    rendered = new Prompt(template).render({ session });
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event));
  });

  afterAll(async () => {
    await section.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  const tool = (name: string): Tool => {
    const found = rendered.tools.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found;
  };

  it('gives each SDK a value its own types accept', async () => {
    // Checked by tsc (npm test runs it): each assignment fails to compile if a format drifts.
    const openai: OpenAI.Chat.Completions.ChatCompletionTool[] = toOpenAITools(rendered, {
      strict: true,
    });
    const anthropic: Anthropic.Messages.Tool[] = toAnthropicTools(rendered);
    const aiSdk: ToolSet = await toAiSdkTools(rendered, { session });
    expectTypeOf(toOpenAITools(rendered)).toExtend<OpenAI.Chat.Completions.ChatCompletionTool[]>();
    expectTypeOf(toAnthropicTools(rendered)).toExtend<Anthropic.Messages.Tool[]>();
    expectTypeOf(aiSdk).toExtend<ToolSet>();
    expect(openai).toHaveLength(rendered.tools.length);
    expect(anthropic).toHaveLength(rendered.tools.length);
    expect(Object.keys(aiSdk)).toEqual(rendered.tools.map((candidate) => candidate.name));
  });

  it('sends every tool under its own name with its original JSON Schema', () => {
    const definitions = rendered.toolDefinitions();
    const openai = toOpenAITools(rendered);
    const anthropic = toAnthropicTools(rendered);
    definitions.forEach((definition, index) => {
      expect(openai[index]).toEqual({
        type: 'function',
        function: {
          name: definition.name,
          description: definition.description,
          parameters: definition.inputSchema,
        },
      });
      expect(openai[index]?.function.parameters).toBe(definition.inputSchema);
      expect(anthropic[index]).toEqual({
        name: definition.name,
        description: definition.description,
        input_schema: definition.inputSchema,
      });
      expect(anthropic[index]?.input_schema).toBe(definition.inputSchema);
    });
    expect(openai.map((entry) => entry.function.name)).toContain('everything_get-sum');
  });

  it('claims strict mode only for schemas that qualify as they are', () => {
    const strict = toOpenAITools(rendered, { strict: true });
    const byName = new Map(strict.map((entry) => [entry.function.name, entry.function]));
    // z.strictObject with every field required qualifies; server-everything's schemas
    // allow extra properties, so they go without `strict` and unchanged.
    expect(byName.get('weather')?.strict).toBe(true);
    expect(byName.get('everything_get-sum')).not.toHaveProperty('strict');
    expect(byName.get('everything_get-sum')?.parameters).toBe(
      tool('everything_get-sum').inputSchema,
    );
    expect(byName.get('slow')).not.toHaveProperty('strict');
  });

  it('runs an OpenAI tool call back through the validators and the server', async () => {
    const call = {
      id: 'call_1',
      type: 'function' as const,
      function: { name: 'everything_get-sum', arguments: '{"a":2,"b":3.5}' },
    };
    invoked.length = 0;
    const result = await invokeFromOpenAI(rendered, call, { session });
    expect(result.success).toBe(true);
    expect(result.message).toBe('The sum of 2 and 3.5 is 5.5.');
    expect(invoked).toHaveLength(1);
    expect(invoked[0]).toMatchObject({
      toolName: 'everything_get-sum',
      source: 'mcp',
      mcpServer: 'everything',
      originalName: 'get-sum',
      params: { a: 2, b: 3.5 },
    });
    const message: OpenAI.Chat.Completions.ChatCompletionToolMessageParam = toOpenAIToolMessage(
      rendered,
      call,
      result,
    );
    expect(message).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'The sum of 2 and 3.5 is 5.5.',
    });
  });

  it('refuses bad OpenAI arguments with a message naming the field, before the server', async () => {
    invoked.length = 0;
    const result = await invokeFromOpenAI(
      rendered,
      { function: { name: 'everything_get-sum', arguments: '{"a":"two","b":3}' } },
      { session },
    );
    expect(result.success).toBe(false);
    // Our validator's message, not the server's "MCP error -32602: Input validation error".
    expect(result.message).toMatch(/^invalid arguments for tool "everything_get-sum": a: /);
    expect(result.message).not.toContain('MCP error');
    expect(invoked).toHaveLength(1);

    lookup.mockClear();
    const native = await invokeFromOpenAI(
      rendered,
      { function: { name: 'weather', arguments: '{"city":5,"units":"k"}' } },
      { session },
    );
    expect(native.success).toBe(false);
    expect(native.message).toContain('city:');
    expect(native.message).toContain('units:');
    expect(lookup).not.toHaveBeenCalled();
  });

  it('answers unparseable JSON and unknown names with error results, running nothing', async () => {
    invoked.length = 0;
    const broken = await invokeFromOpenAI(
      rendered,
      { function: { name: 'everything_echo', arguments: '{"message": ' } },
      { session },
    );
    expect(broken.success).toBe(false);
    expect(broken.message).toContain('not valid JSON');
    const unknown = await invokeFromOpenAI(
      rendered,
      { function: { name: 'nope', arguments: '{}' } },
      { session },
    );
    expect(unknown.message).toContain('unknown tool "nope"; available tools: everything_echo');
    expect(invoked).toHaveLength(0);
    // An empty argument string is "no arguments".
    const empty = await invokeFromOpenAI(
      rendered,
      { function: { name: 'everything_get-tiny-image', arguments: '' } },
      { session },
    );
    expect(empty.success).toBe(true);
  });

  it('shows a native result value to the model, not just "OK"', async () => {
    const call = {
      id: 'call_2',
      function: { name: 'weather', arguments: '{"city":"Oslo","units":"c"}' },
    };
    const result = await invokeFromOpenAI(rendered, call, { session });
    expect(toOpenAIToolMessage(rendered, call, result).content).toBe(
      '{"city":"Oslo","temperature":21}',
    );
  });

  it('runs an Anthropic tool_use block back in, and answers with a tool_result', async () => {
    const block: Anthropic.Messages.ToolUseBlock = {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'everything_echo',
      input: { message: 'hello' },
      caller: { type: 'direct' },
    };
    const ok = await invokeFromAnthropic(rendered, block, { session });
    expect(ok.message).toBe('Echo: hello');
    const answer: Anthropic.Messages.ToolResultBlockParam = toAnthropicToolResult(
      rendered,
      block,
      ok,
    );
    expect(answer).toEqual({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Echo: hello' });

    const bad = await invokeFromAnthropic(
      rendered,
      { ...block, input: { message: 42 } },
      { session },
    );
    expect(bad.success).toBe(false);
    expect(bad.message).toMatch(/^invalid arguments for tool "everything_echo": message: /);
    expect(toAnthropicToolResult(rendered, block, bad)).toMatchObject({ is_error: true });
  });

  it('gives the AI SDK tools that validate with ours and run through invokeTool', async () => {
    const tools = await toAiSdkTools(rendered, { session });
    const options = { toolCallId: 't1', messages: [] };
    const echo = tools['everything_echo'];
    const ok = await echo?.execute?.({ message: 'hi' }, options);
    expect(ok).toMatchObject({ success: true, message: 'Echo: hi' });
    const bad = await echo?.execute?.({ message: 1 }, options);
    expect(bad).toMatchObject({ success: false });
    expect((bad as { message: string }).message).toMatch(/message: /);
  });

  it('runs a whole generateText tool round trip through the AI SDK', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'c1',
              toolName: 'everything_get-sum',
              input: '{"a":1,"b":2}',
            },
            {
              type: 'tool-call',
              toolCallId: 'c2',
              toolName: 'everything_get-sum',
              input: '{"a":"x"}',
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage: usage(),
          warnings: [],
        },
        {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage: usage(),
          warnings: [],
        },
      ],
    });
    const result = await generateText({
      model,
      prompt: rendered.text,
      tools: await toAiSdkTools(rendered, { session }),
      stopWhen: stepCountIs(3),
    });
    // Definition out: the model was given the server's schema, unchanged.
    const offered = model.doGenerateCalls[0]?.tools?.find(
      (entry) => entry.name === 'everything_get-sum',
    );
    expect(offered).toMatchObject({
      type: 'function',
      inputSchema: tool('everything_get-sum').inputSchema,
    });
    // Arguments back in: validated by ours, run by the server.
    const outputs = result.steps[0]?.toolResults.map((entry) => entry.output);
    expect(outputs?.[0]).toMatchObject({ success: true, message: 'The sum of 1 and 2 is 3.' });
    expect(outputs?.[1]).toMatchObject({ success: false });
    expect((outputs?.[1] as { message: string }).message).toMatch(/b: /);
    // What the model read back on the second step.
    const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessage)).toContain('The sum of 1 and 2 is 3.');
    expect(JSON.stringify(toolMessage)).toContain('error-text');
  });

  it('forwards the AI SDK abort signal to the handler', async () => {
    const tools = await toAiSdkTools(rendered, { session });
    const controller = new AbortController();
    const running = tools['slow']?.execute?.(
      {},
      { toolCallId: 't', messages: [], abortSignal: controller.signal },
    );
    await vi.waitFor(() => expect(waitForAbort).toHaveBeenCalledTimes(1));
    controller.abort('stop now');
    expect(await running).toMatchObject({ success: false, message: 'cancelled: stop now' });
  });
});

function usage() {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
}
