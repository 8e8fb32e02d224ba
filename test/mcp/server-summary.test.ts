/** The summary lines of an McpIntegrationSection: one per server, its key and tool count. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Tool, ToolResult } from '../../src/index.js';
import {
  SUMMARY_INTRO,
  renderServerSummaries,
  renderSummaryPart,
} from '../../src/mcp/server-summary.js';
import { parseTemplate } from '../../src/prompt/template-text.js';

function tools(count: number): Tool[] {
  return Array.from({ length: count }, (_, index) =>
    Tool.create({
      name: `t${index}`,
      description: 'A tool',
      params: z.object({}),
      handler: () => ToolResult.ok(null),
    }),
  );
}

const servers = [
  { name: 'github', tools: tools(30) },
  { name: 'clock', tools: tools(1) },
  { name: 'empty', tools: [] },
];

describe('server summaries', () => {
  it('give one line per server: key, name, tool count', () => {
    expect(renderServerSummaries(servers, 'tools.mcp')).toBe(
      [
        '- `tools.mcp.github` - github: 30 tools',
        '- `tools.mcp.clock` - clock: 1 tool',
        '- `tools.mcp.empty` - empty: 0 tools',
      ].join('\n'),
    );
  });

  it('open with the default intro, or fill a custom template; nothing when every server is open', () => {
    expect(renderSummaryPart(servers.slice(1, 2), 'mcp', undefined)).toBe(
      `${SUMMARY_INTRO}\n\n- \`mcp.clock\` - clock: 1 tool`,
    );
    const template = parseTemplate('${tool_count} tools on ${server_names}', 'test');
    expect(renderSummaryPart(servers, 'mcp', template)).toBe('31 tools on github, clock, empty');
    expect(renderSummaryPart([], 'mcp', undefined)).toBe('');
  });
});
