import type { z } from 'zod';
import { NO_POLICIES, type ToolPolicy } from '../tools/policy/tool-policy.js';
import type { JsonSchema, Tool } from '../tools/tool.js';
import type { ToolPolicyMap } from './tool-policies.js';

/** A tool as an LLM API wants it. */
export interface ToolDefinition {
  readonly name: string;
  /** The whole description (an MCP server's own, on one line). */
  readonly description: string;
  /** A display name, when the tool has one (MCP `title`). */
  readonly title?: string;
  /** JSON Schema of the arguments (for MCP tools, the server's own, unchanged). */
  readonly inputSchema: JsonSchema;
}

/** The text of a prompt, the tools its enabled sections offer, and its declared output. */
export class RenderedPrompt<O = unknown> {
  readonly #policies: ToolPolicyMap | undefined;

  /** @internal Created by `Prompt.render`. */
  constructor(
    readonly text: string,
    readonly tools: readonly Tool[],
    /** The template's declared output (see `parseOutput`), if any. */
    readonly output?: { readonly schema: z.ZodType<O>; readonly jsonSchema: JsonSchema },
    policies?: ToolPolicyMap,
  ) {
    this.#policies = policies;
    Object.freeze(this);
  }

  /**
   * The policies that govern calls of the tool `toolName`: its section's,
   * then the template's; none for a name the prompt does not offer. The
   * provider helpers (`invokeByName`, `invokeFromOpenAI`, `toAiSdkTools`, …)
   * pass them to `invokeTool`. See docs/policies.md.
   */
  policiesFor(toolName: string): readonly ToolPolicy[] {
    return this.#policies?.get(toolName) ?? NO_POLICIES;
  }

  /** The JSON Schema of the declared output, for a provider's structured-output parameter. */
  get outputSchema(): JsonSchema | undefined {
    return this.output?.jsonSchema;
  }

  /** The tools as `{ name, description, inputSchema }`, ready for an LLM API. */
  toolDefinitions(): readonly ToolDefinition[] {
    let definitions = listDefinitions.get(this.tools);
    if (definitions === undefined) {
      definitions = Object.freeze(this.tools.map(definitionOf));
      listDefinitions.set(this.tools, definitions);
    }
    return definitions;
  }
}

// A tool is frozen, and `Prompt.render` hands out the same frozen tool list while
// the tools do not change: both are safe keys, and an unchanged prompt's
// definitions are built once.
const toolDefinitions = new WeakMap<Tool, ToolDefinition>();
const listDefinitions = new WeakMap<readonly Tool[], readonly ToolDefinition[]>();

function definitionOf(tool: Tool): ToolDefinition {
  let definition = toolDefinitions.get(tool);
  if (definition === undefined) {
    const title = tool.annotations.title;
    definition = Object.freeze({
      name: tool.name,
      description: tool.description,
      ...(title === undefined ? {} : { title }),
      inputSchema: tool.inputSchema,
    });
    toolDefinitions.set(tool, definition);
  }
  return definition;
}
