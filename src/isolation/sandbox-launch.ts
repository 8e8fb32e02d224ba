/**
 * What a stdio server needs before it is restarted in the sandbox: a host
 * that can sandbox it, a HOME of its own for the weak `unshare` backend,
 * and the egress proxy of the allow-list tier; then the command wrapper
 * that runs it there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpIsolationConfig, StdioTransportConfig } from '../config/server-config.js';
import type { DataSensitivity } from '../core/sensitivity.js';
import type { CommandWrapper } from './command-line.js';
import { allowListPolicy, type EgressProxy, startEgressProxy } from './egress-proxy.js';
import { sandboxedCommand, sandboxSupport } from './sandbox.js';

/** Options of {@link launchSandbox}. */
export interface SandboxLaunchOptions {
  readonly serverName: string;
  readonly transport: StdioTransportConfig;
  readonly isolation: McpIsolationConfig | undefined;
  /** The session's level now: at `secret` the proxy lets nothing through. */
  readonly level: () => DataSensitivity;
  /** The proxy refused a destination. */
  readonly onDenied: (host: string, port: number, reason: string) => void;
}

/** A sandbox ready to start the server in, and what to clean up afterwards. */
export interface SandboxLaunch {
  readonly wrap: CommandWrapper;
  /**
   * Where the sandboxed server writes on the host: its declared workspace
   * only (bubblewrap), or anywhere it could outside (the `unshare`
   * fallback takes the network away and nothing else).
   */
  readonly writes: 'workspace' | 'host';
  /**
   * The session's level rose: connections the proxy let through and that
   * the level now refuses (every one at `secret`) are cut.
   */
  levelRaised(): void;
  /** Stops the proxy and removes the temporary HOME; idempotent. */
  dispose(): Promise<void>;
}

/**
 * Prepares the sandbox for one server.
 * @returns the reason when this host cannot sandbox it.
 */
export async function launchSandbox(
  options: SandboxLaunchOptions,
): Promise<SandboxLaunch | { readonly unavailable: string }> {
  const { isolation, transport } = options;
  const support = sandboxSupport({ allowUnshare: isolation?.unshareFallback === true });
  if (!support.available) {
    return {
      unavailable: `this host cannot sandbox a stdio server: ${support.reason ?? 'unknown reason'}`,
    };
  }
  const cleanups: (() => Promise<void>)[] = [];
  const dispose = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  let unshareHome: string | undefined;
  if (support.backend === 'unshare') {
    // The weak sandbox shares the host's files: give it at least a HOME of its own.
    const home = await mkdtemp(join(tmpdir(), `mcp-sections-${options.serverName}-home-`));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    unshareHome = home;
  }
  const allow = isolation?.network?.allow;
  let proxy: EgressProxy | undefined;
  if (allow !== undefined && support.backend === 'bubblewrap') {
    // PROXIED tier: the allow-list at `confidential`, nothing at `secret` (asked per connection).
    const allowed = allowListPolicy(allow);
    const started = await startEgressProxy({
      policy: (host, port) =>
        options.level() === 'secret'
          ? `the session holds secret data: a sandboxed server reaches no host, ${host}:${port} included`
          : allowed(host, port),
      onDenied: options.onDenied,
    });
    cleanups.push(() => started.close());
    proxy = started;
  }
  const plan = {
    workspace: transport.cwd,
    readOnly: isolation?.readOnlyPaths ?? [],
    ...(unshareHome === undefined ? {} : { unshareHome }),
    ...(proxy === undefined
      ? {}
      : { egress: { directory: proxy.directory, socketName: proxy.socketName } }),
  };
  return {
    wrap: (line) => sandboxedCommand(line, plan, support),
    writes: support.backend === 'unshare' ? 'host' : 'workspace',
    levelRaised: () => proxy?.recheck(),
    dispose,
  };
}
