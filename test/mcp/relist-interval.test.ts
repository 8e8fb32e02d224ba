/**
 * A server that announces tool changes without end, each listing different:
 * it is listed again at most once a second, so the client neither
 * re-bridges nor publishes `McpToolsChanged` as fast as the server can
 * answer, and it still ends with the server's latest tools.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpToolsChanged } from '../../src/index.js';
import { MIN_RELIST_INTERVAL_MS } from '../../src/mcp/server-connection.js';
import { observedSection } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

describe('tools/list_changed without end', () => {
  it('lists again at most once a second, and ends with the latest tools', async () => {
    const server = new Server(
      { name: 'restless', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    let version = 0;
    let listings = 0;
    server.setRequestHandler(ListToolsRequestSchema, () => {
      listings += 1;
      return {
        tools: [{ name: `tool_v${String(version)}`, inputSchema: { type: 'object' as const } }],
      };
    });
    const { events, section } = observedSection([
      { name: 'restless', transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      expect(listings).toBe(1);
      const started = performance.now();
      for (let i = 0; i < 200; i += 1) {
        version += 1;
        await server.sendToolListChanged();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const seconds = (performance.now() - started) / 1_000;
      await waitFor(
        () => section.tools().some((tool) => tool.name === `restless_tool_v${String(version)}`),
        { timeoutMs: 5_000, description: 'the latest listing to be bridged' },
      );
      // One listing at once, then at most one a second, and the last one after the flood.
      const most = 2 + Math.ceil((seconds * 1_000) / MIN_RELIST_INTERVAL_MS);
      expect(listings - 1).toBeLessThanOrEqual(most);
      expect(events.of(McpToolsChanged).length).toBeLessThanOrEqual(most);
    } finally {
      await section.disconnect();
    }
  });
});
