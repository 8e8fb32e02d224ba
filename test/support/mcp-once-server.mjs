// A stdio MCP server that starts only once: it creates the marker file named
// by ONCE_MARKER on its first start, and a later start (a reconnection after
// a crash) finds the marker, says so on stderr and exits 1. Tools: `ping`.
/* global process, console */
import { existsSync, writeFileSync } from 'node:fs';

const marker = process.env.ONCE_MARKER;
if (marker === undefined || marker === '') {
  console.error('ONCE_MARKER is not set');
  process.exit(2);
}
if (existsSync(marker)) {
  console.error(`refusing to start twice (marker ${marker} exists)`);
  process.exit(1);
}
writeFileSync(marker, String(process.pid));

// Loaded only now, so that a refused start exits without loading the SDK.
const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } =
  await import('@modelcontextprotocol/sdk/types.js');

const server = new Server({ name: 'once', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'ping', description: 'Answers pong', inputSchema: { type: 'object' } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({
  content: [{ type: 'text', text: 'pong' }],
}));
await server.connect(new StdioServerTransport());
