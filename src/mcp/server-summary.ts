import { fillTemplate, type TemplatePart } from '../prompt/template-text.js';
import type { InventoryServer } from './inventory.js';

/** Placeholders a custom summary of an `McpIntegrationSection` may use. */
export const MCP_SUMMARY_PLACEHOLDERS: readonly string[] = Object.freeze([
  'server_names',
  'tool_count',
  'server_summaries',
]);

/** The text that opens the default summary. */
export const SUMMARY_INTRO = 'These MCP servers are connected; their tools are not loaded yet:';

/**
 * One line per summarized server: the key that opens it, its name and its
 * tool count, e.g. ``- `mcp.integrations.github` - github: 30 tools``.
 */
export function renderServerSummaries(servers: readonly InventoryServer[], path: string): string {
  return servers
    .map((server) => {
      const count = server.tools.length;
      return `- \`${path}.${server.name}\` - ${server.name}: ${count} ${count === 1 ? 'tool' : 'tools'}`;
    })
    .join('\n');
}

/**
 * The summary of the servers not opened: the default intro and one line
 * per server, or a custom template filled with `${server_names}`,
 * `${tool_count}` and `${server_summaries}` (of those servers).
 */
export function renderSummaryPart(
  closed: readonly InventoryServer[],
  path: string,
  template: readonly TemplatePart[] | undefined,
): string {
  if (closed.length === 0) return '';
  const summaries = renderServerSummaries(closed, path);
  if (template === undefined) return `${SUMMARY_INTRO}\n\n${summaries}`;
  return fillTemplate(
    template,
    {
      server_names: closed.map((server) => server.name).join(', '),
      tool_count: closed.reduce((count, server) => count + server.tools.length, 0),
      server_summaries: summaries,
    },
    `summary of section "${path}"`,
  );
}
