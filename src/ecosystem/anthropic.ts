/**
 * Anthropic Messages tools: definitions out, `tool_use` blocks back in. The
 * model is given each tool's original JSON Schema; the input it writes is
 * validated by the tool's own validator through `invokeTool`.
 */
import { PromptValidationError } from '../core/errors.js';
import type { ToolResult } from '../tools/tool-result.js';
import {
  invokeByName,
  providerToolName,
  resultText,
  toolsOf,
  type ProviderInvokeOptions,
  type ToolSource,
} from './tool-source.js';

/** A tool's input schema as Anthropic requires it: an object schema. */
export interface AnthropicInputSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

/** A client tool definition (assignable to `Anthropic.Messages.Tool`). */
export interface AnthropicTool {
  readonly name: string;
  readonly description: string;
  /** The tool's JSON Schema, unchanged. */
  readonly input_schema: AnthropicInputSchema;
}

/** The part of a `tool_use` content block a call needs. */
export interface AnthropicToolUse {
  readonly id?: string;
  readonly name: string;
  readonly input: unknown;
}

/** A `tool_result` block answering one `tool_use` block. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string;
  readonly is_error?: boolean;
}

/**
 * The tools of a rendered prompt as Anthropic Messages tools.
 *
 * @throws PromptValidationError for a tool whose schema is not `"type": "object"`
 *   (the API refuses it) or whose name it would refuse.
 * @example
 * const message = await anthropic.messages.create({
 *   model, max_tokens, messages, tools: toAnthropicTools(rendered),
 * });
 */
export function toAnthropicTools(source: ToolSource): AnthropicTool[] {
  return toolsOf(source).map((tool) => {
    const schema = tool.inputSchema;
    if (schema['type'] !== 'object') {
      throw new PromptValidationError(
        `tool "${tool.name}" cannot be sent to Anthropic: its input schema must have "type": "object", ` +
          `got ${JSON.stringify(schema['type']) ?? 'no type'}`,
      );
    }
    return {
      name: providerToolName(tool, 'Anthropic'),
      description: tool.description,
      input_schema: schema as AnthropicInputSchema,
    };
  });
}

/**
 * Runs a `tool_use` block: `invokeTool` validates its `input` and runs the
 * tool. An unknown name is an error result.
 *
 * @throws McpFatalToolError, like `invokeTool`, for a `[FATAL] ` failure.
 */
export function invokeFromAnthropic(
  source: ToolSource,
  block: AnthropicToolUse,
  options: ProviderInvokeOptions,
): Promise<ToolResult> {
  return invokeByName(source, block.name, block.input, options);
}

/** The `tool_result` block that gives the model a result. */
export function toAnthropicToolResult(
  source: ToolSource,
  block: { readonly id: string; readonly name: string },
  result: ToolResult,
): AnthropicToolResultBlock {
  const tool = toolsOf(source).find((candidate) => candidate.name === block.name);
  return {
    type: 'tool_result',
    tool_use_id: block.id,
    content: resultText(tool, result),
    ...(result.success ? {} : { is_error: true }),
  };
}
