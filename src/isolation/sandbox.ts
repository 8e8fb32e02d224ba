import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandLine } from './command-line.js';
import { bubblewrapCommand, type BubblewrapLayout, withSyscallFilter } from './bubblewrap.js';
import { SANDBOX_LAUNCHER } from './sandbox-launcher.js';
import { sandboxSyscallFilterFile } from './syscall-filter.js';
import { messageOf } from '../core/errors.js';

/**
 * How a stdio server is sandboxed. `bubblewrap` is the real sandbox (every
 * namespace, no capabilities, a read-only system, no host sockets);
 * `unshare` only takes the network away, and is used only where the config
 * allows it explicitly. Another platform's backend (macOS `sandbox-exec`)
 * would be a third member.
 */
export type SandboxBackend = 'bubblewrap' | 'unshare';

/** Whether this host can sandbox a stdio server, and how. */
export interface SandboxSupport {
  readonly available: boolean;
  /** The backend that works, when available. */
  readonly backend?: SandboxBackend;
  /** The program to run: the bwrap binary, or `unshare`. */
  readonly program?: string;
  /**
   * The flags that worked in the probe: bubblewrap's namespace flags, or
   * `unshare`'s. The sandbox is started with exactly these.
   */
  readonly flags: readonly string[];
  /** Why not, when unavailable: names what is missing and how to get it. */
  readonly reason?: string;
}

/** Options of {@link sandboxSupport}. */
export interface SandboxSupportOptions {
  /**
   * Accept the network-only `unshare` sandbox where bubblewrap cannot run.
   * @default false
   */
  readonly allowUnshare?: boolean;
}

/**
 * The bubblewrap binary. `MCP_SECTIONS_BWRAP` names another one (a build of
 * its own, or a missing path to see how the library fails without it).
 */
export function bubblewrapProgram(): string {
  return process.env['MCP_SECTIONS_BWRAP'] ?? 'bwrap';
}

/**
 * `program` as the first executable file of that name on this process's
 * `PATH`; as given when it names a path, or when none is found.
 */
function onSearchPath(program: string): string {
  if (program.includes('/')) return program;
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return program;
}

/** What a probe found: it ran, or why not. */
type ProbeOutcome = { ok: true } | { ok: false; why: string };

const probes = new Map<string, ProbeOutcome>();

/**
 * Probes, once per program, whether bubblewrap can create its namespaces
 * here; falls back to `unshare --net` only when `allowUnshare` is set.
 */
export function sandboxSupport(options: SandboxSupportOptions = {}): SandboxSupport {
  if (process.platform !== 'linux') {
    return {
      available: false,
      flags: [],
      reason: `sandboxing a stdio server needs Linux (bubblewrap), this host is ${process.platform}`,
    };
  }
  // By its path, found here: the shell that starts it runs with the server's PATH and directory.
  const bwrap = onSearchPath(bubblewrapProgram());
  let namespaces: readonly string[] = BUBBLEWRAP_NAMESPACES;
  let syscallFilter: string | undefined;
  // Run alone first, so a missing program is named as such (not by the shell that starts it).
  let probe = probeOnce(bwrap, ['--version']);
  if (probe.ok) {
    try {
      syscallFilter = sandboxSyscallFilterFile();
      probe = probeBubblewrap(bwrap, namespaces, syscallFilter);
    } catch (error) {
      probe = { ok: false, why: messageOf(error) };
    }
  }
  if (!probe.ok && probe.why.includes('--disable-userns') && syscallFilter !== undefined) {
    // bubblewrap before 0.8: still a user namespace of its own and no
    // capabilities; only nested user namespaces stay possible, and they lead
    // nowhere outside this one.
    namespaces = BUBBLEWRAP_NAMESPACES.filter((flag) => flag !== '--disable-userns');
    probe = probeBubblewrap(bwrap, namespaces, syscallFilter);
  }
  // Only a probe with the filter (written, then taken) can have passed here.
  if (probe.ok)
    return { available: true, backend: 'bubblewrap', program: bwrap, flags: namespaces };
  const missing =
    `bubblewrap (${bwrap}) cannot sandbox a stdio server here: ${probe.why}; ` +
    'install the "bubblewrap" package (apt-get install bubblewrap), allow unprivileged user namespaces, ' +
    'or set isolation.unshareFallback: true to accept a sandbox that only removes the network';
  if (options.allowUnshare !== true) return { available: false, flags: [], reason: missing };
  const failures: string[] = [];
  for (const flags of [['--net'], ['--user', '--map-root-user', '--net']]) {
    const fallback = probeOnce('unshare', [...flags, '--', 'true']);
    if (fallback.ok) return { available: true, backend: 'unshare', program: 'unshare', flags };
    failures.push(`unshare ${flags.join(' ')}: ${fallback.why}`);
  }
  return { available: false, flags: [], reason: `${missing}; ${failures.join('; ')}` };
}

