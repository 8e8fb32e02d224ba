/**
 * Loading a config file and connecting its servers for one CLI command,
 * with progress on stderr and errors mapped to exit codes.
 */
import path from 'node:path';
import { loadServerConfigs } from '../config/load-server-configs.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { SecretRedactor, serverSecrets } from '../mcp/redact.js';
import { McpIntegrationSection } from '../mcp/section.js';
import { Session } from '../runtime/session.js';
import { asCliError, CliError, EXIT_CODES } from './exit-codes.js';
import type { CliIo } from './io.js';
import { hideSecretsInHosts } from './network-errors.js';
import type { Progress } from './spinner.js';

/** A connected section and what it was made from. */
export interface OpenedSection {
  readonly section: McpIntegrationSection;
  readonly session: Session;
  readonly servers: readonly ResolvedServerConfig[];
  /**
   * Masks the secrets of every server connected (`env`, header and URL
   * values) in what a command shows of a server's text: a tool's schema's
   * descriptions, defaults and property names (`inspect`).
   */
  readonly redactor: SecretRedactor;
}

/** Options of {@link withSection}. */
export interface WithSectionOptions {
  readonly io: CliIo;
  readonly progress: Progress;
  readonly signal: AbortSignal;
  /** `report` keeps going with the servers that connected. */
  readonly onConnectError: 'throw' | 'report';
  /**
   * Picks the servers to connect from those configured, before anything is
   * connected; may throw a {@link CliError} (a server name that is not
   * configured fails at once).
   * @default every configured server
   */
  readonly select?: (servers: readonly ResolvedServerConfig[]) => readonly ResolvedServerConfig[];
}

/**
 * Loads `configPath`, connects every server (or those `select` picks), runs `use`, and disconnects on
 * every path (so no server process outlives the command).
 *
 * @throws CliError with exit code 3 for a config error, 4 for a connection error.
 */
export async function withSection<T>(
  configPath: string,
  options: WithSectionOptions,
  use: (opened: OpenedSection) => Promise<T>,
): Promise<T> {
  const configured = await loadConfigs(configPath, options);
  if (configured.length === 0) {
    throw new CliError(EXIT_CODES.config, `${configPath}: no servers are configured`);
  }
  const servers = [...(options.select?.(configured) ?? configured)];
  const redactor = new SecretRedactor(servers.flatMap(serverSecrets));
  // A connection failure names the host as the URL parser lowercased it.
  hideSecretsInHosts(redactor);
  const session = new Session();
  let section: McpIntegrationSection;
  try {
    section = new McpIntegrationSection({
      servers,
      session,
      onConnectError: options.onConnectError,
    });
  } catch (error) {
    throw asCliError(error);
  }
  try {
    options.progress.start(`connecting to ${servers.map(describeServer).join(', ')}`);
    try {
      await section.connect({ signal: options.signal });
    } finally {
      options.progress.stop();
    }
    options.signal.throwIfAborted();
    return await use({ section, session, servers, redactor });
  } catch (error) {
    throw asCliError(error, options.signal);
  } finally {
    await section.disconnect();
  }
}

async function loadConfigs(
  configPath: string,
  options: WithSectionOptions,
): Promise<ResolvedServerConfig[]> {
  try {
    return await loadServerConfigs(path.resolve(configPath), {
      env: options.io.env,
      signal: options.signal,
    });
  } catch (error) {
    throw asCliError(error, options.signal);
  }
}

/** `everything (stdio)`: the name and transport type, never a URL, header or env value. */
export function describeServer(server: ResolvedServerConfig): string {
  return `${server.name} (${server.transport.type})`;
}

/**
 * Where a server's transport goes, without secrets: the command's base name
 * for stdio, the URL's origin and path (no credentials, no query, the
 * server's secrets masked: a token may sit in the path or the host) for HTTP.
 */
export function describeTransport(server: ResolvedServerConfig): string {
  const { transport } = server;
  switch (transport.type) {
    case 'stdio':
      return `stdio: ${path.basename(transport.command)}`;
    case 'sse':
    case 'streamable-http': {
      try {
        const url = new URL(transport.url);
        const redactor = SecretRedactor.forServer(server);
        const host = redactor.redactHost(url.hostname);
        const port = url.port === '' ? '' : `:${url.port}`;
        return `${transport.type}: ${url.protocol}//${host}${port}${redactor.redact(url.pathname)}`;
      } catch {
        return transport.type;
      }
    }
    case 'in-memory':
      return 'in-memory';
  }
}
