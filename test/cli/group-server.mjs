// A stdio MCP server for test/cli/signals.test.ts. It starts a `sleep` of
// its own (in its process group, so only a kill of the group ends it) and
// serves one tool, `wait`, that never answers. With argv[2] "stubborn" it
// ignores SIGTERM, SIGINT and SIGHUP and stays after its stdin closes: only
// SIGKILL ends it. Otherwise it exits when its stdin closes, leaving the
// `sleep` behind.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const stubborn = process.argv[2] === 'stubborn';
spawn('sleep', ['300'], { stdio: 'ignore' }).unref();
if (stubborn) {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
  setInterval(() => undefined, 1_000_000);
} else {
  process.stdin.on('end', () => process.exit(0));
}

const server = new Server({ name: 'group', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'wait', description: 'Never answers.', inputSchema: { type: 'object' } }],
}));
server.setRequestHandler(CallToolRequestSchema, () => new Promise(() => undefined));
await server.connect(new StdioServerTransport());
