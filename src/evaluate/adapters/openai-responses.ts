/**
 * `evaluate` over the OpenAI Responses API: `toOpenAIResponsesTools` out,
 * `function_call` items back, `function_call_output` items with the
 * results. The whole conversation is sent each turn (no
 * `previous_response_id`), with the model's output items as they came.
 * Takes the user's `OpenAI` client and uses none of the SDK's code.
 */
import { parseToolArguments } from '../../ecosystem/openai.js';
import {
  toOpenAIFunctionCallOutput,
  toOpenAIResponsesTools,
  type OpenAIFunctionCallItem,
  type OpenAIFunctionCallOutputItem,
  type OpenAIResponsesFunctionTool,
} from '../../ecosystem/openai-responses.js';
import { openAIStrictIssues } from '../../ecosystem/openai-strict.js';
import type { JsonSchema } from '../../tools/tool.js';
import { type ModelAdapter, type ModelToolCall, toModelToolCall } from '../adapter.js';

/** What {@link openaiResponses} needs of an `OpenAI` client: `responses.create`. */
export interface OpenAIResponsesClient {
  readonly responses: {
    /**
     * Called with an {@link OpenAIResponsesRequest}. The parameter is typed `never` so
     * that the SDK's own overloaded method fits without this library
     * importing the SDK's types (the model's items are sent back as they
     * came, which no type here can promise the SDK); tests check the
     * requests against the SDK's types.
     */
    create(body: never, options?: { signal?: AbortSignal }): PromiseLike<OpenAIResponse>;
  };
}

/** The request {@link openaiResponses} sends (a `ResponseCreateParamsNonStreaming`). */
export interface OpenAIResponsesRequest {
  readonly model: string;
  readonly input: OpenAIResponsesItem[];
  readonly tools?: OpenAIResponsesFunctionTool[];
  /** The template's output schema, as a structured output. */
  readonly text?: {
    readonly format: {
      readonly type: 'json_schema';
      readonly name: string;
      readonly schema: JsonSchema;
      readonly strict: boolean;
    };
  };
}

/** An item of `response.output` (`ResponseOutputItem`), sent back as it came. */
export interface OpenAIResponsesOutputItem {
  readonly type: string;
}

/** An input item of the conversation: the prompt, the model's output items, the results. */
export type OpenAIResponsesItem =
  | { readonly role: 'user'; readonly content: string }
  | OpenAIResponsesOutputItem
  | OpenAIFunctionCallOutputItem;

/** The part of a `Response` the adapter reads. */
export interface OpenAIResponse {
  readonly output: readonly OpenAIResponsesOutputItem[];
  readonly usage?:
    | {
        readonly input_tokens: number;
        readonly output_tokens: number;
        readonly total_tokens: number;
      }
    | null
    | undefined;
}

/** Options of {@link openaiResponses}. */
export interface OpenAIResponsesAdapterOptions {
  /**
   * `strict: true` on every tool and on the output schema where the schema
   * qualifies for structured outputs as it is (see `openAIStrictIssues`).
   * @default true
   */
  readonly strict?: boolean;
  /** More request fields (`reasoning`, `instructions`, …); the adapter's own fields win. */
  readonly body?: Readonly<Record<string, unknown>>;
}

/**
 * An `evaluate` adapter for the OpenAI Responses API (what OpenAI's Agents
 * SDK uses). The rendered prompt is the first input message; the
 * template's output schema goes as `text.format`; the answer's text is its
 * `output_text` parts (a refusal's text when there are none).
 *
 * @example
 * await evaluate(prompt, { adapter: openaiResponses(new OpenAI(), 'gpt-4.1'), session });
 */
export function openaiResponses(
  client: OpenAIResponsesClient,
  model: string,
  options: OpenAIResponsesAdapterOptions = {},
): ModelAdapter<OpenAIResponsesItem> {
  const strict = options.strict ?? true;
  const adapter: ModelAdapter<OpenAIResponsesItem> = {
    name: 'openai-responses',
    async generate({ prompt, messages, signal }) {
      const tools = toOpenAIResponsesTools(prompt, { strict });
      const schema = prompt.outputSchema;
      const body: OpenAIResponsesRequest = {
        ...options.body,
        model,
        input: [{ role: 'user', content: prompt.text }, ...messages],
        ...(tools.length === 0 ? {} : { tools }),
        ...(schema === undefined
          ? {}
          : {
              text: {
                format: {
                  type: 'json_schema',
                  name: 'output',
                  schema,
                  strict: strict && openAIStrictIssues(schema).length === 0,
                },
              },
            }),
      };
      const response = await client.responses.create(body as never, { signal });
      const output = [...response.output];
      return {
        messages: output,
        text: outputText(output),
        toolCalls: output.filter(isFunctionCall).map(functionCall),
        usage: {
          inputTokens: response.usage?.input_tokens,
          outputTokens: response.usage?.output_tokens,
          totalTokens: response.usage?.total_tokens,
        },
      };
    },
    toolResults: (outcomes) =>
      outcomes.map(({ call, result, prompt }) =>
        toOpenAIFunctionCallOutput(prompt, { call_id: call.id, name: call.name }, result),
      ),
    userMessage: (text) => ({ role: 'user', content: text }),
  };
  return Object.freeze(adapter);
}

function isFunctionCall(
  item: OpenAIResponsesOutputItem,
): item is OpenAIFunctionCallItem & { readonly type: 'function_call' } {
  return item.type === 'function_call';
}

function functionCall(item: OpenAIFunctionCallItem): ModelToolCall {
  return toModelToolCall(item.call_id, item.name, parseToolArguments(item.name, item.arguments));
}

/** A part of an output `message` item (`output_text` or `refusal`). */
interface MessagePart {
  readonly type: string;
  readonly text?: string;
  readonly refusal?: string;
}

/** The text of the `output_text` parts of every `message` item; the refusals when there is none. */
function outputText(output: readonly OpenAIResponsesOutputItem[]): string {
  const parts = output.flatMap((item) =>
    item.type === 'message' ? ((item as { content?: readonly MessagePart[] }).content ?? []) : [],
  );
  const texts = parts.flatMap((part) =>
    part.type === 'output_text' && typeof part.text === 'string' ? [part.text] : [],
  );
  if (texts.length > 0) return texts.join('');
  return parts
    .flatMap((part) =>
      part.type === 'refusal' && typeof part.refusal === 'string' ? [part.refusal] : [],
    )
    .join('');
}
