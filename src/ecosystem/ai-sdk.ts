/**
 * Vercel AI SDK tools (`ai` 5 or 6). The model is given each tool's original
 * JSON Schema through `jsonSchema()` with no validator of the SDK's own, so
 * the arguments reach `execute` as the model wrote them and are validated by
 * the tool's validator through `invokeTool`.
 *
 * `ai` is loaded when {@link toAiSdkTools} is first called, not when this
 * library is imported, so applications that do not use the AI SDK need not
 * install it.
 */
import type * as Ai from 'ai';
import type { JSONSchema7, Tool as AiTool, ToolExecutionOptions } from 'ai';
import type { Session } from '../runtime/session.js';
import { invokeTool } from '../tools/invoke-tool.js';
import type { Approval } from '../tools/policy/approval.js';
import type { ToolPolicy } from '../tools/policy/tool-policy.js';
import type { Tool } from '../tools/tool.js';
import { anySignal } from './any-signal.js';
import { policiesOf, policyOptions, resultText, toolsOf, type ToolSource } from './tool-source.js';

/** What `execute` returns: the `ToolResult` as a plain object. */
export interface AiSdkToolOutput {
  readonly success: boolean;
  /** What the model is told (for MCP tools, the text of the content). */
  readonly message: string;
  /** The result's value (for MCP tools, `content` and `structuredContent`). */
  readonly value: unknown;
}

/** An AI SDK tool made from one of ours. */
export type AiSdkTool = AiTool<Record<string, unknown>, AiSdkToolOutput>;

/** Options of {@link toAiSdkTools}. */
export interface ToAiSdkToolsOptions {
  /** The session calls belong to (validation, rollback, `ToolInvoked`). */
  readonly session: Session;
  /** Cancels every call, together with the SDK's own `abortSignal`. */
  readonly signal?: AbortSignal;
  /** Decides the calls a policy of the prompt asks about; without it an `ask` denies. @default none */
  readonly approval?: Approval;
}

/**
 * The tools of a rendered prompt as an AI SDK `ToolSet`, keyed by tool name.
 *
 * Each `execute(args, { abortSignal })` runs `invokeTool` (with the
 * prompt's policies for that tool, when `source` is a rendered prompt) and returns
 * `{ success, message, value }`; expected failures (bad arguments, a tool
 * error) are returned, not thrown, and the model sees them as `error-text`.
 * The model sees a success as its message (with the value as JSON when the
 * message alone would hide it). A `[FATAL] ` failure throws
 * `McpFatalToolError`, which the SDK reports as a tool error.
 *
 * @throws Error when the `ai` package cannot be loaded.
 * @example
 * const result = await generateText({
 *   model, prompt: rendered.text, tools: await toAiSdkTools(rendered, { session }),
 *   stopWhen: stepCountIs(5),
 * });
 */
export async function toAiSdkTools(
  source: ToolSource,
  options: ToAiSdkToolsOptions,
): Promise<Record<string, AiSdkTool>> {
  const ai = await loadAi('toAiSdkTools');
  const entries = toolsOf(source).map((tool): [string, AiSdkTool] => [
    tool.name,
    ai.tool<Record<string, unknown>, AiSdkToolOutput>({
      description: tool.description,
      // No `validate`: the SDK passes the model's input through, and ours checks it.
      inputSchema: ai.jsonSchema<Record<string, unknown>>(tool.inputSchema as JSONSchema7),
      execute: (args, execution) =>
        execute(tool, policiesOf(source, tool), args, execution, options),
      toModelOutput: ({ output }) =>
        output.success
          ? { type: 'text', value: resultText(tool, output) }
          : { type: 'error-text', value: output.message },
    }),
  ]);
  // fromEntries defines own properties, so a tool named `__proto__` stays a tool.
  return Object.fromEntries(entries);
}

async function execute(
  tool: Tool,
  policies: readonly ToolPolicy[],
  args: unknown,
  execution: ToolExecutionOptions,
  options: ToAiSdkToolsOptions,
): Promise<AiSdkToolOutput> {
  const combined = anySignal([options.signal, execution.abortSignal]);
  try {
    const result = await invokeTool(tool, args, {
      session: options.session,
      ...(combined.signal === undefined ? {} : { signal: combined.signal }),
      ...policyOptions(policies, options.approval),
    });
    return { success: result.success, message: result.message, value: result.value };
  } finally {
    combined.dispose();
  }
}

let aiModule: Promise<typeof Ai> | undefined;

/**
 * @internal The `ai` package, imported on first use; `feature` names what
 * needs it in the error when it is not installed.
 * @throws Error when the `ai` package cannot be loaded.
 */
export async function loadAi(feature: string): Promise<typeof Ai> {
  aiModule ??= import('ai');
  try {
    return await aiModule;
  } catch (error) {
    aiModule = undefined;
    throw new Error(`${feature} needs the Vercel AI SDK; install it with \`npm install ai\``, {
      cause: error,
    });
  }
}
