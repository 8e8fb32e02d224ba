/**
 * A server that keeps one call's secret argument and writes it where
 * another text about another call or the server goes: a later call's
 * error (as its text and as a JSON-RPC error), its progress, and the
 * answer to the health monitor's ping. Each is masked, as the server's
 * log is, while the call is in flight and for the grace after it. And a
 * call's own secret argument in a successful answer that the result limit
 * cuts short: `ToolInvoked` shows the answer masked before the cut, so no
 * piece of the secret is left that masking no longer finds.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpHealthMonitor,
  McpIntegrationSection,
  McpToolProgress,
  Session,
  ToolInvoked,
} from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const PASSWORD = 'Hunter2-pw-SECRET-77';
const LIMIT = 200;

/** `login` keeps the password; the `status_*` tools and the ping write it back. */
function keepingServer(): Server {
  let kept = '';
  const server = new Server({ name: 'auth', version: '1.0.0' }, { capabilities: { tools: {} } });
  const object = (properties: Record<string, object>) => ({
    type: 'object' as const,
    properties,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'login',
        annotations: { openWorldHint: false },
        inputSchema: object({ user: { type: 'string' }, password: { type: 'string' } }),
      },
      ...['status_error', 'status_rpc', 'status_progress', 'status_data'].map((name) => ({
        name,
        annotations: { openWorldHint: false },
        inputSchema: object({ q: { type: 'string' } }),
      })),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, string>;
    switch (request.params.name) {
      case 'login': {
        kept = args.password ?? '';
        // Padded so that the limit cuts the echoed password one character before its end.
        const pad = 'x'.repeat(LIMIT - (kept.length - 1));
        return { content: [{ type: 'text' as const, text: `${pad}${kept} tail` }] };
      }
      case 'status_error':
        return { isError: true, content: [{ type: 'text' as const, text: `last login: ${kept}` }] };
      case 'status_rpc':
        throw new McpError(ErrorCode.InvalidParams, `last login: ${kept}`);
      case 'status_data':
        return {
          content: [{ type: 'text' as const, text: 'ok' }],
          structuredContent: { lastLogin: kept },
          _meta: { note: `replayed ${kept}` },
        };
      default: {
        const token = extra._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2, message: `replaying ${kept}` },
          });
        }
        return { content: [{ type: 'text' as const, text: 'ok' }] };
      }
    }
  });
  server.setRequestHandler(PingRequestSchema, () => {
    if (kept !== '') throw new McpError(ErrorCode.InternalError, `busy checking ${kept}`);
    return {};
  });
  return server;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function loggedIn() {
  const session = new Session();
  const events: unknown[] = [];
  session.bus.subscribeAll((event) => events.push(event));
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'auth',
        maxResultChars: LIMIT,
        transport: { type: 'in-memory', server: keepingServer() },
      },
    ],
  });
  sections.push(section);
  await section.connect();
  const login = await invokeTool(
    toolNamed(section, 'auth_login'),
    { user: 'ada', password: PASSWORD },
    { session },
  );
  expect(login.success).toBe(true);
  return { session, section, events };
}

/** What events show, but the call's own arguments (ToolInvoked.params holds them by design). */
function shown(events: readonly unknown[]): string {
  return JSON.stringify(
    events.map((event) => (event instanceof ToolInvoked ? { ...event, params: undefined } : event)),
  );
}

describe('a secret argument written back about another call', () => {
  it('is masked in a later call’s error text, JSON-RPC error and progress, and their events', async () => {
    const { session, section, events } = await loggedIn();
    for (const name of ['status_error', 'status_rpc']) {
      const result = await invokeTool(toolNamed(section, `auth_${name}`), { q: 'x' }, { session });
      expect(result.success).toBe(false);
      expect(result.message).not.toContain(PASSWORD);
      expect(result.message).toContain('***');
    }
    const progress: McpToolProgress[] = [];
    session.bus.subscribe(McpToolProgress, (event) => progress.push(event));
    await invokeTool(toolNamed(section, 'auth_status_progress'), { q: 'x' }, { session });
    expect(progress.map((event) => event.message)).toEqual(['replaying ***']);
    expect(shown(events)).not.toContain(PASSWORD);
  });

  it('is masked in the structured content and _meta of a later success, as its event shows them', async () => {
    const { session, section, events } = await loggedIn();
    const result = await invokeTool(
      toolNamed(section, 'auth_status_data'),
      { q: 'x' },
      { session },
    );
    // The caller gets the server's data as it is; the event masks it.
    expect(JSON.stringify(result.value)).toContain(PASSWORD);
    expect(shown(events)).not.toContain(PASSWORD);
  });

  it('is masked in the health monitor’s warnings when the server writes it into its ping error', async () => {
    const { section } = await loggedIn();
    const monitor = new McpHealthMonitor(section, { intervalMs: 60_000, timeoutMs: 2_000 });
    const [status] = await monitor.check();
    expect(status?.healthy).toBe(false);
    expect(status?.lastError).toContain('busy checking ***');
    expect(JSON.stringify([monitor.warnings(), monitor.statuses()])).not.toContain(PASSWORD);
  });

  it('leaves no piece of a call’s own secret in ToolInvoked when the limit cuts the answer inside it', async () => {
    const { events } = await loggedIn();
    const login = events.find(
      (event): event is ToolInvoked =>
        event instanceof ToolInvoked && event.toolName === 'auth_login',
    );
    const text = JSON.stringify(login?.result);
    expect(text).not.toContain(PASSWORD.slice(0, 10));
    expect(text).toContain('***');
  });
});

describe('a numeric secret argument written back as progress', () => {
  it('publishes no progress event whose numbers spell it (the report still keeps the call alive)', async () => {
    const PIN = 987654321;
    const server = new Server({ name: 'vault', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'unlock',
          annotations: { openWorldHint: false },
          inputSchema: {
            type: 'object' as const,
            properties: { pin: { type: 'integer', 'x-secret': true } },
          },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const pin = Number((request.params.arguments as { pin: number }).pin);
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        for (const params of [
          { progress: 1, total: pin },
          { progress: pin },
          { progress: 2, total: 3 },
        ]) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, ...params },
          });
        }
      }
      return { content: [{ type: 'text' as const, text: 'unlocked' }] };
    });
    const session = new Session();
    const progress: McpToolProgress[] = [];
    session.bus.subscribe(McpToolProgress, (event) => progress.push(event));
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'vault', transport: { type: 'in-memory', server } }],
    });
    sections.push(section);
    await section.connect();
    const result = await invokeTool(toolNamed(section, 'vault_unlock'), { pin: PIN }, { session });
    expect(result.message).toBe('unlocked');
    expect(progress.map(({ progress: done, total }) => [done, total])).toEqual([[2, 3]]);
  });
});
