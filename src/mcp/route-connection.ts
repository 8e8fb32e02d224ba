/**
 * One connection of a route: borrowed from the session's pool (shared with
 * other groups that reach the same server the same way), or owned — a
 * sandboxed restart belongs to its route alone.
 */
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { CommandWrapper } from '../isolation/command-line.js';
import type { ClientHandlers, ServerRequestRefusal } from './client-handlers.js';
import type { ConnectionListener } from './connection-listeners.js';
import { McpConnectionPool } from './connection-pool.js';
import { isolatedWriterIn, noteUnsandboxedProcess, workingDirectoryOf } from './local-processes.js';
import type { SecretRedactor } from './redact.js';
import type { ReconnectPolicy } from './reconnect-policy.js';
import { type Endpoint, McpServerConnection } from './server-connection.js';

/** Options of {@link routeConnection}. */
export interface RouteConnectionOptions {
  readonly config: ResolvedServerConfig;
  readonly endpoint: Endpoint;
  readonly transport: ResolvedServerConfig['transport'];
  readonly timeoutMs: number;
  readonly redactor: SecretRedactor;
  readonly handlers: ClientHandlers;
  /** Whose data decides whether `handlers` may answer (a connection is shared only within it). */
  readonly session: object;
  /** When `handlers` may not answer the server on this connection. @default always may */
  readonly requestRefusal?: ServerRequestRefusal;
  readonly reconnect: ReconnectPolicy | undefined;
  /** See `McpServerConnectionOptions.beforeReopen`. */
  readonly beforeReopen?: () => Promise<void>;
  /** See `McpServerConnectionOptions.mayStart`. */
  readonly mayStart?: () => string | undefined;
  readonly pool: McpConnectionPool | undefined;
  readonly listener: ConnectionListener;
  /** Set for a sandboxed restart, which is never shared. */
  readonly wrapCommand?: CommandWrapper;
}

/** A connection and how to let go of it. */
export interface RouteConnection {
  readonly connection: McpServerConnection;
  /** Closes an owned connection, or releases a borrowed one (the pool closes it with its last hold). */
  release(): Promise<void>;
}

/** Opens (or borrows) the connection; `listener` hears it until it is released. */
export function routeConnection(options: RouteConnectionOptions): RouteConnection {
  const { config, endpoint, transport, wrapCommand, pool, session } = options;
  // A normal stdio server runs as a local process outside any isolation: it
  // does not start where an isolated side of the session writes (`local-processes.ts`).
  const directory =
    endpoint === 'normal' && wrapCommand === undefined ? workingDirectoryOf(transport) : undefined;
  const mayStart =
    directory === undefined
      ? options.mayStart
      : () => options.mayStart?.() ?? isolatedWriterIn(session, directory);
  const create = (): McpServerConnection => {
    const connection = new McpServerConnection({
      serverName: config.name,
      endpoint,
      transport,
      timeoutMs: options.timeoutMs,
      redactor: options.redactor,
      session,
      handlers: options.handlers,
      ...(options.requestRefusal === undefined ? {} : { requestRefusal: options.requestRefusal }),
      ...(config.env === undefined ? {} : { env: config.env }),
      // A sandbox starts from the safe default whatever the config says.
      ...(config.inheritEnv === true && wrapCommand === undefined ? { inheritEnv: true } : {}),
      ...(wrapCommand === undefined ? {} : { wrapCommand }),
      ...(options.reconnect === undefined ? {} : { reconnect: options.reconnect }),
      ...(options.beforeReopen === undefined ? {} : { beforeReopen: options.beforeReopen }),
      ...(mayStart === undefined ? {} : { mayStart }),
    });
    if (directory !== undefined)
      noteUnsandboxedProcess(session, config.name, directory, connection);
    return connection;
  };
  const owned = pool === undefined || wrapCommand !== undefined;
  const borrowed = owned
    ? { connection: create(), release: (): Promise<void> => Promise.resolve() }
    : pool.acquire(
        McpConnectionPool.keyOf(config.name, endpoint, transport, {
          env: config.env,
          inheritEnv: config.inheritEnv === true,
          masks: options.redactor.fingerprint,
          answers: { session, handlers: options.handlers },
          isolation: isolationKey(config, endpoint, transport),
        }),
        create,
      );
  const { connection } = borrowed;
  const removeListener = connection.addListener(options.listener);
  return {
    connection,
    release: async () => {
      // The listener still hears the expected close, whether the route closes the
      // connection or releases the pool's last hold on it (then the pool closes it).
      if (owned) await connection.close();
      else await borrowed.release();
      removeListener();
    },
  };
}

/**
 * What the pool tells connections apart by, of a route's isolation: a
 * route that stops its normal process at its level (a sandboxing one, or
 * one whose isolated deployment replaces a local process) never shares it
 * with a route that keeps it running, or stops it at another level; an
 * isolated deployment leaves a remote normal endpoint shared.
 */
function isolationKey(
  config: ResolvedServerConfig,
  endpoint: Endpoint,
  transport: ResolvedServerConfig['transport'],
): string | undefined {
  const { isolation } = config;
  if (isolation === undefined) return undefined;
  const stops =
    isolation.transport === undefined || (endpoint === 'normal' && transport.type === 'stdio');
  return stops ? `stopped at ${isolation.at ?? 'confidential'}` : undefined;
}
