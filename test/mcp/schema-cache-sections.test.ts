import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpIntegrationSection, Session, invokeTool } from '../../src/index.js';
import { clearSchemaCache, schemaCacheStats } from '../../src/mcp/schema/index.js';

/** A server whose `lookup` tool has a schema worth converting. */
function lookupServer(): McpServer {
  const server = new McpServer({ name: 'crm', version: '1.0.0' });
  server.registerTool(
    'lookup',
    {
      description: 'Looks up customers',
      inputSchema: {
        query: z.string().min(1),
        filters: z.array(z.object({ field: z.enum(['city', 'tier']), value: z.string() })),
      },
    },
    ({ query }) => ({ content: [{ type: 'text', text: `found ${query}` }] }),
  );
  return server;
}

async function callLookup(section: McpIntegrationSection, session: Session): Promise<boolean> {
  const tool = section.tools().find((candidate) => candidate.name.endsWith('_lookup'));
  if (tool === undefined) throw new Error('no lookup tool');
  const result = await invokeTool(
    tool,
    { query: 'Ada', filters: [{ field: 'city', value: 'Oslo' }] },
    { session },
  );
  return result.success;
}

/** Validators built: every cache miss analyses a schema and builds one. */
const conversions = (): number => schemaCacheStats().misses;

describe('validators are converted once per schema, across sections and reconnects', () => {
  beforeEach(() => clearSchemaCache());

  it('a second section with the same tool schema, and a reconnect, convert nothing again', async () => {
    const session = new Session();
    // Two servers under different names: two connections, two listings, two bridged tools.
    await using first = new McpIntegrationSection({
      key: 'mcp.first',
      session,
      servers: [{ name: 'crm', transport: { type: 'in-memory', server: lookupServer() } }],
    });
    await using second = new McpIntegrationSection({
      key: 'mcp.second',
      session,
      servers: [{ name: 'crm2', transport: { type: 'in-memory', server: lookupServer() } }],
    });
    await Promise.all([first.connect(), second.connect()]);

    expect(conversions()).toBe(0); // nothing is converted at connect
    expect(await callLookup(first, session)).toBe(true);
    expect(conversions()).toBe(1);
    expect(await callLookup(second, session)).toBe(true);
    expect(conversions()).toBe(1);

    await second.disconnect();
    await second.connect(); // a fresh listing: new schema objects, same content
    expect(await callLookup(second, session)).toBe(true);
    expect(conversions()).toBe(1);
    expect(schemaCacheStats().hits).toBeGreaterThanOrEqual(2);
  });
});
