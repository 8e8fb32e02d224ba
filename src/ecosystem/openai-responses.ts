/**
 * OpenAI Responses API function tools (what OpenAI's Agents SDK uses):
 * definitions out, `function_call` items back in, `function_call_output`
 * items answering them. Same rule as Chat Completions: the model is given
 * the tool's original JSON Schema and its arguments come back through
 * `invokeTool`.
 */
import type { JsonSchema } from '../tools/tool.js';
import type { ToolResult } from '../tools/tool-result.js';
import { openAIDescription, parseToolArguments } from './openai.js';
import { openAIStrictIssues } from './openai-strict.js';
import {
  findTool,
  invokeByName,
  providerToolName,
  toolsOf,
  type ProviderInvokeOptions,
  type ToolSource,
  resultParts,
} from './tool-source.js';

/** A Responses API function tool (assignable to `OpenAI.Responses.FunctionTool`). */
export interface OpenAIResponsesFunctionTool {
  readonly type: 'function';
  readonly name: string;
  readonly description: string;
  /** The tool's JSON Schema, unchanged. */
  readonly parameters: JsonSchema;
  /**
   * Always present: the Responses API treats a missing `strict` as `true`,
   * which a schema that does not qualify would fail.
   */
  readonly strict: boolean;
}

/** Options of {@link toOpenAIResponsesTools}. */
export interface ToOpenAIResponsesToolsOptions {
  /**
   * `strict: true` on every tool whose schema qualifies for structured
   * outputs as it is (see {@link openAIStrictIssues}), `false` on the others;
   * `false` turns it off for all.
   * @default true
   */
  readonly strict?: boolean;
}

/** A `function_call` output item (`OpenAI.Responses.ResponseFunctionToolCall`). */
export interface OpenAIFunctionCallItem {
  readonly type?: 'function_call';
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A part of a `function_call_output` that is not text: an image as a data URL. */
export interface OpenAIFunctionCallOutputImage {
  readonly type: 'input_image';
  readonly image_url: string;
  readonly detail: 'auto';
}

/** A text part of a `function_call_output`. */
export interface OpenAIFunctionCallOutputText {
  readonly type: 'input_text';
  readonly text: string;
}

/** A `function_call_output` input item (`OpenAI.Responses.ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIFunctionCallOutputItem {
  readonly type: 'function_call_output';
  readonly call_id: string;
  /** The result's text; a list of parts when the tool returned images. */
  readonly output: string | (OpenAIFunctionCallOutputText | OpenAIFunctionCallOutputImage)[];
}

/**
 * The tools of a rendered prompt as Responses API function tools.
 *
 * @throws PromptValidationError for a tool name OpenAI would refuse.
 * @example
 * const response = await openai.responses.create({
 *   model, input, tools: toOpenAIResponsesTools(rendered),
 * });
 */
export function toOpenAIResponsesTools(
  source: ToolSource,
  options: ToOpenAIResponsesToolsOptions = {},
): OpenAIResponsesFunctionTool[] {
  const strict = options.strict ?? true;
  return toolsOf(source).map((tool) => ({
    type: 'function',
    name: providerToolName(tool, 'OpenAI'),
    description: openAIDescription(tool.description),
    parameters: tool.inputSchema,
    strict: strict && openAIStrictIssues(tool.inputSchema).length === 0,
  }));
}

/**
 * Runs a `function_call` item: parses `arguments` (JSON; empty means `{}`),
 * then `invokeTool` validates and runs it. Unparseable JSON and unknown
 * names are error results, without running anything.
 *
 * @throws McpFatalToolError, like `invokeTool`, for a `[FATAL] ` failure.
 * @example
 * for (const item of response.output) {
 *   if (item.type !== 'function_call') continue;
 *   const result = await invokeFromOpenAIResponses(rendered, item, { session });
 *   input.push(item, toOpenAIFunctionCallOutput(rendered, item, result));
 * }
 */
export async function invokeFromOpenAIResponses(
  source: ToolSource,
  item: OpenAIFunctionCallItem,
  options: ProviderInvokeOptions,
): Promise<ToolResult> {
  const parsed = parseToolArguments(item.name, item.arguments);
  if (!parsed.ok) return parsed.error;
  return invokeByName(source, item.name, parsed.args, options);
}

/** The image types OpenAI reads from a data URL; an image of another type is described in text. */
export const OPENAI_IMAGE_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
]);

/**
 * The `function_call_output` item that gives the model a result: its text,
 * or text and `input_image` parts when an MCP tool returned images. The
 * Responses API has no error flag; a failure's text is its message.
 */
export function toOpenAIFunctionCallOutput(
  source: ToolSource,
  item: Pick<OpenAIFunctionCallItem, 'call_id' | 'name'>,
  result: ToolResult,
): OpenAIFunctionCallOutputItem {
  const output = resultParts(
    findTool(source, item.name),
    result,
    (text) => ({ type: 'input_text' as const, text }),
    // Another type (or a MIME type with parameters, which would be written
    // into the data URL as sent) makes OpenAI refuse the whole request.
    (image): OpenAIFunctionCallOutputImage | undefined =>
      OPENAI_IMAGE_TYPES.includes(image.mimeType)
        ? {
            type: 'input_image',
            image_url: `data:${image.mimeType};base64,${image.data}`,
            detail: 'auto',
          }
        : undefined,
  );
  return { type: 'function_call_output', call_id: item.call_id, output };
}
