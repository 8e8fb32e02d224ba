/**
 * OpenAI Chat Completions function tools: definitions out, tool calls back in.
 * The model is given each tool's original JSON Schema; the arguments it
 * writes are validated by the tool's own validator through `invokeTool`.
 */
import type { JsonSchema } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';
import { openAIStrictIssues } from './openai-strict.js';
import {
  invokeByName,
  providerToolName,
  resultText,
  toolsOf,
  type ProviderInvokeOptions,
  type ToolSource,
} from './tool-source.js';

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

/** A tool call as the Chat Completions API returns it (`message.tool_calls[i]`). */
export interface OpenAIToolCall {
  readonly id?: string;
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A `role: 'tool'` message answering one tool call. */
export interface OpenAIToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/**
 * The tools of a rendered prompt as Chat Completions function tools.
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
        description: tool.description,
        parameters,
        ...(qualifies ? { strict: true } : {}),
      },
    };
  });
}

/**
 * Runs a Chat Completions tool call: parses `function.arguments` (JSON; empty
 * means `{}`), then `invokeTool` validates and runs it. Unparseable JSON and
 * unknown names are error results, without running anything.
 *
 * @throws McpFatalToolError, like `invokeTool`, for a `[FATAL] ` failure.
 */
export async function invokeFromOpenAI(
  source: ToolSource,
  toolCall: OpenAIToolCall,
  options: ProviderInvokeOptions,
): Promise<ToolResult> {
  const { name } = toolCall.function;
  const text = toolCall.function.arguments;
  let args: unknown = {};
  if (typeof text === 'string' && text.trim() !== '') {
    try {
      args = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return ToolResult.error(
        `arguments of tool ${JSON.stringify(name)} are not valid JSON: ${reason}`,
      );
    }
  }
  return invokeByName(source, name, args, options);
}

/** The `role: 'tool'` message that gives the model a result. */
export function toOpenAIToolMessage(
  source: ToolSource,
  toolCall: { readonly id: string; readonly function: { readonly name: string } },
  result: ToolResult,
): OpenAIToolMessage {
  const tool = toolsOf(source).find((candidate) => candidate.name === toolCall.function.name);
  return { role: 'tool', tool_call_id: toolCall.id, content: resultText(tool, result) };
}
