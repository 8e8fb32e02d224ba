/**
 * `evaluate` over a Vercel AI SDK (`ai` 6) language model: one
 * `generateText` step per turn with the prompt's tools offered *without*
 * `execute`, so the SDK returns the calls and the loop runs them. Whatever
 * provider the model is (OpenAI, Anthropic, Google, a gateway id, a
 * middleware-wrapped model, `MockLanguageModelV3`) works the same way.
 *
 * `ai` is loaded on the first turn, not when this library is imported.
 */
import type {
  generateText,
  JSONSchema7,
  LanguageModel,
  ModelMessage,
  OutputInterface,
  ToolModelMessage,
  ToolSet,
} from 'ai';
import { loadAi } from '../../ecosystem/ai-sdk.js';
import { parseToolArguments } from '../../ecosystem/openai.js';
import type { JsonSchema } from '../../tools/tool.js';
import { type ModelAdapter, type ModelToolCall, toModelToolCall } from '../adapter.js';

/** `generateText` settings the adapter passes on (temperature, maxRetries, providerOptions, …). */
export type AiSdkSettings = Omit<
  Parameters<typeof generateText>[0],
  | 'model'
  | 'prompt'
  | 'messages'
  | 'system'
  | 'tools'
  | 'toolChoice'
  | 'activeTools'
  | 'abortSignal'
  | 'output'
  | 'experimental_output'
  | 'stopWhen'
  | 'prepareStep'
>;

/** Options of {@link aiSdk}. */
export interface AiSdkAdapterOptions {
  /** More `generateText` settings; the adapter's own win. */
  readonly settings?: AiSdkSettings;
}

/** The SDK's tool call, as `generateText` returns it. */
interface SdkToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly invalid?: boolean | undefined;
}

/**
 * An `evaluate` adapter for an AI SDK language model. The rendered prompt
 * is the first user message; the template's output schema goes as the
 * model's JSON response format (the loop parses and repairs the answer);
 * the SDK's own retries (`maxRetries`) apply to each call.
 *
 * @throws Error, from the first turn, when the `ai` package is not installed.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * await evaluate(prompt, { adapter: aiSdk(openai('gpt-4.1')), session });
 */
export function aiSdk(
  model: LanguageModel,
  options: AiSdkAdapterOptions = {},
): ModelAdapter<ModelMessage> {
  const adapter: ModelAdapter<ModelMessage> = {
    name: 'ai-sdk',
    async generate({ prompt, messages, signal }) {
      const ai = await loadAi('aiSdk');
      const tools: ToolSet = Object.fromEntries(
        prompt.tools.map((tool) => [
          tool.name,
          // No `execute`: the SDK hands the call back; no `validate`: ours checks it.
          ai.tool({
            description: tool.description,
            inputSchema: ai.jsonSchema(tool.inputSchema as JSONSchema7),
          }),
        ]),
      );
      const schema = prompt.outputSchema;
      const result = await ai.generateText({
        ...options.settings,
        model,
        messages: [{ role: 'user', content: prompt.text }, ...messages],
        ...(prompt.tools.length === 0 ? {} : { tools }),
        ...(schema === undefined ? {} : { output: jsonAnswer(schema) }),
        abortSignal: signal,
      });
      const { usage } = result;
      return {
        // The SDK answers a call it could not parse in a `tool` message of its
        // own; the loop answers every call, so only the model's message is kept.
        messages: result.response.messages.filter((message) => message.role === 'assistant'),
        text: result.text,
        toolCalls: (result.toolCalls as readonly SdkToolCall[]).map(sdkToolCall),
        usage: {
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          totalTokens: usage.totalTokens,
        },
      };
    },
    toolResults: (outcomes): ToolModelMessage[] => [
      {
        role: 'tool',
        content: outcomes.map(({ call, result, text }) => ({
          type: 'tool-result',
          toolCallId: call.id,
          toolName: call.name,
          output: result.success
            ? { type: 'text', value: text }
            : { type: 'error-text', value: text },
        })),
      },
    ],
    userMessage: (text) => ({ role: 'user', content: text }),
  };
  return Object.freeze(adapter);
}

/** An SDK call whose input did not parse comes back with the text the model wrote. */
function sdkToolCall(call: SdkToolCall): ModelToolCall {
  const { toolCallId: id, toolName: name, input } = call;
  if (call.invalid !== true || typeof input !== 'string') return { id, name, input };
  return toModelToolCall(id, name, parseToolArguments(name, input));
}

/**
 * The output schema as the model's response format, with the answer left
 * as text: `evaluate` parses it, and repairs it once, itself
 * (`Output.object` would throw instead).
 */
function jsonAnswer(schema: JsonSchema): OutputInterface<string, string, never> {
  return {
    name: 'mcp-sections-output',
    responseFormat: Promise.resolve({
      type: 'json',
      schema,
      name: 'output',
    }),
    parseCompleteOutput: ({ text }) => Promise.resolve(text),
    parsePartialOutput: ({ text }) => Promise.resolve({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}
