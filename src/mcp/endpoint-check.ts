import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJsonText } from '../core/json.js';

/**
 * How an isolated deployment's tools differ from the normal one's (names
 * missing or extra, input schemas changed), or undefined when they are the
 * same server as far as calls can tell.
 */
export function compareToolLists(
  normal: readonly McpToolDescription[],
  isolated: readonly McpToolDescription[],
): string | undefined {
  const index = new Map(isolated.map((tool) => [tool.name, canonicalJsonText(tool.inputSchema)]));
  const missing: string[] = [];
  const changed: string[] = [];
  for (const tool of normal) {
    const other = index.get(tool.name);
    if (other === undefined) missing.push(tool.name);
    else if (other !== canonicalJsonText(tool.inputSchema)) changed.push(tool.name);
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
