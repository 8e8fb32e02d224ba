/**
 * OpenAI Chat Completions function tools: definitions out, tool calls back in.
 * The model is given each tool's original JSON Schema; the arguments it
 * writes are validated by the tool's own validator through `invokeTool`.
 */
import type { JsonSchema } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';
import { syntaxErrorPlace } from '../core/json-syntax.js';
import { openAIStrictIssues } from './openai-strict.js';
import {
  findTool,
  invokeByName,
  providerToolName,
  resultText,
  toolsOf,
  type ProviderInvokeOptions,
  type ToolSource,
} from './tool-source.js';
import { describeSent } from '../core/describe-sent.js';
import { isPlainObject } from '../core/json.js';
import { cutText } from '../core/well-formed.js';

/** A Chat Completions function tool (assignable to `OpenAI.Chat.Completions.ChatCompletionTool`). */
export interface OpenAIFunctionTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description: string;
    /** The tool's JSON Schema, unchanged. */
    readonly parameters: JsonSchema;
    /** Present, and `true`, only for a tool whose schema qualifies for structured outputs. */
    readonly strict?: boolean;
  };
}

/** Options of {@link toOpenAITools}. */
export interface ToOpenAIToolsOptions {
  /**
   * Ask for structured outputs: `strict: true` on every tool whose schema
   * qualifies as it is (see {@link openAIStrictIssues}); others go without.
   * @default false
   */
  readonly strict?: boolean;
}

/**
 * A tool call as the Chat Completions API returns it (`message.tool_calls[i]`,
 * `OpenAI.Chat.Completions.ChatCompletionMessageToolCall`): a function call,
 * or a call of a custom tool, which this library never offers.
 */
export type OpenAIToolCall = OpenAIFunctionToolCall | OpenAICustomToolCall;

/** A function tool call (`ChatCompletionMessageFunctionToolCall`). */
export interface OpenAIFunctionToolCall {
  readonly id?: string;
  readonly type?: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A custom tool call (`ChatCompletionMessageCustomToolCall`): free text, not JSON arguments. */
export interface OpenAICustomToolCall {
  readonly id?: string;
  readonly type: 'custom';
  readonly custom: { readonly name: string; readonly input: string };
}

/** A `role: 'tool'` message answering one tool call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/**
 * Longest function description OpenAI accepts (its APIs refuse the whole
 * request past it, `string_above_max_length`); MCP servers send longer ones.
 */
export const OPENAI_MAX_DESCRIPTION_LENGTH = 1_024;

/** `description` cut to what OpenAI accepts, with `…`, never inside a surrogate pair. */
export function openAIDescription(description: string): string {
  return cutText(description, OPENAI_MAX_DESCRIPTION_LENGTH);
}

/**
 * The tools of a rendered prompt as Chat Completions function tools;
 * descriptions are cut to {@link OPENAI_MAX_DESCRIPTION_LENGTH}.
 *
 * @throws PromptValidationError for a tool name OpenAI would refuse.
 * @example
 * const completion = await openai.chat.completions.create({
 *   model, messages, tools: toOpenAITools(rendered, { strict: true }),
 * });
 */
export function toOpenAITools(
  source: ToolSource,
  options: ToOpenAIToolsOptions = {},
): OpenAIFunctionTool[] {
  const strict = options.strict ?? false;
  return toolsOf(source).map((tool) => {
    const parameters = tool.inputSchema;
    const qualifies = strict && openAIStrictIssues(parameters).length === 0;
    return {
      type: 'function',
      function: {
        name: providerToolName(tool, 'OpenAI'),
        description: openAIDescription(tool.description),
        parameters,
        ...(qualifies ? { strict: true } : {}),
      },
    };
  });
}

/**
 * Runs a Chat Completions tool call: parses `function.arguments` (JSON; empty
 * means `{}`), then `invokeTool` validates and runs it. Unparseable JSON,
 * unknown names and custom tool calls are error results, without running
 * anything.
 *
 * @throws McpFatalToolError, like `invokeTool`, for a `[FATAL] ` failure.
 * @example
 * for (const call of completion.choices[0].message.tool_calls ?? []) {
 *   const result = await invokeFromOpenAI(rendered, call, { session });
 *   messages.push(toOpenAIToolMessage(rendered, call, result));
 * }
 */
export async function invokeFromOpenAI(
  source: ToolSource,
  toolCall: OpenAIToolCall,
  options: ProviderInvokeOptions,
): Promise<ToolResult> {
  const { name, parsed } = readOpenAIToolCall(toolCall);
  if (!parsed.ok) return parsed.error;
  return invokeByName(source, name, parsed.args, options);
}

/** Arguments read from a model's JSON text, or the error result that answers the call instead. */
export type ParsedToolArguments =
  | { readonly ok: true; readonly args: unknown }
  | { readonly ok: false; readonly error: ToolResult };

/**
 * The name and arguments of a Chat Completions tool call, without running
 * it: a custom tool call, or arguments that are not JSON, give the error
 * result that answers it.
 */
export function readOpenAIToolCall(toolCall: OpenAIToolCall): {
  readonly name: string;
  readonly parsed: ParsedToolArguments;
} {
  if (toolCall.type === 'custom') {
    const { name } = toolCall.custom;
    const error = ToolResult.error(
      `tool call of ${describeSent(name)} is a custom tool call; ` +
        'only function tools are offered, so call it as a function with JSON arguments',
    );
    return { name, parsed: { ok: false, error } };
  }
  const { name } = toolCall.function;
  return { name, parsed: parseToolArguments(name, toolCall.function.arguments) };
}

/**
 * The arguments a model wrote as JSON text (Chat Completions and Responses
 * alike): `{}` for an empty text or none, or an error result naming the
 * tool when the text is not JSON. The error says where (line, column) and
 * what was expected there, never what the text holds: `JSON.parse`'s
 * message quotes a fragment of it, which may be a secret argument, and the
 * result reaches the model, events and traces. Some OpenAI-compatible
 * gateways hand the arguments over already parsed: a plain object is taken
 * as the arguments; any other value is refused, never replaced.
 */
export function parseToolArguments(name: string, text: unknown): ParsedToolArguments {
  if (text === undefined || text === null) return { ok: true, args: {} };
  if (isPlainObject(text)) return { ok: true, args: text };
  if (typeof text !== 'string') {
    return {
      ok: false,
      error: ToolResult.error(
        `arguments of tool ${describeSent(name)} must be JSON text (a string) or an object; received ${describeSent(text)}`,
      ),
    };
  }
  if (text.trim() === '') return { ok: true, args: {} };
  try {
    return { ok: true, args: JSON.parse(text) as unknown };
  } catch {
    return {
      ok: false,
      error: ToolResult.error(
        `arguments of tool ${describeSent(name)} are not valid JSON${syntaxErrorPlace(text)}`,
      ),
    };
  }
}

/** The `role: 'tool'` message that gives the model a result (text only: the API takes no images here). */
export function toOpenAIToolMessage(
  source: ToolSource,
  toolCall: OpenAIToolCallRef,
  result: ToolResult,
): OpenAIToolMessage {
  const name = toolCall.type === 'custom' ? toolCall.custom.name : toolCall.function.name;
  return {
    role: 'tool',
    tool_call_id: toolCall.id,
    content: resultText(findTool(source, name), result),
  };
}

/** What {@link toOpenAIToolMessage} needs of a tool call: its id and name. */
export type OpenAIToolCallRef =
  | {
      readonly id: string;
      readonly type?: 'function';
      readonly function: { readonly name: string };
    }
  | { readonly id: string; readonly type: 'custom'; readonly custom: { readonly name: string } };
