import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { DataSensitivity } from '../core/sensitivity.js';

/** Start a server as a child process and speak MCP over its stdin/stdout. */
export interface StdioTransportConfig {
  readonly type: 'stdio';
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
}

/** The legacy HTTP+SSE transport (deprecated by the MCP spec, still common). */
export interface SseTransportConfig {
  readonly type: 'sse';
  readonly url: string;
  /** Sent on every request, e.g. `Authorization`. Never logged or published. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Streamable HTTP, the recommended remote transport. */
export interface StreamableHttpTransportConfig {
  readonly type: 'streamable-http';
  readonly url: string;
  /** Sent on every request, e.g. `Authorization`. Never logged or published. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Fall back to SSE when the first POST is answered with 404 or 405.
   * @default true
   */
  readonly sseFallback?: boolean;
}

/** An SDK server in this process, not yet connected (tests, embedding). */
export interface InMemoryTransportConfig {
  readonly type: 'in-memory';
  readonly server: McpServer | Server;
}

/** How to reach a server; discriminated by `type`. */
export type McpTransportConfig =
  | StdioTransportConfig
  | SseTransportConfig
  | StreamableHttpTransportConfig
  | InMemoryTransportConfig;

/** What a tool may do, for the isolation ratchet. */
export type ToolPermission = 'read' | 'write' | 'connect';

/** Where a server's calls go once the session holds private data. */
export interface McpIsolationConfig {
  /**
   * The isolated deployment of the same server (no network). Without it, a
   * stdio server is restarted in a network namespace with a fresh HOME.
   */
  readonly transport?: McpTransportConfig;
  /**
   * The sensitivity at which calls switch to the isolated connection.
   * @default 'confidential'
   */
  readonly at?: DataSensitivity;
  /**
   * Where bubblewrap cannot run, accept a sandbox made with `unshare --net`
   * instead: it takes the network away but leaves the host's files, unix
   * sockets and (as root) namespaces reachable. Without it, the server's
   * calls fail closed there.
   * @default false
   */
  readonly unshareFallback?: boolean;
  /**
   * More host paths a sandboxed stdio server may read (its code and the
   * project it belongs to are found from its command line).
   * @default []
   */
  readonly readOnlyPaths?: readonly string[];
  /**
   * The network a sandboxed stdio server keeps at `confidential`: only these
   * hosts (`api.example.com`, `*.example.com`, optionally `:443`), through
   * a proxy the library runs outside the sandbox (`HTTP(S)_PROXY` inside).
   * At `secret` nothing is reachable. Without it, isolation means no network.
   * Not for an isolated `transport`, which controls its own network.
   * @default no network
   */
  readonly network?: { readonly allow: readonly string[] };
}

/** One MCP server plugged into an `McpIntegrationSection`. */
export interface McpServerConfig {
  /** Identifier, `^[a-z][a-z0-9_-]{0,31}$`. */
  readonly name: string;
  readonly transport: McpTransportConfig;
  /** Prefix of bridged tool names. @default name */
  readonly toolPrefix?: string;
  /** Original tool names to keep; applied before `disabledTools`. */
  readonly enabledTools?: readonly string[];
  /** Original tool names to drop; applied after `enabledTools`. */
  readonly disabledTools?: readonly string[];
  /**
   * Timeout of each request (`tools/call`, `tools/list`, ping). The initial
   * handshake, which also covers starting a stdio child, waits at least 10 s.
   * @default 30_000
   */
  readonly timeoutMs?: number;
  /**
   * A call whose tool reports progress has its timeout restarted by every
   * report, up to this much in all.
   * @default 10 × timeoutMs
   */
  readonly maxTotalTimeoutMs?: number;
  /**
   * The most characters of content one tool result may bring into the
   * session; longer text is cut with a note, larger binary blocks replaced.
   * @default 1_000_000
   */
  readonly maxResultChars?: number;
  /**
   * Environment of a stdio child, on top of the SDK's safe default
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER` on POSIX). Never logged.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Give a stdio child the whole parent environment (API keys of the agent
   * included) instead of the safe default, plus `env`. Never applies inside
   * a sandbox, which gets only the safe default plus `env`.
   * @default false
   */
  readonly inheritEnv?: boolean;
  readonly isolation?: McpIsolationConfig;
  /** Permissions by original tool name; unlisted tools infer `connect` from `openWorldHint`. */
  readonly permissions?: Readonly<Record<string, readonly ToolPermission[]>>;
  /** A successful call of one of these tools raises the session to the given level. */
  readonly sensitiveTools?: Readonly<Record<string, DataSensitivity>>;
}
