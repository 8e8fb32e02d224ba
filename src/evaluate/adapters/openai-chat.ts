/**
 * `evaluate` over OpenAI Chat Completions: `toOpenAITools` out,
 * `message.tool_calls` back, `role: 'tool'` messages with the results.
 * Takes the user's `OpenAI` client and uses none of the SDK's code, so the
 * library does not need `openai` installed.
 */
import {
  readOpenAIToolCall,
  toOpenAITools,
  type OpenAIFunctionTool,
  type OpenAIToolCall,
  type OpenAIToolMessage,
} from '../../ecosystem/openai.js';
import { openAIStrictIssues } from '../../ecosystem/openai-strict.js';
import type { JsonSchema } from '../../tools/tool.js';
import { type ModelAdapter, type ModelToolCall, toModelToolCall } from '../adapter.js';

/** What {@link openaiChat} needs of an `OpenAI` client: `chat.completions.create`. */
export interface OpenAIChatClient {
  readonly chat: {
    readonly completions: {
      create(
        body: OpenAIChatRequest,
        options?: { signal?: AbortSignal },
      ): PromiseLike<OpenAIChatCompletion>;
    };
  };
}

/** The request {@link openaiChat} sends (a `ChatCompletionCreateParamsNonStreaming`). */
export interface OpenAIChatRequest {
  readonly model: string;
  readonly messages: OpenAIChatMessage[];
  readonly tools?: OpenAIFunctionTool[];
  /** The template's output schema, as a structured output. */
  readonly response_format?: {
    readonly type: 'json_schema';
    readonly json_schema: {
      readonly name: string;
      readonly schema: JsonSchema;
      readonly strict: boolean;
    };
  };
}

/** A tool call the model made, as it is sent back (`ChatCompletionMessageToolCall`). */
export type OpenAIChatToolCall = OpenAIToolCall & { readonly id: string };

/** A message of the conversation (`ChatCompletionMessageParam`). */
export type OpenAIChatMessage =
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly refusal?: string;
      readonly tool_calls?: OpenAIChatToolCall[];
    }
  | OpenAIToolMessage;

/** The part of a `ChatCompletion` the adapter reads. */
export interface OpenAIChatCompletion {
  readonly choices: readonly {
    readonly message: {
      readonly content: string | null;
      readonly refusal?: string | null;
      readonly tool_calls?: readonly OpenAIChatToolCall[] | undefined;
    };
  }[];
  readonly usage?:
    { readonly prompt_tokens: number; readonly completion_tokens: number } | null | undefined;
}

/** Options of {@link openaiChat}. */
export interface OpenAIChatAdapterOptions {
  /**
   * `strict: true` on every tool and on the output schema where the schema
   * qualifies for structured outputs as it is (see `openAIStrictIssues`).
   * @default true
   */
  readonly strict?: boolean;
  /** More request fields (`temperature`, `reasoning_effort`, …); the adapter's own fields win. */
  readonly body?: Readonly<Record<string, unknown>>;
}

/**
 * An `evaluate` adapter for OpenAI Chat Completions. The rendered prompt is
 * the first user message; the template's output schema goes as
 * `response_format`; a refusal is the answer's text.
 *
 * @example
 * await evaluate(prompt, { adapter: openaiChat(new OpenAI(), 'gpt-4.1'), session });
 */
export function openaiChat(
  client: OpenAIChatClient,
  model: string,
  options: OpenAIChatAdapterOptions = {},
): ModelAdapter<OpenAIChatMessage> {
  const strict = options.strict ?? true;
  const adapter: ModelAdapter<OpenAIChatMessage> = {
    name: 'openai-chat',
    async generate({ prompt, messages, signal }) {
      const tools = toOpenAITools(prompt, { strict });
      const schema = prompt.outputSchema;
      const body: OpenAIChatRequest = {
        ...options.body,
        model,
        messages: [{ role: 'user', content: prompt.text }, ...messages],
        ...(tools.length === 0 ? {} : { tools }),
        ...(schema === undefined
          ? {}
          : {
              response_format: {
                type: 'json_schema',
                json_schema: {
                  name: 'output',
                  schema,
                  strict: strict && openAIStrictIssues(schema).length === 0,
                },
              },
            }),
      };
      const completion = await client.chat.completions.create(body, { signal });
      const message = completion.choices[0]?.message;
      if (message === undefined) throw new Error('the completion has no choices');
      const calls = message.tool_calls ?? [];
      const refusal = message.refusal ?? undefined;
      return {
        messages: [
          {
            role: 'assistant',
            content: message.content,
            ...(refusal === undefined ? {} : { refusal }),
            ...(calls.length === 0 ? {} : { tool_calls: [...calls] }),
          },
        ],
        text: message.content ?? refusal ?? '',
        toolCalls: calls.map(chatToolCall),
        usage: {
          inputTokens: completion.usage?.prompt_tokens,
          outputTokens: completion.usage?.completion_tokens,
        },
      };
    },
    // The loop has written each result's text already: what toOpenAIToolMessage would.
    toolResults: (outcomes) =>
      outcomes.map(({ call, text }) => ({ role: 'tool', tool_call_id: call.id, content: text })),
    userMessage: (text) => ({ role: 'user', content: text }),
  };
  return Object.freeze(adapter);
}

function chatToolCall(call: OpenAIChatToolCall): ModelToolCall {
  const { name, parsed } = readOpenAIToolCall(call);
  return toModelToolCall(call.id, name, parsed);
}
