/**
 * `openaiChat` against the OpenAI SDK's own client, whose `fetch` answers
 * with `ChatCompletion` objects built with the SDK's types: no network.
 */
import OpenAI from 'openai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { EvaluateError, evaluate, openaiChat, type OpenAIChatRequest } from '../../../src/index.js';
import { causeChain } from '../../support/mcp-fixtures.js';
import {
  adapterScenarios,
  agent,
  inOrder,
  type Driver,
  type ScriptTurn,
  type SeenRequest,
} from '../adapter-scenarios.js';
import { recordingStart } from './fetch-driver.js';

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolMessage = OpenAI.Chat.Completions.ChatCompletionToolMessageParam;

const API_KEY = 'sk-test-never-shown';

/** A real `OpenAI` client whose requests are answered by `answer`. */
function client(
  answer: (body: Params, signal: AbortSignal | undefined) => Promise<Response>,
): OpenAI {
  return new OpenAI({
    apiKey: API_KEY,
    baseURL: 'http://127.0.0.1:9/v1',
    maxRetries: 0,
    fetch: async (_url, init) =>
      answer(JSON.parse(init?.body as string) as Params, init?.signal ?? undefined),
  });
}

function completion(turn: ScriptTurn, n: number): OpenAI.Chat.Completions.ChatCompletion {
  const calls = turn.calls ?? [];
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4.1',
    choices: [
      {
        index: 0,
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          refusal: null,
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: {
                    name: call.name,
                    arguments: call.rawArgs ?? JSON.stringify(call.args),
                  },
                })),
              }),
        },
      },
    ],
    usage: {
      prompt_tokens: turn.usage?.input ?? 0,
      completion_tokens: turn.usage?.output ?? 0,
      total_tokens: (turn.usage?.input ?? 0) + (turn.usage?.output ?? 0),
    },
  };
}

/** The messages at the end of `messages` that match `test`, in order. */
function trailing<T>(messages: readonly T[], test: (message: T) => boolean): T[] {
  const found: T[] = [];
  for (let i = messages.length - 1; i >= 0 && test(messages[i]!); i -= 1)
    found.unshift(messages[i]!);
  return found;
}

function seen(body: Params, signal: AbortSignal | undefined): SeenRequest {
  const [first, ...rest] = body.messages;
  const last = rest.at(-1);
  const format = body.response_format;
  return {
    promptText: first?.role === 'user' && typeof first.content === 'string' ? first.content : '',
    toolNames: (body.tools ?? []).flatMap((tool) =>
      tool.type === 'function' ? [tool.function.name] : [],
    ),
    toolResults: trailing<Message>(rest, (message) => message.role === 'tool').map((message) => ({
      id: (message as ToolMessage).tool_call_id,
      text: message.content as string,
      isError: undefined,
    })),
    note: last?.role === 'user' && typeof last.content === 'string' ? last.content : undefined,
    outputSchema: format?.type === 'json_schema' ? format.json_schema.schema : undefined,
    signal,
  };
}

/** Also records the raw bodies, for the format checks below. */
const start = recordingStart<Params, ReturnType<typeof openaiChat>>(
  (answer) => openaiChat(client(answer), 'gpt-4.1'),
  seen,
  completion,
);

const driver: Driver = { name: 'openai-chat', errorFlag: false, rawArguments: true, start };

adapterScenarios(driver);

describe('openaiChat: the Chat Completions format', () => {
  it('takes the SDK client, and sends requests the SDK types accept', () => {
    expectTypeOf(openaiChat).toBeCallableWith(new OpenAI({ apiKey: API_KEY }), 'gpt-4.1');
    expectTypeOf<OpenAIChatRequest>().toExtend<Params>();
  });

  it('sends the prompt as the first user message and the model reply back as it came', async () => {
    const { session, prompt } = await agent(z.object({ done: z.boolean() }));
    const { adapter, bodies } = start(
      inOrder(
        { calls: [{ id: 'c1', name: 'crm_lookup', args: { id: '1' } }] },
        { text: '{"done":true}' },
      ),
    );
    await evaluate(prompt, { adapter, session });

    const [first, second] = bodies;
    expect(first?.model).toBe('gpt-4.1');
    expect(first?.messages).toEqual([{ role: 'user', content: prompt.render().text }]);
    expect(first?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: prompt.render().outputSchema, strict: true },
    });
    expect(second?.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'crm_lookup', arguments: '{"id":"1"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'customer 1: Ada' },
    ]);
  });

  it('answers a custom tool call with an error result, and takes a refusal as the answer', async () => {
    const { session, prompt, events } = await agent();
    const bodies: Params[] = [];
    const openai = client((body) => {
      bodies.push(body);
      const base = completion({}, bodies.length);
      const message = base.choices[0]!.message;
      const reply: OpenAI.Chat.Completions.ChatCompletion =
        bodies.length === 1
          ? {
              ...base,
              choices: [
                {
                  ...base.choices[0]!,
                  message: {
                    ...message,
                    tool_calls: [
                      { id: 'x1', type: 'custom', custom: { name: 'add_note', input: 'hi' } },
                    ],
                  },
                },
              ],
            }
          : {
              ...base,
              choices: [
                { ...base.choices[0]!, message: { ...message, refusal: 'I cannot help.' } },
              ],
            };
      return Promise.resolve(Response.json(reply));
    });

    const result = await evaluate(prompt, { adapter: openaiChat(openai, 'gpt-4.1'), session });

    expect(result.text).toBe('I cannot help.');
    expect(bodies[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'x1',
      content: expect.stringMatching(/is a custom tool call/) as unknown,
    });
    expect(events.all.filter((event) => 'toolName' in event)).toEqual([]);
  });

  it('merges `body` under its own fields and can turn strict off', async () => {
    const { session, prompt } = await agent();
    const bodies: Params[] = [];
    const openai = client((body) => {
      bodies.push(body);
      return Promise.resolve(Response.json(completion({ text: 'ok' }, 1)));
    });
    const adapter = openaiChat(openai, 'gpt-4.1', {
      strict: false,
      body: { temperature: 0.2, model: 'not-this-one' },
    });
    await evaluate(prompt, { adapter, session });
    expect(bodies[0]).toMatchObject({ model: 'gpt-4.1', temperature: 0.2 });
    expect(
      bodies[0]?.tools?.map((tool) => (tool.type === 'function' ? tool.function.strict : 'x')),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('fails with evaluate-model on a provider error, naming the adapter, never the key', async () => {
    const { session, prompt } = await agent();
    const openai = client(() =>
      Promise.resolve(Response.json({ error: { message: 'model overloaded' } }, { status: 503 })),
    );

    const error: unknown = await evaluate(prompt, {
      adapter: openaiChat(openai, 'gpt-4.1'),
      session,
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(EvaluateError);
    expect((error as EvaluateError).code).toBe('evaluate-model');
    expect((error as EvaluateError).message).toMatch(
      /^the model call of turn 1 \(adapter "openai-chat"\) failed: 503 model overloaded/,
    );
    expect((error as EvaluateError).cause).toBeInstanceOf(OpenAI.APIError);
    expect(causeChain(error).join('\n')).not.toContain(API_KEY);
  });
});
