/**
 * An `evaluate` adapter for another provider, in under 50 lines: Ollama's
 * `/api/chat` (local models, no key). The loop does the rest — tools,
 * rollback, the deadline, structured output, events.
 */
import type { ModelAdapter } from '../src/index.js';

/** A message of Ollama's chat API. */
export interface OllamaMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly tool_calls?: readonly { readonly function: { name: string; arguments: unknown } }[];
  readonly tool_name?: string;
}
type OllamaReply = { message: OllamaMessage; prompt_eval_count?: number; eval_count?: number };

/** Chats with `model` on the Ollama server at `baseUrl`. */
export function ollama(
  model: string,
  baseUrl = 'http://127.0.0.1:11434',
): ModelAdapter<OllamaMessage> {
  return {
    name: 'ollama',
    async generate({ prompt, messages, signal }) {
      const response = await fetch(`${baseUrl}/api/chat`, {
        method: 'POST',
        signal,
        body: JSON.stringify({
          model,
          stream: false,
          messages: [{ role: 'user', content: prompt.text }, ...messages],
          tools: prompt.toolDefinitions().map(({ name, description, inputSchema }) => ({
            type: 'function',
            function: { name, description, parameters: inputSchema },
          })),
          ...(prompt.outputSchema === undefined ? {} : { format: prompt.outputSchema }),
        }),
      });
      if (!response.ok)
        throw new Error(`Ollama answered ${response.status}: ${await response.text()}`);
      const reply = (await response.json()) as OllamaReply;
      const calls = reply.message.tool_calls ?? [];
      return {
        messages: [reply.message],
        text: reply.message.content,
        toolCalls: calls.map(({ function: f }, i) => ({
          id: `${i}`,
          name: f.name,
          input: f.arguments,
        })),
        usage: { inputTokens: reply.prompt_eval_count, outputTokens: reply.eval_count },
      };
    },
    toolResults: (outcomes) =>
      outcomes.map(({ call, text }) => ({ role: 'tool', content: text, tool_name: call.name })),
    userMessage: (text) => ({ role: 'user', content: text }),
  };
}
