/**
 * `anthropic` against the Anthropic SDK's own client, whose `fetch`
 * answers with `Message` objects built with the SDK's types: no network.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_ANTHROPIC_MAX_TOKENS, anthropic, evaluate } from '../../../src/index.js';
import {
  adapterScenarios,
  agent,
  inOrder,
  type Driver,
  type ScriptTurn,
  type SeenRequest,
} from '../adapter-scenarios.js';
import { recordingStart } from './fetch-driver.js';

type Params = Anthropic.Messages.MessageCreateParamsNonStreaming;

/** A real `Anthropic` client whose requests are answered by `answer`. */
function client(
  answer: (body: Params, signal: AbortSignal | undefined) => Promise<Response>,
): Anthropic {
  return new Anthropic({
    apiKey: 'sk-ant-test',
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async (_url, init) =>
      answer(JSON.parse(init?.body as string) as Params, init?.signal ?? undefined),
  });
}

function message(turn: ScriptTurn, n: number): Anthropic.Messages.Message {
  const calls = turn.calls ?? [];
  return {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    content: [
      ...(turn.text === undefined
        ? []
        : [{ type: 'text' as const, text: turn.text, citations: null }]),
      ...calls.map((call) => ({
        type: 'tool_use' as const,
        id: call.id,
        name: call.name,
        input: call.args,
        caller: { type: 'direct' as const },
      })),
    ],
    usage: {
      input_tokens: (turn.usage?.input ?? 0) - 3,
      cache_read_input_tokens: 2,
      cache_creation_input_tokens: 1,
      output_tokens: turn.usage?.output ?? 0,
      cache_creation: null,
      inference_geo: null,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: 'standard',
      speed: null,
    },
  };
}

function textOf(content: Anthropic.Messages.ToolResultBlockParam['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function seen(body: Params, signal: AbortSignal | undefined): SeenRequest {
  const [first, ...rest] = body.messages;
  const last = rest.at(-1);
  const blocks = last?.role === 'user' && Array.isArray(last.content) ? last.content : [];
  return {
    promptText: typeof first?.content === 'string' ? first.content : '',
    toolNames: (body.tools ?? []).flatMap((tool) => ('name' in tool ? [tool.name] : [])),
    toolResults: blocks.flatMap((block) =>
      block.type === 'tool_result'
        ? [{ id: block.tool_use_id, text: textOf(block.content), isError: block.is_error ?? false }]
        : [],
    ),
    note: last?.role === 'user' && typeof last.content === 'string' ? last.content : undefined,
    outputSchema: body.output_config?.format?.schema,
    signal,
  };
}

const start = recordingStart<Params, ReturnType<typeof anthropic>>(
  (answer) => anthropic(client(answer), 'claude-sonnet-4-5'),
  seen,
  message,
);

const driver: Driver = { name: 'anthropic', errorFlag: true, rawArguments: false, start };

adapterScenarios(driver);

describe('anthropic: the Messages format', () => {
  it('takes the SDK client', () => {
    expectTypeOf(anthropic).toBeCallableWith(
      new Anthropic({ apiKey: 'sk-ant-test' }),
      'claude-sonnet-4-5',
    );
  });

  it('sends the prompt first, the reply back as it came, and the results in one user message', async () => {
    const { session, prompt } = await agent(z.object({ done: z.boolean() }));
    const { adapter, bodies } = start(
      inOrder(
        {
          text: 'Looking.',
          calls: [
            { id: 'toolu_1', name: 'crm_lookup', args: { id: '1' } },
            { id: 'toolu_2', name: 'add_note', args: { text: 'x', outcome: 'error' } },
          ],
        },
        { text: '{"done":true}' },
      ),
    );
    await evaluate(prompt, { adapter, session });

    const [first, second] = bodies;
    expect(first).toMatchObject({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: [{ role: 'user', content: prompt.render().text }],
      output_config: { format: { type: 'json_schema', schema: prompt.render().outputSchema } },
    });
    expect(second?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.', citations: null },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'crm_lookup',
            input: { id: '1' },
            caller: { type: 'direct' },
          },
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'add_note',
            input: { text: 'x', outcome: 'error' },
            caller: { type: 'direct' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'customer 1: Ada' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: 'could not save "x"',
            is_error: true,
          },
        ],
      },
    ]);
  });

  it('counts cache reads and writes as input tokens, and takes maxTokens and body', async () => {
    const { session, prompt } = await agent();
    const bodies: Params[] = [];
    const sdk = client((body) => {
      bodies.push(body);
      return Promise.resolve(
        Response.json(message({ text: 'ok', usage: { input: 50, output: 7 } }, 1)),
      );
    });
    const adapter = anthropic(sdk, 'claude-sonnet-4-5', {
      maxTokens: 1000,
      body: { system: 'Be brief.', max_tokens: 1 },
    });
    const result = await evaluate(prompt, { adapter, session });
    expect(result.usage).toEqual({ inputTokens: 50, outputTokens: 7, totalTokens: 57 });
    expect(bodies[0]).toMatchObject({ system: 'Be brief.', max_tokens: 1000 });
  });
});
