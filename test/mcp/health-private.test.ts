/**
 * The health monitor once the session holds private data: an isolated
 * deployment (no network: the ratchet's point) that holds the data may
 * write it into its answer to a ping, and `warnings()` and `statuses()`
 * are made for `/health`. The server's words are withheld there, and in
 * `McpServerHealthChanged`; the monitor's own (a timeout) are kept.
 * Before the session holds private data, the server's words are shown.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpHealthMonitor,
  McpIntegrationSection,
  McpServerHealthChanged,
  Session,
  WITHHELD_HEALTH_TEXT,
} from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const PRIVATE = 'SSN-078-05-1120';

/** A deployment that keeps what its calls send, and answers pings with it (or never, when told). */
function deployment(state: { held: string; hang: boolean }): Server {
  const server = new Server({ name: 'records', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'lookup',
        annotations: { openWorldHint: false },
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    state.held += String((request.params.arguments as { q?: string }).q ?? '');
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  server.setRequestHandler(PingRequestSchema, () => {
    if (state.hang) return new Promise<never>(() => undefined);
    if (state.held !== '') throw new Error(`database busy (${state.held})`);
    return {};
  });
  return server;
}

async function monitored(
  run: (context: {
    session: Session;
    section: McpIntegrationSection;
    monitor: McpHealthMonitor;
    state: { held: string; hang: boolean };
    normal: { held: string; hang: boolean };
    reasons: (string | undefined)[];
  }) => Promise<void>,
): Promise<void> {
  const state = { held: '', hang: false };
  const normal = { held: '', hang: false };
  const session = new Session();
  const reasons: (string | undefined)[] = [];
  session.bus.subscribe(McpServerHealthChanged, (event) => reasons.push(event.reason));
  const section = new McpIntegrationSection({
    session,
    servers: [
      {
        name: 'records',
        transport: { type: 'in-memory', server: deployment(normal) },
        isolation: { transport: { type: 'in-memory', server: deployment(state) } },
      },
    ],
  });
  await section.connect();
  const monitor = new McpHealthMonitor(section, { intervalMs: 60_000, timeoutMs: 300 });
  try {
    expect((await monitor.check())[0]?.healthy).toBe(true);
    await run({ session, section, monitor, state, normal, reasons });
  } finally {
    monitor.stop();
    await section.disconnect();
  }
}

describe('the health monitor once the session holds private data', () => {
  it('withholds the isolated server’s words in warnings, statuses and the event', async () => {
    await monitored(async ({ session, section, monitor, reasons }) => {
      session.privateData.add('patients', 'secret');
      const tool = toolNamed(section, 'records_lookup');
      expect((await invokeTool(tool, { q: PRIVATE }, { session })).success).toBe(true);
      const [status] = await monitor.check();
      expect(status?.healthy).toBe(false);
      expect(status?.lastError).toBe(
        `${WITHHELD_HEALTH_TEXT}; the connection is open, not reconnected`,
      );
      expect(monitor.warnings()).toEqual([
        `MCP server "records" is unhealthy: ${WITHHELD_HEALTH_TEXT}; the connection is open, not reconnected`,
      ]);
      expect(reasons.at(-1)).toBe(status?.lastError);
      expect(JSON.stringify([monitor.statuses(), monitor.warnings(), reasons])).not.toContain(
        PRIVATE,
      );
    });
  });

  it('keeps its own words: a ping that does not answer in time', async () => {
    await monitored(async ({ session, monitor, state }) => {
      session.privateData.add('patients', 'secret');
      state.hang = true;
      const [status] = await monitor.check();
      expect(status?.lastError).toMatch(
        /^ping did not answer within 300 ms; the connection is open/,
      );
    });
  });

  it('shows the server’s words while the session holds no private data', async () => {
    await monitored(async ({ monitor, normal }) => {
      normal.held = 'table locked';
      const [status] = await monitor.check();
      expect(status?.lastError).toMatch(/database busy \(table locked\)/);
    });
  });
});
