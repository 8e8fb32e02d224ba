/**
 * A call's secret arguments (named like a secret, `writeOnly`, `x-secret`,
 * or a key of an open map) are masked in the error results it gets: the
 * validator's `received "…"`, a server's error result that echoes the
 * arguments, and a JSON-RPC error that does. Error results reach events,
 * telemetry and traces. Other arguments are quoted as before.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpIntegrationSection, Session, ToolInvoked } from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const SECRET = 'sk-live-TOPSECRET-123456';

/** `login` answers with an error result echoing its arguments; `reject` with a JSON-RPC error. */
function echoingServer(): Server {
  const server = new Server({ name: 'auth', version: '1.0.0' }, { capabilities: { tools: {} } });
  const properties = {
    user: { type: 'string', maxLength: 3 },
    password: { type: 'string', maxLength: 5 },
    token: { type: 'string', enum: ['a', 'b'] },
    key: { type: 'string', writeOnly: true, minLength: 100 },
    headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 4 } },
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ['login', 'reject'].map((name) => ({
      name,
      annotations: { openWorldHint: false },
      inputSchema: { type: 'object' as const, properties },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const echoed = JSON.stringify(request.params.arguments);
    if (request.params.name === 'reject') {
      throw new McpError(ErrorCode.InvalidParams, `bad credentials ${echoed}`);
    }
    return { isError: true, content: [{ type: 'text', text: `bad credentials ${echoed}` }] };
  });
  return server;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connected(session: Session): Promise<McpIntegrationSection> {
  const section = new McpIntegrationSection({
    servers: [{ name: 'auth', transport: { type: 'in-memory', server: echoingServer() } }],
    session,
  });
  sections.push(section);
  await section.connect();
  return section;
}

describe('secret arguments in error results', () => {
  it('are not quoted by the validator, whatever keyword refused them', async () => {
    const session = new Session();
    const section = await connected(session);
    const published: string[] = [];
    session.bus.subscribe(ToolInvoked, (event) => published.push(event.result.message));
    for (const args of [
      { password: SECRET },
      { token: SECRET },
      { key: SECRET },
      { headers: { Authorization: SECRET } },
    ]) {
      const result = await invokeTool(toolNamed(section, 'auth_login'), args, { session });
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^invalid arguments for tool "auth_login"/);
      expect(result.message).not.toContain(SECRET);
      expect(result.message).not.toContain(SECRET.slice(0, 16));
    }
    expect(published).toHaveLength(4);
    expect(published.join('\n')).not.toContain(SECRET.slice(0, 16));
  });

  it('are masked where the server echoes them, in an error result or a JSON-RPC error', async () => {
    const session = new Session();
    const section = await connected(session);
    for (const name of ['auth_login', 'auth_reject']) {
      const result = await invokeTool(
        toolNamed(section, name),
        { user: 'ada', password: 'hu2!x' },
        { session },
      );
      expect(result.success).toBe(false);
      expect(result.message).toContain('bad credentials');
      expect(result.message).toContain('"user":"ada"');
      expect(result.message).not.toContain('hu2!x');
    }
  });

  it('leave the other arguments quoted', async () => {
    const session = new Session();
    const section = await connected(session);
    const result = await invokeTool(
      toolNamed(section, 'auth_login'),
      { user: 'alice' },
      { session },
    );
    expect(result.message).toContain('received "alice"');
  });
});