/**
 * Every namespace, the user namespace included: `--unshare-all` only tries
 * that one, and as root bubblewrap would then go on in the host's, with the
 * power to re-enter its other namespaces. No user namespaces inside.
 */
const BUBBLEWRAP_NAMESPACES: readonly string[] = [
  '--unshare-all',
  '--unshare-user',
  '--disable-userns',
];

function probeBubblewrap(
  bwrap: string,
  namespaces: readonly string[],
  syscallFilter: string,
): ProbeOutcome {
  // As the sandbox is started: the shell hands bubblewrap its filter.
  return probeOnce(
    '/bin/sh',
    withSyscallFilter(syscallFilter, bwrap, [
      ...namespaces,
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      '--seccomp',
      '3',
      '--ro-bind',
      '/',
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--',
      'true',
    ]),
  );
}

function probeOnce(program: string, args: readonly string[]): ProbeOutcome {
  const key = `${program}\u0000${args.join('\u0000')}`;
  const known = probes.get(key);
  if (known !== undefined) return known;
  const run = spawnSync(program, args, { stdio: 'pipe', timeout: 5_000 });
  const stderr = run.stderr?.toString().trim() ?? '';
  const outcome: ProbeOutcome =
    run.error === undefined && run.status === 0
      ? { ok: true }
      : {
          ok: false,
          why:
            run.error?.message ??
            (stderr.length > 0 ? stderr.slice(0, 300) : `exit ${String(run.status)}`),
        };
  probes.set(key, outcome);
  return outcome;
}

/** Where the sandboxed server may write, and what else it may read. */
export interface SandboxPlan extends BubblewrapLayout {
  /** A fresh host directory to use as HOME, for the `unshare` backend only. */
  readonly unshareHome?: string;
}

/**
 * Rewrites a stdio server's command line to run inside the sandbox that
 * `support` found. Its environment is whatever `line.env` holds, which the
 * route builds from the safe default plus the server's declared `env`.
 */
export function sandboxedCommand(
  line: CommandLine,
  plan: SandboxPlan,
  support: SandboxSupport,
): CommandLine {
  if (support.backend === 'bubblewrap') {
    return bubblewrapCommand(
      {
        program: support.program ?? bubblewrapProgram(),
        namespaces: support.flags,
        // Checked again at every start: the probe's file may be gone since.
        syscallFilter: sandboxSyscallFilterFile(),
      },
      line,
      plan,
    );
  }
  const home = plan.unshareHome ?? '/nonexistent';
  // Through the launcher here too: a descriptor the agent inherited (a
  // connected socket) would be network that no namespace takes away.
  return {
    command: 'unshare',
    args: [
      ...support.flags,
      '--',
      process.execPath,
      '-e',
      SANDBOX_LAUNCHER,
      '',
      '',
      line.command,
      ...line.args,
    ],
    env: {
      ...line.env,
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: `${home}/.config`,
      XDG_CACHE_HOME: `${home}/.cache`,
    },
  };
}
