import type { JsonSchema, Tool } from '../tools/tool.js';

/** A tool as an LLM API wants it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (for MCP tools, the server's own, unchanged). */
  readonly inputSchema: JsonSchema;
}

/** The text of a prompt and the tools its enabled sections offer. */
export class RenderedPrompt {
  /** @internal Created by `Prompt.render`. */
  constructor(
    readonly text: string,
    readonly tools: readonly Tool[],
  ) {
    Object.freeze(this);
  }

  /** The tools as `{ name, description, inputSchema }`, ready for an LLM API. */
  toolDefinitions(): readonly ToolDefinition[] {
    return this.tools.map((tool) =>
      Object.freeze({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }),
    );
  }
}
