/**
 * A server that echoes a call's secret argument where the library quotes
 * the server's data: in `structuredContent` that breaks its
 * `outputSchema` (the violation quotes the value), in a malformed
 * private-data marker (its reason), and in a marker's dataset name (kept
 * in the session's datasets, `SensitivityEscalated` and the store). The
 * value is masked in each, as in an error's text; a tool without secret
 * arguments keeps its data's words.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  PrivateDataMarkerMalformed,
  SensitivityEscalated,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const PASSWORD = 'Hunter2-pw-77';
const MARKER = 'mcp-sections/private-data';

type Mode = 'output_schema' | 'marker_reason' | 'marker_dataset';

/** Each tool answers with the call's `password` where its name says. */
function echoServer(): Server {
  const server = new Server({ name: 'auth', version: '1.0.0' }, { capabilities: { tools: {} } });
  const inputSchema = {
    type: 'object' as const,
    properties: { user: { type: 'string' }, password: { type: 'string' } },
  };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...(['output_schema', 'marker_reason', 'marker_dataset'] as const).map((name) => ({
        name,
        annotations: { openWorldHint: false },
        inputSchema,
        ...(name === 'output_schema'
          ? {
              outputSchema: {
                type: 'object' as const,
                properties: { status: { type: 'string', enum: ['ok', 'denied'] } },
              },
            }
          : {}),
      })),
      {
        // No secret argument: the same echo is the tool's own word.
        name: 'plain_status',
        annotations: { openWorldHint: false },
        inputSchema: { type: 'object' as const, properties: { word: { type: 'string' } } },
        outputSchema: {
          type: 'object' as const,
          properties: { status: { type: 'string', enum: ['ok'] } },
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments as { password?: string; word?: string };
    const echoed = args.password ?? args.word ?? '';
    const content = [{ type: 'text' as const, text: 'done' }];
    switch (request.params.name as Mode | 'plain_status') {
      case 'output_schema':
      case 'plain_status':
        return { content, structuredContent: { status: echoed } };
      case 'marker_reason':
        return { content, _meta: { [MARKER]: { dataset: 'x', sensitivity: echoed } } };
      case 'marker_dataset':
        return {
          content,
          _meta: { [MARKER]: { dataset: `creds-of-${echoed}`, sensitivity: 'internal' } },
        };
    }
  });
  return server;
}

/** Calls `tool` with the secret in a fresh session; returns what the caller and every event saw. */
async function callWithSecret(tool: string, args: Record<string, string>) {
  const session = new Session();
  const events: unknown[] = [];
  session.bus.subscribeAll((event) => events.push(event));
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'auth', transport: { type: 'in-memory', server: echoServer() } }],
  });
  await section.connect();
  try {
    const result = await invokeTool(toolNamed(section, `auth_${tool}`), args, { session });
    // By design ToolInvoked holds the call's arguments (params) and the server's answer as
    // data (result.value, its _meta included): every text and every other event must not.
    const shown = events.map((event) =>
      event instanceof ToolInvoked
        ? { ...event, params: undefined, result: event.result.message }
        : event,
    );
    return { result, shown: JSON.stringify(shown), session, events };
  } finally {
    await section.disconnect();
  }
}

describe('a secret argument the server echoes into data the library quotes', () => {
  it('is masked in an output-schema violation, in the result and in ToolInvoked', async () => {
    const { result, shown } = await callWithSecret('output_schema', {
      user: 'ada',
      password: PASSWORD,
    });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      'tool "output_schema" of server "auth" returned structuredContent that does not match its outputSchema: status: "status" must be one of "ok", "denied"; received "***"',
    );
    expect(shown).not.toContain(PASSWORD);
  });

  it('is masked in a malformed marker’s reason', async () => {
    const { shown, events, session } = await callWithSecret('marker_reason', {
      user: 'ada',
      password: PASSWORD,
    });
    const malformed = events.find((event) => event instanceof PrivateDataMarkerMalformed);
    expect(malformed?.reason).toContain('***');
    expect(shown).not.toContain(PASSWORD);
    expect(session.privateData.hasPrivateData).toBe(true);
  });

  it('is masked in a marker’s dataset name, wherever the name is kept', async () => {
    const { shown, events, session } = await callWithSecret('marker_dataset', {
      user: 'ada',
      password: PASSWORD,
    });
    expect([...session.privateData.datasets.keys()]).toEqual(['creds-of-***']);
    const escalated = events.find((event) => event instanceof SensitivityEscalated);
    expect(escalated?.dataset).toBe('creds-of-***');
    expect(shown).not.toContain(PASSWORD);
  });

  it('is left as it is when no argument is secret', async () => {
    const { result } = await callWithSecret('plain_status', { word: PASSWORD });
    expect(result.message).toMatch(/received "Hunter2-pw-77"$/);
  });
});
