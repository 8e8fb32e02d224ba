/**
 * Anthropic Messages tools: definitions out, `tool_use` blocks back in. The
 * model is given each tool's original JSON Schema; the input it writes is
 * validated by the tool's own validator through `invokeTool`.
 */
import { PromptValidationError } from '../core/errors.js';
import type { ToolResult } from '../tools/tool-result.js';
import {
  findTool,
  invokeByName,
  providerToolName,
  toolsOf,
  type ProviderInvokeOptions,
  type ToolSource,
  resultParts,
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

/** The image types Anthropic accepts in a `tool_result`. */
export const ANTHROPIC_IMAGE_TYPES = Object.freeze([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
] as const);

/** An image content block (`Anthropic.Messages.ImageBlockParam`, base64 source). */
export interface AnthropicImageBlock {
  readonly type: 'image';
  readonly source: {
    readonly type: 'base64';
    readonly media_type: (typeof ANTHROPIC_IMAGE_TYPES)[number];
    readonly data: string;
  };
}

/** A text content block (`Anthropic.Messages.TextBlockParam`). */
export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** A `tool_result` block answering one `tool_use` block. */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  /** The result's text; a list of blocks when an MCP tool returned images. */
  readonly content: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  /** `true` for a failed call (an error result); absent on success. */
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

/**
 * The `tool_result` block that gives the model a result: its text, with
 * `is_error: true` for a failure. When an MCP tool returned images of a type
 * Anthropic accepts (JPEG, PNG, GIF, WebP), `content` is the text block and
 * one image block per image; the text names every image either way.
 */
export function toAnthropicToolResult(
  source: ToolSource,
  block: { readonly id: string; readonly name: string },
  result: ToolResult,
): AnthropicToolResultBlock {
  const content = resultParts(
    findTool(source, block.name),
    result,
    (text): AnthropicTextBlock => ({ type: 'text', text }),
    ({ mimeType, data }): AnthropicImageBlock | undefined =>
      isAnthropicImageType(mimeType)
        ? { type: 'image', source: { type: 'base64', media_type: mimeType, data } }
        : undefined,
  );
  return {
    type: 'tool_result',
    tool_use_id: block.id,
    content,
    ...(result.success ? {} : { is_error: true }),
  };
}

function isAnthropicImageType(
  mimeType: string,
): mimeType is (typeof ANTHROPIC_IMAGE_TYPES)[number] {
  return (ANTHROPIC_IMAGE_TYPES as readonly string[]).includes(mimeType);
}
