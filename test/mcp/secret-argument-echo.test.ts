/**
 * A server that echoes a call's secret arguments (named like a secret, or
 * marked `x-secret`) in its progress messages and its log: the values are
 * masked in `McpToolProgress.message` and in `McpServerLog` (message and
 * logger) while the call is in flight, also through a section that shares
 * the connection, and in the stderr a stdio server wrote as it failed over
 * them (the disconnect's reason). A tool without secret arguments is left
 * alone.
 */
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpIntegrationSection,
  McpServerDisconnected,
  McpServerLog,
  McpToolProgress,
  Session,
  type McpServerConfig,
} from '../../src/index.js';
import { recordEvents, toolNamed } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

const PASSWORD = 'hunter2-Xyz';
const PIN = '90210-77';
const NESTED = 'nested-key-4242';

/** A server whose tools echo every argument in a progress report and a log message. */
function echoServer(): Server {
  const server = new Server(
    { name: 'auth', version: '1.0.0' },
    { capabilities: { tools: {}, logging: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'login',
        annotations: { openWorldHint: false },
        inputSchema: {
          type: 'object',
          properties: {
            user: { type: 'string' },
            password: { type: 'string' },
            pin: { type: 'string', 'x-secret': true },
            options: {
              type: 'object',
              properties: { key: { type: 'string', writeOnly: true } },
            },
          },
        },
      },
      {
        name: 'greet',
        annotations: { openWorldHint: false },
        inputSchema: { type: 'object', properties: { user: { type: 'string' } } },
      },
      {
        // An open map: the schema names no secret, the call's key does.
        name: 'fetch',
        annotations: { openWorldHint: false },
        inputSchema: {
          type: 'object',
          properties: {
            url: { type: 'string' },
            headers: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const echoed = JSON.stringify(request.params.arguments);
    await server.sendLoggingMessage({ level: 'info', logger: `as ${echoed}`, data: echoed });
    await server.sendLoggingMessage({ level: 'info', data: { args: request.params.arguments } });
    const token = request.params._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, message: `checking ${echoed}` },
      });
    }
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  return server;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section[Symbol.asyncDispose]()));
});

async function connected(session: Session, servers: McpServerConfig[]) {
  const section = new McpIntegrationSection({ servers, session, serverLogLevel: 'debug' });
  sections.push(section);
  await section.connect();
  return section;
}

