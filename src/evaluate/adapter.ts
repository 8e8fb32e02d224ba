/**
 * What `evaluate` needs from a model provider: one call of the model, and
 * the provider's messages for tool results and for a note from the loop.
 * The loop owns everything else (rendering, running tools, rollback, the
 * deadline, structured output, events), so an adapter is a thin mapping.
 */
import type { ParsedToolArguments } from '../ecosystem/openai.js';
import type { RenderedPrompt } from '../prompt/rendered-prompt.js';
import type { TokenUsage } from '../runtime/events.js';
import type { ToolResult } from '../tools/tool-result.js';

/**
 * A model provider for `evaluate`. `M` is the provider's own message type;
 * the loop keeps the conversation as a list of them and never looks inside.
 *
 * @example
 * const adapter: ModelAdapter<{ role: string; content: string }> = {
 *   name: 'echo',
 *   generate: async ({ prompt }) => ({ messages: [], text: prompt.text, toolCalls: [] }),
 *   toolResults: (outcomes) => outcomes.map((o) => ({ role: 'tool', content: o.text })),
 *   userMessage: (text) => ({ role: 'user', content: text }),
 * };
 */
export interface ModelAdapter<M = unknown> {
  /** Names the adapter in events and errors, e.g. `openai-chat`. */
  readonly name: string;
  /**
   * One model call. The adapter sends `prompt.text` as it sees fit (the
   * built-in adapters make it the first user message), then `messages`,
   * and offers `prompt.tools` and `prompt.outputSchema` in its format.
   * It must pass `signal` on to the provider's client.
   */
  generate(request: ModelRequest<M>): Promise<ModelTurn<M>>;
  /** The message(s) that give the model the results of one turn's tool calls, in call order. */
  toolResults(outcomes: readonly ToolCallOutcome[]): readonly M[];
  /** A user message from the loop (the repair note after an answer that did not parse). */
  userMessage(text: string): M;
}

/** What {@link ModelAdapter.generate} is given. */
export interface ModelRequest<M = unknown> {
  /** This turn's render: its text, its tools and the template's output schema. */
  readonly prompt: RenderedPrompt;
  /** The conversation after the prompt: the model's replies and the loop's messages, in order. */
  readonly messages: readonly M[];
  /** Aborts at the deadline or when the caller aborts. */
  readonly signal: AbortSignal;
}

/** What {@link ModelAdapter.generate} returns: the model's reply. */
export interface ModelTurn<M = unknown> {
  /** The reply as it goes back into the conversation (usually one assistant message). */
  readonly messages: readonly M[];
  /** The reply's text; the final answer when there are no tool calls. */
  readonly text: string;
  /** The tools the model asked for; none means the model has answered. */
  readonly toolCalls: readonly ModelToolCall[];
  /** Tokens this call used, as far as the provider says. */
  readonly usage?: TurnUsage | undefined;
}

/** Tokens one model call used; a count left out adds nothing, a missing total is input plus output. */
export type TurnUsage = { readonly [K in keyof TokenUsage]?: number | undefined };

/** A tool call as the model wrote it. */
export interface ModelToolCall {
  /** The provider's id of the call, echoed in its result. */
  readonly id: string;
  /** The tool's name as the model wrote it. */
  readonly name: string;
  /** The arguments, parsed from the provider's format but not validated. */
  readonly input: unknown;
  /**
   * Set when the call cannot be run as written (its arguments are not JSON,
   * it is not a function call): the tool is not run and the model is told
   * this text as an error result.
   */
  readonly error?: string;
}

/**
 * @internal A tool call whose arguments came as JSON text, once parsed: the
 * arguments, or the parse error the model is told instead of a run.
 */
export function toModelToolCall(
  id: string,
  name: string,
  parsed: ParsedToolArguments,
): ModelToolCall {
  return parsed.ok
    ? { id, name, input: parsed.args }
    : { id, name, input: undefined, error: parsed.error.message };
}

/** One tool call of a turn and how it ended, for {@link ModelAdapter.toolResults}. */
export interface ToolCallOutcome {
  readonly call: ModelToolCall;
  /** What `invokeTool` returned (an error result for a refused, invalid or unknown call). */
  readonly result: ToolResult;
  /** What the model should read: the result's message, with a native tool's value as JSON. */
  readonly text: string;
  /** The render the call ran against, for the provider formats (`toAnthropicToolResult`, …). */
  readonly prompt: RenderedPrompt;
}
