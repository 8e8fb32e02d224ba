/**
 * Several MCP servers in one section: two reference servers over stdio, one
 * in-process server, and one that cannot start — reported to the model as
 * unavailable while the others keep working.
 *
 *   npx tsx examples/multi-server.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  McpIntegrationSection,
  McpServerUnavailable,
  Prompt,
  PromptTemplate,
  Session,
} from '../src/index.js';
import { referenceServerScript } from './reference-servers.js';

// An in-process server: handy for tools that live in the same program.
const clock = new McpServer({ name: 'clock', version: '1.0.0' });
clock.registerTool(
  'now',
  {
    description: 'Returns the current time as ISO 8601',
    inputSchema: { timezone: z.string().optional() },
  },
  () => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
);

const memoryDir = await mkdtemp(join(tmpdir(), 'mcp-sections-memory-'));
const session = new Session();
session.bus.subscribe(McpServerUnavailable, (event) =>
  console.log(`[event] ${event.serverName} unavailable: ${event.reason}`),
);

const section = new McpIntegrationSection({
  session,
  onConnectError: 'report',
  servers: [
    {
      name: 'everything',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [referenceServerScript('@modelcontextprotocol/server-everything'), 'stdio'],
      },
      enabledTools: ['echo', 'get-sum'],
    },
    {
      name: 'memory',
      toolPrefix: 'kg',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: [referenceServerScript('@modelcontextprotocol/server-memory')],
      },
      env: { MEMORY_FILE_PATH: join(memoryDir, 'memory.jsonl') },
      disabledTools: ['delete_entities', 'delete_observations', 'delete_relations'],
    },
    { name: 'clock', transport: { type: 'in-memory', server: clock } },
    // Exits at once: listed as unavailable, the rest still work.
    {
      name: 'broken',
      transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
    },
  ],
});

try {
  await section.connect();
  const template = PromptTemplate.create({ ns: 'demo', key: 'multi', sections: [section] });
  console.log(new Prompt(template).render({ session }).text);

  const created = await section.execute({
    name: 'memory.create_entities',
    arguments: {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    },
  });
  console.log(`\nmemory.create_entities → ${created.success ? 'ok' : 'error'}: ${created.message}`);
  const time = await section.execute({ name: 'clock__now', arguments: '' });
  console.log(`clock.now → ${time.message}`);
} finally {
  await section.disconnect();
  await rm(memoryDir, { recursive: true, force: true });
}
