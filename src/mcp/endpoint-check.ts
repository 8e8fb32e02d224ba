import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJsonText } from '../core/json.js';
import { SCHEMA_TEXT_LIMITS } from './schema/json.js';

/**
 * How an isolated deployment's tools differ from the normal one's (names
 * missing or extra, input schemas changed), or undefined when they are the
 * same server as far as calls can tell. A schema that cannot be written
 * as JSON within the schema bounds counts as changed: unchecked, it could
 * be anything.
 */
export function compareToolLists(
  normal: readonly McpToolDescription[],
  isolated: readonly McpToolDescription[],
): string | undefined {
  const index = new Map(isolated.map((tool) => [tool.name, schemaText(tool)]));
  const missing: string[] = [];
  const changed: string[] = [];
  for (const tool of normal) {
    if (!index.has(tool.name)) missing.push(tool.name);
    else {
      const other = index.get(tool.name);
      if (other === undefined || other !== schemaText(tool)) changed.push(tool.name);
    }
    index.delete(tool.name);
  }
  const extra = [...index.keys()];
  const parts = [
    missing.length > 0 ? `missing ${missing.join(', ')}` : '',
    extra.length > 0 ? `extra ${extra.join(', ')}` : '',
    changed.length > 0 ? `different input schema for ${changed.join(', ')}` : '',
  ].filter((part) => part.length > 0);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** The tool's input schema as canonical JSON text, or undefined past the schema bounds or not JSON. */
function schemaText(tool: McpToolDescription): string | undefined {
  try {
    return canonicalJsonText(tool.inputSchema, SCHEMA_TEXT_LIMITS);
  } catch {
    return undefined;
  }
}
