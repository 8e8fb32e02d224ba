/**
 * Over stdio the SDK reads no line past 10 MB: it reports an error and
 * closes the transport. The connection's reason says so (it said only that
 * the connection was lost), and it reconnects.
 */
import { describe, expect, it } from 'vitest';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  invokeTool,
  McpIntegrationSection,
  McpServerDisconnected,
  Session,
} from '../../src/index.js';
import { handWrittenServer } from '../support/hand-written-server.js';
import { recordEvents, toolNamed } from '../support/mcp-fixtures.js';

/** A JSON-RPC stdio server by hand, with a `flood` tool whose answer passes the limit. */
const SERVER = handWrittenServer({
  name: 'big',
  toolsList: `send({ jsonrpc: '2.0', id: message.id, result: { tools: [
      { name: 'flood', inputSchema: { type: 'object' }, annotations: { openWorldHint: false } }] } });`,
  toolsCall: `
    const chunk = 'a'.repeat(1024 * 1024);
    process.stdout.write('{"jsonrpc":"2.0","id":' + message.id + ',"result":{"content":[{"type":"text","text":"');
    let left = ${String((2 * STDIO_DEFAULT_MAX_BUFFER_SIZE) / (1024 * 1024))};
    const more = () => { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) return process.stdout.once('drain', more); } };
    more();`,
});

describe('the stdio message limit', () => {
  it('ends the connection at a line past the limit, saying why', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'big',
          timeoutMs: 20_000,
          transport: { type: 'stdio', command: process.execPath, args: ['-e', SERVER] },
        },
      ],
    });
    try {
      await section.connect();
      const flood = toolNamed(section, 'big_flood');
      const result = await invokeTool(flood, {}, { session });
      expect(result.success).toBe(false);
      const [lost] = events.of(McpServerDisconnected);
      expect(lost?.reason).toContain(`a line of more than ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
    } finally {
      await section.disconnect();
    }
  }, 60_000);
});
