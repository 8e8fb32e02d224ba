/**
 * `createMcpServer`: an SDK `McpServer` that knows where its workspaces and
 * private-data state live, so that tools registered on it with `defineTool`
 * get identity, permission, compliance and error handling for free.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import { ServerOptionsError } from './errors.js';
import type { ServerSettings } from './request-context.js';

/** Options of {@link createMcpServer}. */
export interface CreateMcpServerOptions {
  /** Absolute host directory holding `<user>/<session>/` workspaces. */
  readonly workspaceRoot: string;
  /**
   * Absolute host directory for private-data state. Must not overlap
   * `workspaceRoot`: the agent can write its workspace, and must not be able
   * to reset its own compliance state.
   */
  readonly privateDataDir: string;
  /** Reported to clients in `serverInfo`. @default '1.0.0' */
  readonly version?: string;
  /** Human-readable name reported in `serverInfo.title`. */
  readonly title?: string;
  /** Instructions sent to clients at initialisation. */
  readonly instructions?: string;
  /**
   * Receives errors a tool did not classify (bugs): the model only sees a
   * generic message, so this is where the details go.
   * @default logs to `console.error`
   */
  readonly onToolError?: (error: unknown, toolName: string) => void;
  /** Passed to the SDK server (capabilities and the like). */
  readonly serverOptions?: ServerOptions;
}

/** Default of {@link CreateMcpServerOptions.version}. */
export const DEFAULT_SERVER_VERSION = '1.0.0';

/** Everything `defineTool` needs to know about its server. Internal. */
export interface ToolkitServerSettings extends ServerSettings {
  readonly onToolError: (error: unknown, toolName: string) => void;
}

const settingsByServer = new WeakMap<McpServer, ToolkitServerSettings>();

/**
 * Creates an `McpServer` wired for the toolkit's rules. Register tools with
 * `defineTool(server, ...)`; serve it with `serveHttp`.
 *
 * An `McpServer` serves one connection at a time, so to serve several
 * clients pass `serveHttp` a factory that calls this function.
 *
 * @throws {ServerOptionsError} for an empty name, relative directories, or
 *   directories that overlap.
 * @example
 * ```ts
 * const server = createMcpServer('template', {
 *   workspaceRoot: '/srv/workspaces',
 *   privateDataDir: '/srv/private-data',
 * });
 * ```
 */
export function createMcpServer(name: string, options: CreateMcpServerOptions): McpServer {
  if (typeof name !== 'string' || name.trim().length === 0) {
    throw new ServerOptionsError(
      'name',
      `server name must be a non-empty string, got ${JSON.stringify(name)}`,
    );
  }
  const workspaceRoot = absoluteDir('workspaceRoot', options.workspaceRoot);
  const privateDataDir = absoluteDir('privateDataDir', options.privateDataDir);
  checkApart(workspaceRoot, privateDataDir);

  const serverOptions: ServerOptions = { ...options.serverOptions };
  if (options.instructions !== undefined) serverOptions.instructions = options.instructions;
  const info: { name: string; version: string; title?: string } = {
    name,
    version: options.version ?? DEFAULT_SERVER_VERSION,
  };
  if (options.title !== undefined) info.title = options.title;

  const server = new McpServer(info, serverOptions);
  settingsByServer.set(
    server,
    Object.freeze({
      workspaceRoot,
      privateDataDir,
      onToolError: options.onToolError ?? logToolError,
    }),
  );
  return server;
}

/**
 * The toolkit settings of a server made by {@link createMcpServer}.
 *
 * @throws {ServerOptionsError} for a server made another way.
 */
export function toolkitSettingsOf(server: McpServer): ToolkitServerSettings {
  const settings = settingsByServer.get(server);
  if (settings === undefined) {
    throw new ServerOptionsError(
      'server',
      'defineTool() needs a server made by createMcpServer(), which knows the workspace and private-data directories',
    );
  }
  return settings;
}

function logToolError(error: unknown, toolName: string): void {
  console.error(`[mcp-sections] tool "${toolName}" failed:`, error);
}

function absoluteDir(option: string, value: unknown): string {
  if (typeof value !== 'string' || !path.isAbsolute(value)) {
    throw new ServerOptionsError(
      option,
      `${option} must be an absolute directory path, got ${JSON.stringify(value)}`,
    );
  }
  return path.resolve(value);
}

/** Refuses directories that contain one another, lexically or through symlinks. */
function checkApart(workspaceRoot: string, privateDataDir: string): void {
  const pairs: [string, string][] = [
    [workspaceRoot, privateDataDir],
    [physical(workspaceRoot), physical(privateDataDir)],
  ];
  for (const [a, b] of pairs) {
    if (contains(a, b) || contains(b, a)) {
      throw new ServerOptionsError(
        'privateDataDir',
        `privateDataDir ${JSON.stringify(privateDataDir)} and workspaceRoot ${JSON.stringify(workspaceRoot)} ` +
          `must not contain one another: the agent could then edit its own private-data state`,
      );
    }
  }
}

/**
 * Where `dir` is on disk, symlinks resolved: a part that does not exist yet
 * (created later with `mkdir -p`) is resolved through its nearest existing
 * ancestor, so a symlink above it cannot hide where it will be.
 */
function physical(dir: string): string {
  const missing: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    try {
      return path.join(realpathSync(current), ...missing);
    } catch {
      if (path.dirname(current) === current) return path.resolve(dir);
      missing.unshift(path.basename(current));
    }
  }
}

function contains(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  if (relative === '') return true;
  return relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative);
}
