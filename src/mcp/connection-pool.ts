import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError } from '../core/errors.js';
import { canonicalJsonText } from './schema/json.js';
import type { McpTransportConfig } from './config-types.js';
import type { CallOptions, Endpoint, McpServerConnection } from './server-connection.js';

/** A connection borrowed from a pool; `release()` gives it back. */
export interface PooledConnection {
  readonly connection: McpServerConnection;
  /** Closes the connection when nobody else holds it; idempotent. */
  release(): Promise<void>;
}

interface Entry {
  readonly connection: McpServerConnection;
  holders: number;
}

/**
 * Connections shared within a session: sections given the same pool open
 * one connection per server (same name, transport and environment) instead
 * of one each, and native tools reach MCP servers through it:
 * `context.resources.get(McpConnectionPool)?.callTool('github', 'search', args)`.
 */
export class McpConnectionPool {
  readonly #entries = new Map<string, Entry>();

  /** The key under which an endpoint's connection is shared. */
  static keyOf(
    serverName: string,
    endpoint: Endpoint,
    transport: McpTransportConfig,
    process: {
      readonly env: Readonly<Record<string, string>> | undefined;
      readonly inheritEnv: boolean;
    },
  ): string {
    // An in-memory server is one object: share by identity, not by content.
    const transportKey =
      transport.type === 'in-memory'
        ? `in-memory:${objectId(transport.server)}`
        : canonicalJsonText(transport);
    return `${serverName}\u0000${endpoint}\u0000${transportKey}\u0000${canonicalJsonText(process.env ?? {})}\u0000${String(process.inheritEnv)}`;
  }

  /** Borrows the connection for `key`, creating it with `create` the first time. */
  acquire(key: string, create: () => McpServerConnection): PooledConnection {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { connection: create(), holders: 0 };
      this.#entries.set(key, entry);
    }
    entry.holders += 1;
    const held = entry;
    let released = false;
    return {
      connection: held.connection,
      release: async () => {
        if (released) return;
        released = true;
        held.holders -= 1;
        if (held.holders > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await held.connection.close();
      },
    };
  }

  /** Number of distinct connections open or opening. */
  get size(): number {
    return this.#entries.size;
  }

  /** The normal connection of a server, if any section holds one. */
  get(serverName: string): McpServerConnection | undefined {
    for (const entry of this.#entries.values()) {
      if (entry.connection.serverName === serverName && entry.connection.endpoint === 'normal')
        return entry.connection;
    }
    return undefined;
  }

  /**
   * Calls a tool by its wire name on a pooled server. This bypasses a
   * section's validation and isolation routing: use it from native tools
   * that know what they send.
   *
   * @throws McpConnectionError when no section holds a connection to the server.
   */
  async callTool(
    serverName: string,
    toolName: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const connection = this.get(serverName);
    if (connection === undefined) {
      const known = [
        ...new Set([...this.#entries.values()].map((entry) => entry.connection.serverName)),
      ];
      throw new McpConnectionError(
        serverName,
        'none',
        `no pooled connection to server "${serverName}"; pooled servers: ${known.length === 0 ? '(none)' : known.join(', ')}`,
      );
    }
    return connection.callTool(toolName, args, options);
  }

  /** Closes every connection, whoever holds it. */
  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.connection.close()));
  }
}

const ids = new WeakMap<object, number>();
let nextId = 1;

function objectId(value: object): number {
  let id = ids.get(value);
  if (id === undefined) {
    id = nextId++;
    ids.set(value, id);
  }
  return id;
}
