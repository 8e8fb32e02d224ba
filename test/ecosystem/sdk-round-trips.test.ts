/**
 * Each model API's round trip against its SDK's own types, with no network:
 * real call sites type-checked (never run), and recorded responses of each
 * API run through an in-process MCP server's tools — definitions out, the
 * model's call through `invokeTool`, the result message back.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { generateText, type LanguageModel, type ToolSet } from 'ai';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  invokeFromAnthropic,
  toAnthropicToolResult,
  toAnthropicTools,
} from '../../src/ecosystem/anthropic.js';
import { toAiSdkTools } from '../../src/ecosystem/ai-sdk.js';
import { toLangChainTools } from '../../src/ecosystem/langchain.js';
import {
  invokeFromOpenAI,
  toOpenAIToolMessage,
  toOpenAITools,
} from '../../src/ecosystem/openai.js';
import {
  invokeFromOpenAIResponses,
  toOpenAIFunctionCallOutput,
  toOpenAIResponsesTools,
} from '../../src/ecosystem/openai-responses.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Prompt } from '../../src/prompt/prompt.js';
import { PromptTemplate } from '../../src/prompt/prompt-template.js';
import type { RenderedPrompt } from '../../src/prompt/rendered-prompt.js';
import { ToolInvoked } from '../../src/runtime/events.js';
import { Session } from '../../src/runtime/session.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const PNG = 'iVBORw0KGgo=';
const SUM_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

const fixture = rawToolServer([
  {
    name: 'sum',
    description: 'Adds a and b',
    inputSchema: SUM_SCHEMA,
    handler: (args) => ({
      content: [{ type: 'text', text: `${Number(args?.['a']) + Number(args?.['b'])}` }],
    }),
  },
  {
    name: 'snapshot',
    description: 'Takes a picture',
    inputSchema: { type: 'object', properties: {} },
    handler: () => ({
      content: [
        { type: 'text', text: 'a picture' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    }),
  },
  {
    name: 'fail',
    description: 'Always fails',
    inputSchema: { type: 'object', properties: {} },
    handler: () => ({ isError: true, content: [{ type: 'text', text: 'disk full' }] }),
  },
]);

const session = new Session();
const section = new McpIntegrationSection({
  servers: [{ name: 'demo', transport: { type: 'in-memory', server: fixture.server } }],
  session,
});
let rendered: RenderedPrompt;
const invoked: string[] = [];

beforeAll(async () => {
  await section.connect();
  const template = PromptTemplate.create({ ns: 'test', key: 'sdk', sections: [section] });
  rendered = new Prompt(template).render({ session });
  session.bus.subscribe(ToolInvoked, (event) => invoked.push(event.toolName));
});

afterAll(async () => {
  await section.disconnect();
});

/**
 * Real call sites, checked by `tsc` and never run: each line fails to
 * compile if a format drifts from its SDK's parameter type.
 */
async function callSites(
  openai: OpenAI,
  anthropic: Anthropic,
  model: LanguageModel,
  chatModel: BaseChatModel,
): Promise<void> {
  const completion = await openai.chat.completions.create({
    model: 'gpt-4.1',
    messages: [{ role: 'user', content: rendered.text }],
    tools: toOpenAITools(rendered, { strict: true }),
  });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
  for (const call of completion.choices[0]?.message.tool_calls ?? []) {
    const result = await invokeFromOpenAI(rendered, call, { session });
    messages.push(toOpenAIToolMessage(rendered, call, result));
  }

  const response = await openai.responses.create({
    model: 'gpt-4.1',
    input: rendered.text,
    tools: toOpenAIResponsesTools(rendered),
  });
  const input: OpenAI.Responses.ResponseInput = [];
  for (const item of response.output) {
    if (item.type !== 'function_call') continue;
    const result = await invokeFromOpenAIResponses(rendered, item, { session });
    input.push(item, toOpenAIFunctionCallOutput(rendered, item, result));
  }

  const message = await anthropic.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: rendered.text }],
    tools: toAnthropicTools(rendered),
  });
  const results: Anthropic.Messages.ToolResultBlockParam[] = [];
  for (const block of message.content) {
    if (block.type !== 'tool_use') continue;
    const result = await invokeFromAnthropic(rendered, block, { session });
    results.push(toAnthropicToolResult(rendered, block, result));
  }

  await generateText({
    model,
    prompt: rendered.text,
    tools: await toAiSdkTools(rendered, { session }),
  });

  const tools: StructuredToolInterface[] = toLangChainTools(rendered, { session });
  chatModel.bindTools?.(tools);
}

