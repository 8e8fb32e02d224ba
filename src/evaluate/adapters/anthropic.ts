/**
 * `evaluate` over Anthropic Messages: `toAnthropicTools` out, `tool_use`
 * blocks back, one user message of `tool_result` blocks with the results.
 * Takes the user's `Anthropic` client and uses none of the SDK's code, so
 * the library does not need `@anthropic-ai/sdk` installed.
 */
import {
  toAnthropicToolResult,
  toAnthropicTools,
  type AnthropicTool,
  type AnthropicToolResultBlock,
} from '../../ecosystem/anthropic.js';
import type { JsonSchema } from '../../tools/tool.js';
import type { ModelAdapter, ModelToolCall } from '../adapter.js';

/** `max_tokens` of every request, unless the options say otherwise. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** What {@link anthropic} needs of an `Anthropic` client: `messages.create`. */
export interface AnthropicClient {
  readonly messages: {
    /**
     * Called with an {@link AnthropicRequest}. The parameter is typed `never` so
     * that the SDK's own overloaded method fits without this library
     * importing the SDK's types (the model's items are sent back as they
     * came, which no type here can promise the SDK); tests check the
     * requests against the SDK's types.
     */
    create(body: never, options?: { signal?: AbortSignal }): PromiseLike<AnthropicMessage>;
  };
}

/** The request {@link anthropic} sends (a `MessageCreateParamsNonStreaming`). */
export interface AnthropicRequest {
  readonly model: string;
  readonly max_tokens: number;
  readonly messages: AnthropicMessageParam[];
  readonly tools?: AnthropicTool[];
  /** The template's output schema, as a structured output. */
  readonly output_config?: {
    readonly format: { readonly type: 'json_schema'; readonly schema: JsonSchema };
  };
}

/** A content block of the model's reply (`ContentBlock`), sent back as it came. */
export interface AnthropicContentBlock {
  readonly type: string;
}

/** A message of the conversation (`MessageParam`). */
export type AnthropicMessageParam =
  | { readonly role: 'user'; readonly content: string | AnthropicToolResultBlock[] }
  | { readonly role: 'assistant'; readonly content: AnthropicContentBlock[] };

/** The part of a `Message` the adapter reads. */
export interface AnthropicMessage {
  readonly content: readonly AnthropicContentBlock[];
  readonly usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_creation_input_tokens?: number | null;
    readonly cache_read_input_tokens?: number | null;
  };
}

/** Options of {@link anthropic}. */
export interface AnthropicAdapterOptions {
  /** @default 4096 (DEFAULT_ANTHROPIC_MAX_TOKENS) */
  readonly maxTokens?: number;
  /** More request fields (`system`, `temperature`, `thinking`, …); the adapter's own fields win. */
  readonly body?: Readonly<Record<string, unknown>>;
}

/**
 * An `evaluate` adapter for Anthropic Messages. The rendered prompt is the
 * first user message; the template's output schema goes as
 * `output_config.format`; the answer's text is its text blocks. Input
 * tokens count cache reads and writes too.
 *
 * @example
 * await evaluate(prompt, { adapter: anthropic(new Anthropic(), 'claude-sonnet-4-5'), session });
 */
export function anthropic(
  client: AnthropicClient,
  model: string,
  options: AnthropicAdapterOptions = {},
): ModelAdapter<AnthropicMessageParam> {
  const adapter: ModelAdapter<AnthropicMessageParam> = {
    name: 'anthropic',
    async generate({ prompt, messages, signal }) {
      const tools = toAnthropicTools(prompt);
      const schema = prompt.outputSchema;
      const body: AnthropicRequest = {
        ...options.body,
        model,
        max_tokens: options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
        messages: [{ role: 'user', content: prompt.text }, ...messages],
        ...(tools.length === 0 ? {} : { tools }),
        ...(schema === undefined
          ? {}
          : { output_config: { format: { type: 'json_schema', schema } } }),
      };
      const message = await client.messages.create(body as never, { signal });
      const { usage } = message;
      return {
        messages: [{ role: 'assistant', content: [...message.content] }],
        text: message.content.flatMap((block) => (isText(block) ? [block.text] : [])).join(''),
        toolCalls: message.content
          .filter(isToolUse)
          .map((block): ModelToolCall => ({ id: block.id, name: block.name, input: block.input })),
        usage: {
          inputTokens:
            usage.input_tokens +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0),
          outputTokens: usage.output_tokens,
        },
      };
    },
    toolResults: (outcomes) => [
      {
        role: 'user',
        content: outcomes.map(({ call, result, prompt }) =>
          toAnthropicToolResult(prompt, { id: call.id, name: call.name }, result),
        ),
      },
    ],
    userMessage: (text) => ({ role: 'user', content: text }),
  };
  return Object.freeze(adapter);
}

function isText(block: AnthropicContentBlock): block is { type: 'text'; text: string } {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}

function isToolUse(
  block: AnthropicContentBlock,
): block is { type: 'tool_use'; id: string; name: string; input: unknown } {
  return block.type === 'tool_use';
}
