/**
 * Pins `routeConnection` with in-process servers: without a pool the
 * connection is owned and `release` closes it; with a pool, routes with
 * the same server, endpoint, transport and environment borrow one
 * connection, which closes with the last release; a sandboxed restart
 * (`wrapCommand`) is never shared; each listener hears the connection
 * until its own release, the expected close included.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServerConfigs } from '../../src/config/parse-server-configs.js';
import type { ConnectionListener } from '../../src/mcp/connection-listeners.js';
import { McpConnectionPool } from '../../src/mcp/connection-pool.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { routeConnection, type RouteConnection } from '../../src/mcp/route-connection.js';

function server(): McpServer {
  const mcp = new McpServer({ name: 'peer', version: '1.0.0' });
  mcp.registerTool('ping', { description: 'answers pong' }, () => ({
    content: [{ type: 'text', text: 'pong' }],
  }));
  return mcp;
}

function recorder(name: string, heard: string[]): ConnectionListener {
  return {
    connected: (info) => heard.push(`${name}:connected:${info.transport}:${info.toolCount}`),
    disconnected: (info) => heard.push(`${name}:disconnected:${String(info.expected)}`),
  };
}

const opened: RouteConnection[] = [];
afterEach(async () => {
  for (const route of opened.splice(0)) await route.release();
});

/** The session every connection here answers for. */
const SESSION = {};

function open(
  mcp: McpServer,
  listener: ConnectionListener,
  extra: { pool?: McpConnectionPool; env?: Record<string, string>; wrap?: boolean } = {},
): RouteConnection {
  const [config] = parseServerConfigs([
    {
      name: 'peer',
      transport: { type: 'in-memory', server: mcp },
      ...(extra.env === undefined ? {} : { env: extra.env }),
    },
  ]);
  const route = routeConnection({
    config: config!,
    endpoint: 'normal',
    transport: config!.transport,
    timeoutMs: 5_000,
    redactor: new SecretRedactor([]),
    handlers: {},
    session: SESSION,
    reconnect: undefined,
    pool: extra.pool,
    listener,
    ...(extra.wrap === true ? { wrapCommand: (line) => line } : {}),
  });
  opened.push(route);
  return route;
}

describe('routeConnection', () => {
  it('owns the connection without a pool: release closes it, and the listener hears that', async () => {
    const heard: string[] = [];
    const route = open(server(), recorder('a', heard));
    expect(route.connection.serverName).toBe('peer');
    expect(route.connection.endpoint).toBe('normal');
    await route.connection.connect();
    expect(route.connection.state).toBe('connected');
    await route.release();
    expect(route.connection.state).toBe('closed');
    expect(heard).toEqual(['a:connected:in-memory:1', 'a:disconnected:true']);
  });

  it('shares one pooled connection, closed by the last release only', async () => {
    const pool = new McpConnectionPool();
    const mcp = server();
    const heard: string[] = [];
    const first = open(mcp, recorder('a', heard), { pool });
    const second = open(mcp, recorder('b', heard), { pool });
    expect(second.connection).toBe(first.connection);
    expect(pool.size).toBe(1);
    await first.connection.connect();
    expect(heard).toEqual(['a:connected:in-memory:1', 'b:connected:in-memory:1']);

    await first.release();
    expect(first.connection.state).toBe('connected');
    expect(pool.size).toBe(1);
    await second.release();
    expect(second.connection.state).toBe('closed');
    expect(pool.size).toBe(0);
    // a let go before the close: only b hears it.
    expect(heard.slice(2)).toEqual(['b:disconnected:true']);
  });

  it('keeps routes with another environment or another server apart', () => {
    const pool = new McpConnectionPool();
    const mcp = server();
    const plain = open(mcp, {}, { pool });
    const withEnv = open(mcp, {}, { pool, env: { TOKEN: 'x' } });
    const otherServer = open(server(), {}, { pool });
    expect(new Set([plain.connection, withEnv.connection, otherServer.connection]).size).toBe(3);
    expect(pool.size).toBe(3);
  });

  it('never shares a sandboxed restart, even with a pool', async () => {
    const pool = new McpConnectionPool();
    const mcp = server();
    const shared = open(mcp, {}, { pool });
    const sandboxed = open(mcp, {}, { pool, wrap: true });
    expect(sandboxed.connection).not.toBe(shared.connection);
    expect(pool.size).toBe(1);
    await sandboxed.release();
    expect(sandboxed.connection.state).toBe('closed');
    expect(shared.connection.state).toBe('idle');
  });
});
