/**
 * `aiSdk` against the AI SDK's own `MockLanguageModelV3`, whose
 * `doGenerate` answers with the SDK's result type: `generateText` runs as
 * it would for any provider.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { LanguageModel, ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { aiSdk } from '../../../src/ai-sdk.js';
import { evaluate, type ModelAdapter } from '../../../src/index.js';
import {
  adapterScenarios,
  agent,
  inOrder,
  type Driver,
  type Script,
  type ScriptTurn,
  type SeenRequest,
} from '../adapter-scenarios.js';

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type PromptMessage = CallOptions['prompt'][number];

function result(turn: ScriptTurn): GenerateResult {
  const calls = turn.calls ?? [];
  return {
    content: [
      ...(turn.text === undefined ? [] : [{ type: 'text' as const, text: turn.text }]),
      ...calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: call.rawArgs ?? JSON.stringify(call.args),
      })),
    ],
    finishReason: { unified: calls.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage: {
      inputTokens: {
        total: turn.usage?.input,
        noCache: turn.usage?.input,
        cacheRead: 0,
        cacheWrite: 0,
      },
      outputTokens: { total: turn.usage?.output, text: turn.usage?.output, reasoning: 0 },
    },
    warnings: [],
  };
}

function textParts(message: PromptMessage | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function seen(options: CallOptions): SeenRequest {
  const [first, ...rest] = options.prompt;
  const last = rest.at(-1);
  const results = last?.role === 'tool' ? last.content : [];
  const format = options.responseFormat;
  return {
    promptText: textParts(first) ?? '',
    toolNames: (options.tools ?? []).map((tool) => tool.name),
    toolResults: results.flatMap((part) => {
      if (part.type !== 'tool-result') return [];
      const { output } = part;
      const text = output.type === 'text' || output.type === 'error-text' ? output.value : '';
      return [{ id: part.toolCallId, text, isError: output.type === 'error-text' }];
    }),
    note: textParts(last),
    outputSchema: format?.type === 'json' ? format.schema : undefined,
    signal: options.abortSignal,
  };
}

function start(script: Script): {
  adapter: ModelAdapter<ModelMessage>;
  requests: SeenRequest[];
  model: MockLanguageModelV3;
} {
  const requests: SeenRequest[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const request = seen(options);
      requests.push(request);
      return result(await script(request, requests.length));
    },
  });
  return { adapter: aiSdk(model, { settings: { maxRetries: 0 } }), requests, model };
}

const driver: Driver = {
  name: 'ai-sdk',
  errorFlag: true,
  rawArguments: true,
  start: (script) => start(script),
};

adapterScenarios(driver);

describe('aiSdk: the AI SDK format', () => {
  it('takes any LanguageModel', () => {
    expectTypeOf(aiSdk).parameter(0).toEqualTypeOf<LanguageModel>();
  });

  it('offers the tools without execute, so the SDK runs none of them, and replays the assistant message', async () => {
    const { session, prompt } = await agent(z.object({ done: z.boolean() }));
    const { adapter, model } = start(
      inOrder(
        { calls: [{ id: 'c1', name: 'crm_lookup', args: { id: '1' } }] },
        { text: '{"done":true}' },
      ),
    );
    const answer = await evaluate(prompt, { adapter, session });

    expect(answer.output).toEqual({ done: true });
    const [first, second] = model.doGenerateCalls;
    expect(first?.tools?.map((tool) => tool.type === 'function' && tool.inputSchema)).toEqual(
      prompt.render().tools.map((tool) => tool.inputSchema),
    );
    expect(first?.responseFormat).toEqual({
      type: 'json',
      schema: prompt.render().outputSchema,
      name: 'output',
    });
    expect(second?.prompt.slice(1)).toMatchObject([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'crm_lookup', input: { id: '1' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'crm_lookup',
            output: { type: 'text', value: 'customer 1: Ada' },
          },
        ],
      },
    ]);
  });

  it('answers a call of an unknown tool itself, once, with the tools there are', async () => {
    const { session, prompt } = await agent();
    const { adapter, requests, model } = start(
      inOrder({ calls: [{ id: 'u1', name: 'crm_delete', args: {} }] }, { text: 'done' }),
    );
    await evaluate(prompt, { adapter, session });
    // The SDK's own answer to the call it could not parse was left out: one tool message.
    const roles = model.doGenerateCalls[1]?.prompt.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'tool']);
    expect(requests[1]?.toolResults).toEqual([
      {
        id: 'u1',
        text: 'unknown tool "crm_delete"; available tools: add_note, crm_lookup, crm_load_customer, crm_post_webhook',
        isError: true,
      },
    ]);
  });
});
