/**
 * The connection pool in `context.resources` is a path to a server like
 * any other: after escalation its calls go to the isolated instance, and
 * tools the ratchet blocks never reach a server.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool as WireTool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionPool, McpIntegrationSection, Session, ToolInvoked } from '../../src/index.js';
import { collect } from '../fixtures/isolation/helpers.js';

const TOOLS: readonly WireTool[] = [
  { name: 'read', inputSchema: { type: 'object' } },
  { name: 'send', inputSchema: { type: 'object' }, annotations: { openWorldHint: true } },
];

/** A server that records which instance ran which tool. */
function instance(label: string, calls: string[]): Server {
  const server = new Server({ name: label, version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    calls.push(`${label}:${request.params.name}`);
    return { content: [{ type: 'text', text: `${label} ran ${request.params.name}` }] };
  });
  return server;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function setup(): Promise<{ session: Session; pool: McpConnectionPool; calls: string[] }> {
  const calls: string[] = [];
  const session = new Session();
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'web',
        transport: { type: 'in-memory', server: instance('normal', calls) },
        isolation: { transport: { type: 'in-memory', server: instance('isolated', calls) } },
      },
      { name: 'plain', transport: { type: 'in-memory', server: instance('plain', calls) } },
    ],
  });
  sections.push(section);
  await section.connect();
  return { session, pool: session.resources.require(McpConnectionPool), calls };
}

describe('McpConnectionPool.callTool and the ratchet', () => {
  it('reaches the normal instance before escalation', async () => {
    const { pool, calls, session } = await setup();
    const invoked = collect(session, ToolInvoked);
    const result = await pool.callTool('web', 'read', {});
    expect(result).toEqual({ content: [{ type: 'text', text: 'normal ran read' }] });
    expect(calls).toEqual(['normal:read']);
    expect(invoked).toHaveLength(1);
    expect(invoked[0]).toMatchObject({ mcpServer: 'web', originalName: 'read', source: 'mcp' });
  });

  it('after escalation reaches the isolated instance and refuses a connect tool', async () => {
    const { pool, calls, session } = await setup();
    session.privateData.add('customer-records', 'confidential');

    expect(await pool.callTool('web', 'read', {})).toEqual({
      content: [{ type: 'text', text: 'isolated ran read' }],
    });
    const refused = await pool.callTool('web', 'send', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('"connect" permission');
    expect(calls).toEqual(['isolated:read']);
  });

  it('refuses an unannotated tool of a server without isolation, without reaching it', async () => {
    const { pool, calls, session } = await setup();
    session.privateData.add('customer-records', 'internal');
    const refused = await pool.callTool('plain', 'read', {});
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('not declared closed-world');
    expect(calls).toEqual([]);
  });

  it('says which tools a server has when asked for one it lacks', async () => {
    const { pool } = await setup();
    const result = await pool.callTool('web', 'missing', {});
    expect(result).toEqual({
      isError: true,
      content: [
        { type: 'text', text: 'server "web" has no tool "missing"; its tools: read, send' },
      ],
    });
  });
});
