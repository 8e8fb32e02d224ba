/**
 * `openaiResponses` against the OpenAI SDK's own client, whose `fetch`
 * answers with `Response` objects built with the SDK's types: no network.
 */
import OpenAI from 'openai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { evaluate, openaiResponses } from '../../../src/index.js';
import {
  adapterScenarios,
  agent,
  inOrder,
  type Driver,
  type ScriptTurn,
  type SeenRequest,
} from '../adapter-scenarios.js';
import { recordingStart } from './fetch-driver.js';

type Params = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type Item = OpenAI.Responses.ResponseInputItem;

/** A real `OpenAI` client whose requests are answered by `answer`. */
function client(
  answer: (body: Params, signal: AbortSignal | undefined) => Promise<Response>,
): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
    fetch: async (_url, init) =>
      answer(JSON.parse(init?.body as string) as Params, init?.signal ?? undefined),
  });
}

function response(turn: ScriptTurn, n: number): OpenAI.Responses.Response {
  const output: OpenAI.Responses.ResponseOutputItem[] = [
    { type: 'reasoning', id: `rs_${n}`, summary: [] },
    ...(turn.text === undefined
      ? []
      : [
          {
            type: 'message' as const,
            id: `msg_${n}`,
            role: 'assistant' as const,
            status: 'completed' as const,
            content: [{ type: 'output_text' as const, text: turn.text, annotations: [] }],
          },
        ]),
    ...(turn.calls ?? []).map((call) => ({
      type: 'function_call' as const,
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: call.rawArgs ?? JSON.stringify(call.args),
      status: 'completed' as const,
    })),
  ];
  const input = turn.usage?.input ?? 0;
  const outputTokens = turn.usage?.output ?? 0;
  return {
    id: `resp_${n}`,
    object: 'response',
    created_at: 1_700_000_000,
    model: 'gpt-4.1',
    status: 'completed',
    output,
    output_text: turn.text ?? '',
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + outputTokens,
    },
  };
}

function outputText(output: Item & { type: 'function_call_output' }): string {
  const { output: value } = output;
  return typeof value === 'string'
    ? value
    : value.map((part) => (part.type === 'input_text' ? part.text : '')).join('');
}

function seen(body: Params, signal: AbortSignal | undefined): SeenRequest {
  const input = Array.isArray(body.input) ? body.input : [];
  const [first, ...rest] = input;
  const results: (Item & { type: 'function_call_output' })[] = [];
  for (let i = rest.length - 1; i >= 0; i -= 1) {
    const item = rest[i]!;
    if (item.type !== 'function_call_output') break;
    results.unshift(item);
  }
  const last = rest.at(-1);
  const format = body.text?.format;
  return {
    promptText: first !== undefined && 'content' in first ? (first.content as string) : '',
    toolNames: (body.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.name] : [])),
    toolResults: results.map((item) => ({
      id: item.call_id,
      text: outputText(item),
      isError: undefined,
    })),
    note:
      last !== undefined && 'role' in last && last.role === 'user'
        ? (last.content as string)
        : undefined,
    outputSchema: format?.type === 'json_schema' ? format.schema : undefined,
    signal,
  };
}

const start = recordingStart<Params, ReturnType<typeof openaiResponses>>(
  (answer) => openaiResponses(client(answer), 'gpt-4.1'),
  seen,
  response,
);

const driver: Driver = { name: 'openai-responses', errorFlag: false, rawArguments: true, start };

adapterScenarios(driver);

describe('openaiResponses: the Responses API format', () => {
  it('takes the SDK client', () => {
    expectTypeOf(openaiResponses).toBeCallableWith(new OpenAI({ apiKey: 'sk-test' }), 'gpt-4.1');
  });

  it('sends the whole conversation each turn: the output items as they came, then the results', async () => {
    const { session, prompt } = await agent(z.object({ done: z.boolean() }));
    const { adapter, bodies } = start(
      inOrder(
        { calls: [{ id: 'c1', name: 'crm_lookup', args: { id: '1' } }] },
        { text: '{"done":true}' },
      ),
    );
    const result = await evaluate(prompt, { adapter, session });

    expect(result.output).toEqual({ done: true });
    const [first, second] = bodies;
    expect(first?.input).toEqual([{ role: 'user', content: prompt.render().text }]);
    expect(first?.text).toEqual({
      format: {
        type: 'json_schema',
        name: 'output',
        schema: prompt.render().outputSchema,
        strict: true,
      },
    });
    expect(second?.input).toEqual([
      { role: 'user', content: prompt.render().text },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'function_call',
        id: 'fc_c1',
        call_id: 'c1',
        name: 'crm_lookup',
        arguments: '{"id":"1"}',
        status: 'completed',
      },
      { type: 'function_call_output', call_id: 'c1', output: 'customer 1: Ada' },
    ]);
    expect(first?.tools?.map((tool) => tool.type === 'function' && tool.name)).toEqual([
      'add_note',
      'crm_lookup',
      'crm_load_customer',
      'crm_post_webhook',
    ]);
  });

  it('takes a refusal as the answer when the message has no output text', async () => {
    const { session, prompt } = await agent();
    const openai = client(() => {
      const base = response({}, 1);
      const refusal: OpenAI.Responses.ResponseOutputMessage = {
        type: 'message',
        id: 'msg_r',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'refusal', refusal: 'I cannot help.' }],
      };
      return Promise.resolve(Response.json({ ...base, output: [refusal] }));
    });
    const result = await evaluate(prompt, { adapter: openaiResponses(openai, 'gpt-4.1'), session });
    expect(result.text).toBe('I cannot help.');
  });
});