/** Log messages arrive on their own: wait until `count` of them have. */
async function logsSeen(events: ReturnType<typeof recordEvents>, count: number): Promise<void> {
  for (let i = 0; i < 100 && events.of(McpServerLog).length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('secret arguments a server echoes', () => {
  it('are masked when a key of an open map names them, though the schema does not', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const section = await connected(session, [
      { name: 'auth', transport: { type: 'in-memory', server: echoServer() } },
    ]);
    const token = 'Bearer sk-ABCDEF123456';
    const result = await invokeTool(
      toolNamed(section, 'auth_fetch'),
      { url: 'https://api.example/v1', headers: { Authorization: token } },
      { session },
    );
    expect(result.success).toBe(true);
    await logsSeen(events, 2);
    const published = JSON.stringify(events.of(McpServerLog));
    expect(published).toContain('https://api.example/v1');
    expect(published).not.toContain('sk-ABCDEF123456');
  });

  it('are masked in its progress messages and log messages, by name, x-secret and writeOnly', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const section = await connected(session, [
      { name: 'auth', transport: { type: 'in-memory', server: echoServer() } },
    ]);
    const result = await invokeTool(
      toolNamed(section, 'auth_login'),
      { user: 'ada', password: PASSWORD, pin: PIN, options: { key: NESTED } },
      { session },
    );
    expect(result.success).toBe(true);
    await logsSeen(events, 2);
    const progress = events.of(McpToolProgress);
    const logs = events.of(McpServerLog);
    expect(progress).toHaveLength(1);
    expect(logs).toHaveLength(2);
    const published = JSON.stringify([...progress, ...logs]);
    for (const secret of [PASSWORD, PIN, NESTED]) expect(published).not.toContain(secret);
    // The rest of the text is kept: only the secret values are masked.
    expect(progress[0]!.message).toBe(
      'checking {"user":"ada","password":"***","pin":"***","options":{"key":"***"}}',
    );
    expect(logs[0]!.logger).toContain('"user":"ada","password":"***"');
    expect(logs[1]!.message).toContain('"password":"***"');
  });

  it('are masked in the log of a connection another section shares, and only for calls with secret arguments', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const server = echoServer();
    const servers: McpServerConfig[] = [{ name: 'auth', transport: { type: 'in-memory', server } }];
    // Two sections of one session share the connection (the session's pool):
    // the server's log reaches both listeners, the call is sent through one.
    const first = await connected(session, servers);
    await connected(session, servers);
    // A tool without secret arguments registers nothing: its echo is the server's text.
    await invokeTool(toolNamed(first, 'auth_greet'), { user: PASSWORD }, { session });
    await logsSeen(events, 4);
    expect(JSON.stringify(events.of(McpServerLog))).toContain(PASSWORD);
    await invokeTool(toolNamed(first, 'auth_login'), { password: PASSWORD }, { session });
    await logsSeen(events, 8);
    const logs = events.of(McpServerLog).slice(4);
    expect(logs).toHaveLength(4);
    expect(JSON.stringify(logs)).not.toContain(PASSWORD);
  });
});

describe("a server that writes a call's secret argument to stderr as it fails", () => {
  const server = fileURLToPath(
    new URL('../fixtures/hostile/password-crash-server.mjs', import.meta.url),
  );

  /** A section of a new session with the crashing server (`env` its environment), connected. */
  async function crashing(env?: Record<string, string>) {
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'auth',
          transport: { type: 'stdio', command: process.execPath, args: [server] },
          ...(env === undefined ? {} : { env }),
        },
      ],
    });
    const events = recordEvents(session);
    await section.connect();
    return { session, section, events };
  }

  it('shows its stderr in the disconnect, the secret masked', async () => {
    const { session, section, events } = await crashing();
    try {
      const result = await invokeTool(
        toolNamed(section, 'auth_login'),
        { user: 'ada', password: PASSWORD },
        { session },
      );
      expect(result.success).toBe(false);
      expect(result.message).not.toContain(PASSWORD);
      const disconnected = await waitFor(() => events.of(McpServerDisconnected)[0], {
        timeoutMs: 10_000,
      });
      // The tail is there, its secret masked.
      expect(disconnected.reason).toContain('auth: bad password ***');
      expect(JSON.stringify(events.of(McpServerDisconnected))).not.toContain(PASSWORD);
    } finally {
      await section.disconnect();
    }
  });

  it('masks a multi-line secret the kept tail begins inside (a PEM key)', async () => {
    const lines = Array.from(
      { length: 12 },
      (_, i) => `K${String(i).padStart(2, '0')}${'Ab9'.repeat(20)}`,
    );
    const key = ['-----BEGIN PRIVATE KEY-----', ...lines, '-----END PRIVATE KEY-----'].join('\n');
    // The debug line and the key's first lines are cut off: the tail starts inside it.
    const { session, section, events } = await crashing({ FILLER: '1800' });
    try {
      await invokeTool(
        toolNamed(section, 'auth_login'),
        { user: 'ada', password: key },
        { session },
      );
      const disconnected = await waitFor(() => events.of(McpServerDisconnected)[0], {
        timeoutMs: 10_000,
      });
      expect(disconnected.reason).toContain('server stderr');
      const shown = JSON.stringify(events.of(McpServerDisconnected));
      expect(lines.filter((line) => shown.includes(line))).toEqual([]);
    } finally {
      await section.disconnect();
    }
  });
});
