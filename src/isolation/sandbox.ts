import { spawnSync } from 'node:child_process';
import type { CommandLine } from '../mcp/transport-factory.js';

/** Whether this host can start a process without network, and how. */
export interface SandboxSupport {
  readonly available: boolean;
  /** `unshare` flags that worked, when available. */
  readonly flags: readonly string[];
  /** Why not, when unavailable. */
  readonly reason?: string;
}

let cached: SandboxSupport | undefined;

/**
 * Probes once whether `unshare` can give a child its own empty network
 * namespace: directly as root, or inside a new user namespace otherwise.
 */
export function sandboxSupport(): SandboxSupport {
  if (cached !== undefined) return cached;
  if (process.platform !== 'linux') {
    cached = {
      available: false,
      flags: [],
      reason: `network namespaces need Linux, this host is ${process.platform}`,
    };
    return cached;
  }
  const candidates: (readonly string[])[] = [['--net'], ['--user', '--map-root-user', '--net']];
  const failures: string[] = [];
  for (const flags of candidates) {
    const probe = spawnSync('unshare', [...flags, '--', 'true'], { stdio: 'pipe', timeout: 5_000 });
    if (probe.error === undefined && probe.status === 0) {
      cached = { available: true, flags };
      return cached;
    }
    const why = probe.error?.message ?? probe.stderr.toString().trim();
    failures.push(
      `unshare ${flags.join(' ')}: ${why.length > 0 ? why : `exit ${String(probe.status)}`}`,
    );
  }
  cached = {
    available: false,
    flags: [],
    reason: `cannot create a network namespace (${failures.join('; ')})`,
  };
  return cached;
}

/**
 * Rewrites a stdio server's command line to run inside a new network
 * namespace (no interfaces up: no network at all) with `HOME` set to `home`.
 */
export function sandboxedCommand(
  line: CommandLine,
  home: string,
  support: SandboxSupport,
): CommandLine {
  return {
    command: 'unshare',
    args: [...support.flags, '--', line.command, ...line.args],
    env: {
      ...line.env,
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      XDG_CACHE_HOME: `${home}/.cache`,
    },
  };
}
