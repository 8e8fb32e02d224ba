/**
 * The health monitor and a switch to isolation: a check that sees a
 * switch begin while its ping is out reports what the switch ends in. One
 * that fails closed (the isolated deployment lists other tools) refuses
 * every call: not healthy.
 */
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { invokeTool, McpHealthMonitor, McpIntegrationSection, Session } from '../../src/index.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const BUSY_SERVER = fileURLToPath(
  new URL('../fixtures/resilience/busy-server.mjs', import.meta.url),
);

describe('a health check and a switch to isolation', () => {
  it('reports a route that began to switch during its ping, and failed closed, as not healthy', async () => {
    const other = new McpServer({ name: 'isolated', version: '1.0.0' });
    other.registerTool('other', { inputSchema: {} }, () => ({ content: [] }));
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'svc',
          transport: { type: 'stdio', command: process.execPath, args: [BUSY_SERVER] },
          // Lists other tools: the switch fails closed, once the normal side's calls settled.
          isolation: { transport: { type: 'in-memory', server: other } },
        },
      ],
    });
    const monitor = new McpHealthMonitor(section, { timeoutMs: 10_000 });
    try {
      await section.connect();
      // A call in flight holds the switch; a busy event loop holds the ping's answer.
      const slow = invokeTool(toolNamed(section, 'svc_slow'), { ms: 2_500 }, { session });
      const busy = invokeTool(toolNamed(section, 'svc_busy'), { ms: 1_000 }, { session });
      const checking = monitor.check();
      await new Promise((resolve) => setTimeout(resolve, 100));
      session.privateData.add('payroll'); // the switch begins while the ping is out
      const [status] = await checking;
      // Not healthy: the switch failed closed, and refuses every call.
      expect(status).toMatchObject({ name: 'svc', healthy: false });
      expect(monitor.isHealthy()).toBe(false);
      await Promise.all([slow, busy]);
      await section.routes[0]!.switchSettled();
      expect(section.routes[0]!.failClosedReason).toBeDefined();
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });

  it('reports a route that switched during its ping, stopping the side pinged, as healthy', async () => {
    const busy = (...args: string[]) => ({
      type: 'stdio' as const,
      command: process.execPath,
      args: [BUSY_SERVER, ...args],
    });
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'svc',
          transport: busy(),
          env: { PING_DELAY_MS: '1000' },
          // The same server, told apart by an argument: the switch succeeds.
          isolation: { transport: busy('--isolated') },
        },
      ],
    });
    const monitor = new McpHealthMonitor(section, { timeoutMs: 10_000 });
    try {
      await section.connect();
      const checking = monitor.check();
      await new Promise((resolve) => setTimeout(resolve, 100));
      session.privateData.add('payroll'); // the switch stops the normal process under the ping
      const [status] = await checking;
      // It opened the stopped side again (refused) and said the server was unhealthy.
      expect(status).toMatchObject({ name: 'svc', healthy: true });
      expect(section.routes[0]!.phase).toBe('isolated');
    } finally {
      monitor.stop();
      await section.disconnect();
    }
  });
});
