/**
 * Which tools a built-in policy governs. A name matches a tool by the name
 * the model is offered (`fs_write_file`) or, for an MCP tool, by its name on
 * its server (`write_file`), so one policy can cover a server's tool under
 * any prefix.
 */
import { PromptValidationError } from '../../core/errors.js';
import type { Tool } from '../tool.js';

/** Tool names (offered or MCP wire names), or a predicate. */
export type ToolSelector = readonly string[] | ((tool: Tool) => boolean);

/** True when `tool` is called `name`, offered or on its MCP server. */
export function toolIsNamed(tool: Tool, names: ReadonlySet<string>): boolean {
  if (names.has(tool.name)) return true;
  const { origin } = tool;
  return origin.kind === 'mcp' && names.has(origin.originalName);
}

/**
 * A predicate for `selector`; every tool when it is undefined.
 * @throws PromptValidationError naming `owner` for a list with a bad entry.
 */
export function toolMatcher(
  selector: ToolSelector | undefined,
  owner: string,
): (tool: Tool) => boolean {
  if (selector === undefined) return () => true;
  if (typeof selector === 'function') return selector;
  if (!Array.isArray(selector)) {
    throw new PromptValidationError(
      `${owner} must be an array of tool names or a function of the tool, received ${describe(selector)}`,
    );
  }
  const names = toolNameSet(selector, owner);
  return (tool) => toolIsNamed(tool, names);
}

/**
 * The names of a list, checked: an array of non-empty strings.
 * @throws PromptValidationError naming `owner` and the bad entry.
 */
export function toolNameSet(
  names: unknown,
  owner: string,
  noun = 'tool name',
): ReadonlySet<string> {
  if (!Array.isArray(names)) {
    throw new PromptValidationError(
      `${owner} must be an array of ${noun}s, received ${describe(names)}`,
    );
  }
  names.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || name.trim().length === 0) {
      throw new PromptValidationError(
        `${owner}[${index}] must be a ${noun} (a non-empty string), received ${JSON.stringify(name)}`,
      );
    }
  });
  return new Set(names as string[]);
}

function describe(value: unknown): string {
  return value === null ? 'null' : typeof value;
}
