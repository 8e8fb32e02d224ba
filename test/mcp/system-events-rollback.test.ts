/**
 * What a server says while a call runs (its log messages, a reconnect, a
 * changed tool list) is not the call's write: a reducer that records it
 * keeps it when the call fails and its own writes are undone.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpServerLog, McpToolsChanged } from '../../src/index.js';
import { observedSection, toolNamed } from '../support/mcp-fixtures.js';

const sections: { disconnect(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

/** A server whose `fail` tool logs, adds a tool (announcing the change), then fails. */
function failingServer(): McpServer {
  const server = new McpServer(
    { name: 'noisy', version: '1.0.0' },
    { capabilities: { logging: {}, tools: { listChanged: true } } },
  );
  server.registerTool(
    'fail',
    { description: 'Fails', annotations: { openWorldHint: false } },
    async (extra) => {
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'error', data: 'disk full' },
      });
      server.registerTool('later', { description: 'Added while a call ran' }, () => ({
        content: [],
      }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { isError: true, content: [{ type: 'text', text: 'it failed' }] };
    },
  );
  return server;
}

describe('a failed call and what its server said meanwhile', () => {
  it('keeps the log and the tool-list change a reducer recorded while the call ran', async () => {
    const { session, section } = observedSection([
      { name: 'noisy', transport: { type: 'in-memory', server: failingServer() } },
    ]);
    sections.push(section);
    const heard = session.slice('heard', { initial: [] as string[] });
    heard.on(McpServerLog, (draft, event) => {
      draft.push(`log: ${event.message}`);
    });
    heard.on(McpToolsChanged, (draft, event) => {
      draft.push(`tools: +${event.added.join(',')}`);
    });
    await section.connect();
    const result = await invokeTool(toolNamed(section, 'noisy_fail'), {}, { session });
    expect(result).toMatchObject({ success: false, message: 'it failed' });
    expect(heard.get()).toEqual(['log: disk full', 'tools: +noisy_later']);
  });
});
