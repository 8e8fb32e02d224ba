/**
 * What the provider formats read tools from, and how a call coming back from
 * a model finds its tool and runs it. Shared by the OpenAI, Anthropic and AI
 * SDK formats.
 */
import { describeSent } from '../core/describe-sent.js';
import { listNames } from '../mcp/execute.js';
import { PromptValidationError } from '../core/errors.js';
import type { Session } from '../runtime/session.js';
import { invokeTool } from '../tools/invoke-tool.js';
import type { Approval } from '../tools/policy/approval.js';
import { NO_POLICIES, type ToolPolicy } from '../tools/policy/tool-policy.js';
import type { Tool } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';

/**
 * Tools to offer a model: a `RenderedPrompt` (its `tools`, and the policies
 * of each, which calls then obey), or a plain list of tools.
 */
export type ToolSource =
  | {
      readonly tools: readonly Tool[];
      policiesFor?(toolName: string): readonly ToolPolicy[];
    }
  | readonly Tool[];

/** Options of the `invokeFrom*` helpers. */
export interface ProviderInvokeOptions {
  /** The session the call belongs to (validation, rollback, `ToolInvoked`). */
  readonly session: Session;
  /** Cancels the call. */
  readonly signal?: AbortSignal;
  /** Decides the calls a policy of the prompt asks about; without it an `ask` denies. @default none */
  readonly approval?: Approval;
  /** When the call must be over (see `InvokeToolOptions.deadline`). */
  readonly deadline?: Date;
  /** The prompt the tool was offered in; it reaches the handler as `context.prompt`. */
  readonly prompt?: { readonly ns: string; readonly key: string };
}

/**
 * Tool names the OpenAI and Anthropic APIs accept. Every `Tool` name
 * (`^[a-z0-9_-]{1,64}$`) already matches, so names go out unchanged and a
 * call coming back is routed by the same name.
 */
export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tools of a source, in order. */
export function toolsOf(source: ToolSource): readonly Tool[] {
  return isToolList(source) ? source : source.tools;
}

function isToolList(source: ToolSource): source is readonly Tool[] {
  return Array.isArray(source);
}

/**
 * The name a provider API is given for a tool.
 * @throws PromptValidationError when the name does not fit the provider's rule
 *   (only possible for an object that bypassed `Tool.create`).
 */
export function providerToolName(tool: Tool, provider: string): string {
  if (!PROVIDER_TOOL_NAME_PATTERN.test(tool.name)) {
    throw new PromptValidationError(
      `tool name ${JSON.stringify(tool.name)} cannot be sent to ${provider}: ` +
        `it must match ${PROVIDER_TOOL_NAME_PATTERN.source}`,
    );
  }
  return tool.name;
}

/**
 * Runs the tool a model named, with arguments the model wrote, through
 * `invokeTool` (validation by the tool's own validator, the prompt's
 * policies for that tool, rollback, `ToolInvoked`). An unknown name is an
 * error result listing the tools.
 */
export async function invokeByName(
  source: ToolSource,
  name: string,
  args: unknown,
  options: ProviderInvokeOptions,
): Promise<ToolResult> {
  const tools = toolsOf(source);
  const tool = findTool(source, name);
  if (tool === undefined) {
    const available = listNames(tools.map((candidate) => candidate.name));
    // The name is the model's: shown only when short (a 100,000-character name came back whole).
    return ToolResult.error(`unknown tool ${describeSent(name)}; available tools: ${available}`);
  }
  const { session, signal, deadline, prompt } = options;
  return invokeTool(tool, args, {
    session,
    ...(signal === undefined ? {} : { signal }),
    ...(deadline === undefined ? {} : { deadline }),
    ...(prompt === undefined ? {} : { prompt }),
    ...policyOptions(policiesOf(source, tool), options.approval),
  });
}

/**
 * What a call adds to `invokeTool`'s options for its policies; nothing (no
 * allocation) when the tool has none, which is when an approval handler has
 * nothing to decide either.
 */
export function policyOptions(
  policies: readonly ToolPolicy[],
  approval: Approval | undefined,
): { readonly policies: readonly ToolPolicy[]; readonly approval?: Approval } | undefined {
  if (policies.length === 0) return undefined;
  return approval === undefined ? { policies } : { policies, approval };
}

/** The policies a source gives `tool` (a rendered prompt's); none for a plain list. */
export function policiesOf(source: ToolSource, tool: Tool): readonly ToolPolicy[] {
  return isToolList(source) || source.policiesFor === undefined
    ? NO_POLICIES
    : source.policiesFor(tool.name);
}

/** The fields of a `ToolResult` the model's text is made from. */
export interface ResultLike {
  readonly success: boolean;
  readonly message: string;
  readonly value: unknown;
}

/**
 * The text a model is shown for a result: the message, plus the value as
 * JSON when the message alone would hide it (a native tool's `ok(value)`
 * carries its data in `value` and says only "OK"). MCP tools' messages
 * already render their content.
 */
export function resultText(tool: Tool | undefined, result: ResultLike): string {
  if (!result.success || tool?.origin.kind === 'mcp') return result.message;
  const { value } = result;
  if (value === null || value === undefined) return result.message;
  const json = safeJson(value);
  if (json === undefined) return result.message;
  return result.message === 'OK' ? json : `${result.message}\n${json}`;
}

function safeJson(value: unknown): string | undefined {
  try {
    return typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** An image a tool returned, as base64 data with its MIME type. */
export interface ResultImage {
  readonly mimeType: string;
  /** Base64, as the MCP server sent it. */
  readonly data: string;
}

/**
 * The images among an MCP tool's content blocks, in order, for the formats
 * whose tool results can carry images (Anthropic, the Responses API,
 * LangChain). The result's text already names each image, so a format that
 * cannot carry them loses nothing but the pixels. Native tools have none.
 */
function resultImages(tool: Tool | undefined, result: ResultLike): ResultImage[] {
  if (tool?.origin.kind !== 'mcp') return [];
  const { value } = result;
  if (typeof value !== 'object' || value === null || !('content' in value)) return [];
  const content: unknown = value.content;
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) =>
    isImageBlock(block) ? [{ mimeType: block.mimeType, data: block.data }] : [],
  );
}

function isImageBlock(block: unknown): block is ResultImage & { readonly type: 'image' } {
  if (typeof block !== 'object' || block === null) return false;
  const { type, mimeType, data } = block as Record<string, unknown>;
  return type === 'image' && typeof mimeType === 'string' && typeof data === 'string';
}

/**
 * What a provider's tool-result message holds: the text alone, or a text part
 * and one part per image the provider takes (`imagePart` gives `undefined`
 * for one it does not; the text names every image either way).
 */
export function resultParts<T, I>(
  tool: Tool | undefined,
  result: ResultLike,
  textPart: (text: string) => T,
  imagePart: (image: ResultImage) => I | undefined,
): string | [T, ...I[]] {
  const text = resultText(tool, result);
  const images = resultImages(tool, result).flatMap((image) => imagePart(image) ?? []);
  return images.length === 0 ? text : [textPart(text), ...images];
}

/** The tool a call names, if the source has it. */
export function findTool(source: ToolSource, name: string): Tool | undefined {
  return toolsOf(source).find((candidate) => candidate.name === name);
}