describe('model API round trips against recorded responses', () => {
  it('type-checks the call sites of every SDK', () => {
    expectTypeOf(callSites).toBeFunction();
    expectTypeOf(toOpenAIResponsesTools(rendered)).toExtend<OpenAI.Responses.FunctionTool[]>();
    expectTypeOf(toOpenAIResponsesTools(rendered)).toExtend<OpenAI.Responses.Tool[]>();
    expectTypeOf(toAiSdkTools(rendered, { session })).resolves.toExtend<ToolSet>();
  });

  it('OpenAI Chat Completions: answers function calls and refuses a custom tool call', async () => {
    const completion: OpenAI.Chat.Completions.ChatCompletion = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4.1',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'demo_sum', arguments: '{"a":2,"b":3}' },
              },
              { id: 'call_2', type: 'custom', custom: { name: 'demo_sum', input: '2 + 3' } },
            ],
          },
        },
      ],
    };
    invoked.length = 0;
    const messages: OpenAI.Chat.Completions.ChatCompletionToolMessageParam[] = [];
    for (const call of completion.choices[0]?.message.tool_calls ?? []) {
      const result = await invokeFromOpenAI(rendered, call, { session });
      messages.push(toOpenAIToolMessage(rendered, call, result));
    }
    expect(messages).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '5' },
      {
        role: 'tool',
        tool_call_id: 'call_2',
        content:
          'tool call of "demo_sum" is a custom tool call; only function tools are offered, so call it as a function with JSON arguments',
      },
    ]);
    expect(invoked).toEqual(['demo_sum']);
    expect(toOpenAITools(rendered, { strict: true })[0]?.function.strict).toBe(true);
  });

  it('OpenAI Responses: tools at the top level, function_call items to function_call_output items', async () => {
    const tools = toOpenAIResponsesTools(rendered);
    expect(tools[0]).toEqual({
      type: 'function',
      name: 'demo_sum',
      description: 'Adds a and b',
      parameters: SUM_SCHEMA,
      strict: true,
    });
    // The other schemas allow extra properties: strict would fail them, so `false`, never absent.
    expect(tools.map((tool) => tool.strict)).toEqual([true, false, false]);
    expect(toOpenAIResponsesTools(rendered, { strict: false })[0]?.strict).toBe(false);

    const output: OpenAI.Responses.ResponseOutputItem[] = [
      { type: 'function_call', call_id: 'c1', name: 'demo_sum', arguments: '{"a":1,"b":"x"}' },
      { type: 'function_call', call_id: 'c2', name: 'demo_snapshot', arguments: '' },
      { type: 'function_call', call_id: 'c3', name: 'demo_sum', arguments: '{"a":' },
    ];
    const input: OpenAI.Responses.ResponseInputItem[] = [];
    for (const item of output) {
      if (item.type !== 'function_call') continue;
      const result = await invokeFromOpenAIResponses(rendered, item, { session });
      const answer: OpenAI.Responses.ResponseInputItem.FunctionCallOutput =
        toOpenAIFunctionCallOutput(rendered, item, result);
      input.push(answer);
    }
    expect(input[0]).toMatchObject({ type: 'function_call_output', call_id: 'c1' });
    expect((input[0] as { output: string }).output).toMatch(
      /^invalid arguments for tool "demo_sum": b: /,
    );
    expect(input[1]).toEqual({
      type: 'function_call_output',
      call_id: 'c2',
      output: [
        { type: 'input_text', text: 'a picture\n[image: image/png, 8 bytes]' },
        { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      ],
    });
    expect((input[2] as { output: string }).output).toContain('are not valid JSON');
    expect(fixture.callsTo('sum')).toHaveLength(1);
  });

  it('Anthropic: tool_use blocks to tool_result blocks, with is_error and images', async () => {
    const content: Anthropic.Messages.ContentBlock[] = [
      { type: 'text', text: 'Let me look.', citations: null },
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'demo_snapshot',
        input: {},
        caller: { type: 'direct' },
      },
      { type: 'tool_use', id: 'toolu_2', name: 'demo_fail', input: {}, caller: { type: 'direct' } },
    ];
    const results: Anthropic.Messages.ToolResultBlockParam[] = [];
    for (const block of content) {
      if (block.type !== 'tool_use') continue;
      const result = await invokeFromAnthropic(rendered, block, { session });
      results.push(toAnthropicToolResult(rendered, block, result));
    }
    const next: Anthropic.Messages.MessageParam = { role: 'user', content: results };
    expect(next.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'a picture\n[image: image/png, 8 bytes]' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: 'disk full', is_error: true },
    ]);
  });

  it('LangChain: StructuredTools that run tool calls through invokeTool', async () => {
    const tools = toLangChainTools(rendered, { session });
    // What bindTools sends the model: the server's schema, unchanged.
    expect(convertToOpenAITool(tools[0]!)).toMatchObject({
      type: 'function',
      function: { name: 'demo_sum', description: 'Adds a and b', parameters: SUM_SCHEMA },
    });
    const ai = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'lc_1', name: 'demo_sum', args: { a: 4, b: 5 }, type: 'tool_call' },
        { id: 'lc_2', name: 'demo_sum', args: { a: 'four' }, type: 'tool_call' },
        { id: 'lc_3', name: 'demo_snapshot', args: {}, type: 'tool_call' },
      ],
    });
    invoked.length = 0;
    const replies: ToolMessage[] = [];
    for (const call of ai.tool_calls ?? []) {
      const tool = tools.find((candidate) => candidate.name === call.name);
      const reply = await tool?.invoke(call);
      expectTypeOf(reply).toExtend<ToolMessage | undefined>();
      if (reply !== undefined) replies.push(reply);
    }
    expect(replies.map((reply) => [reply.tool_call_id, reply.status])).toEqual([
      ['lc_1', 'success'],
      ['lc_2', 'error'],
      ['lc_3', 'success'],
    ]);
    expect(replies[0]?.content).toBe('9');
    // LangChain's own schema check refused it; ours answered, and the session saw the call.
    expect(replies[1]?.content).toMatch(/^invalid arguments for tool "demo_sum": /);
    expect(invoked).toEqual(['demo_sum', 'demo_sum', 'demo_snapshot']);
    expect(replies[2]?.content).toEqual([
      { type: 'text', text: 'a picture\n[image: image/png, 8 bytes]' },
      { type: 'image', mimeType: 'image/png', data: PNG },
    ]);
    expect(replies[2]?.artifact).toMatchObject({ content: [{ type: 'text' }, { type: 'image' }] });
    // Plain arguments, as a chain might pass them: the text alone.
    expect(await tools[0]?.invoke({ a: 1, b: 1 })).toBe('2');
  });
});
