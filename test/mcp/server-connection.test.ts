/**
 * McpServerConnection on its own, with in-process servers: its states,
 * close() winning over an attempt in flight, a server's own JSON-RPC error
 * leaving the connection as it was, and the capped, jittered backoff.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, McpError as RpcError } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/mcp/redact.js';
import {
  DEFAULT_RECONNECT,
  McpServerConnection,
  reconnectDelayMs,
  type ConnectionState,
} from '../../src/mcp/server-connection.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const connections: McpServerConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

function connectionTo(server: McpServer | Server): McpServerConnection {
  const connection = new McpServerConnection({
    session: {},
    serverName: 'srv',
    endpoint: 'normal',
    transport: { type: 'in-memory', server },
    timeoutMs: 5_000,
    redactor: new SecretRedactor([]),
  });
  connections.push(connection);
  return connection;
}

function serverWithTools(): McpServer {
  const server = new McpServer({ name: 'unit', version: '1.0.0' });
  server.registerTool('echo', { description: 'echo' }, () => ({
    content: [{ type: 'text', text: 'hi' }],
  }));
  return server;
}

describe('McpServerConnection', () => {
  it('goes idle → connecting → connected → closed', async () => {
    const connection = connectionTo(serverWithTools());
    const seen: ConnectionState[] = [connection.state];
    const connecting = connection.connect();
    seen.push(connection.state);
    await connecting;
    seen.push(connection.state);
    expect(connection.tools.map((tool) => tool.name)).toEqual(['echo']);
    await connection.close();
    seen.push(connection.state);
    expect(seen).toEqual(['idle', 'connecting', 'connected', 'closed']);
    await expect(connection.callTool('echo', {})).rejects.toThrow('the connection was closed');
  });

  it('sends a call now or not at all: while it reconnects nothing is sent, and whenReady waits', async () => {
    const server = serverWithTools();
    let calls = 0;
    server.server.setRequestHandler(CallToolRequestSchema, () => {
      calls += 1;
      return { content: [{ type: 'text', text: 'hi' }] };
    });
    const connection = connectionTo(server);
    await connection.connect();
    const reconnecting = connection.reconnect();
    expect(connection.isReady).toBe(false);
    await expect(connection.callTool('echo', {})).rejects.toThrow(/nothing was sent/);
    await connection.whenReady(undefined, 5_000);
    await reconnecting;
    expect(connection.isReady).toBe(true);
    expect(calls).toBe(0); // the refused call did not go out once the connection was back
    await expect(connection.callTool('echo', {})).resolves.toMatchObject({
      content: [{ text: 'hi' }],
    });
    expect(calls).toBe(1);
  });

  it('lets close() win over a connect() in flight', async () => {
    const connection = connectionTo(serverWithTools());
    const connecting = connection.connect();
    await connection.close();
    await expect(connecting).rejects.toThrow();
    expect(connection.state).toBe('closed');
  });

  it("keeps the connection after a server's own JSON-RPC error (-32000): a failed call, no new session", async () => {
    // The low-level server sends a thrown error back as a JSON-RPC error.
    const raw = rawToolServer([
      {
        name: 'quota',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new RpcError(-32000, 'upstream quota exceeded');
        },
      },
      { name: 'echo', inputSchema: { type: 'object' } },
    ]);
    const connection = connectionTo(raw.server);
    await connection.connect();
    const sessions = connection.sessionsOpened;
    const error: unknown = await connection
      .callTool('quota', {})
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toContain('upstream quota exceeded');
    expect(connection.state).toBe('connected');
    expect(connection.sessionsOpened).toBe(sessions);
    expect((await connection.callTool('echo', {})).content).toEqual([
      { type: 'text', text: 'called echo' },
    ]);
  });

  it('waits between reconnection tries within half and all of a doubling delay, capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 100 }),
        (baseDelayMs, maxDelayMs, attempt) => {
          const delay = reconnectDelayMs({ attempts: 3, baseDelayMs, maxDelayMs }, attempt);
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempt, 30));
          expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
          expect(delay).toBeLessThanOrEqual(ceiling);
        },
      ),
    );
    expect(reconnectDelayMs(DEFAULT_RECONNECT, 50)).toBeLessThanOrEqual(5_000);
  });
});
