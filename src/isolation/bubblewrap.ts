import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandLine } from './command-line.js';
import { SANDBOX_LAUNCHER } from './sandbox-launcher.js';

/** Where the sandboxed server's home is, inside the sandbox only. */
export const SANDBOX_HOME = '/home/sandbox';

/**
 * The host's system, read-only: programs, libraries, and the few files of
 * `/etc` that name resolution, TLS and user lookups need. Nothing else of
 * `/etc` (no `shadow`, no credentials of other tools).
 */
const SYSTEM_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/group',
  '/etc/host.conf',
  '/etc/hosts',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/nsswitch.conf',
  '/etc/os-release',
  '/etc/passwd',
  '/etc/resolv.conf',
  '/etc/ssl',
];

/**
 * Host places that no mount of the sandbox may hold whole: the homes, the
 * system's configuration, and the places of the private mounts (a bind of
 * `/tmp` would lay the host's `/tmp`, with other sandboxes' proxy sockets,
 * over the private one). A mount inside one (`/tmp/work`) is fine; one that
 * is or holds one (`/`, `/var`, a home) is not.
 */
const COVERED_PLACES: readonly string[] = [
  ...new Set(
    ['/home', '/root', homedir(), '/etc', '/tmp', '/var/tmp', '/run', '/var/run', tmpdir()].map(
      (place) => realPath(place),
    ),
  ),
];

/** Kernel interfaces: the sandbox has its own, and nothing of the host's is shown. */
const KERNEL_PLACES: readonly string[] = ['/proc', '/sys', '/dev'];

/** What the sandbox shows of the host besides the system. */
export interface BubblewrapLayout {
  /**
   * The server's workspace: mounted read-write and its working directory.
   * Undefined when the config declares no `cwd`: then the parent's working
   * directory is the server's, read-only.
   */
  readonly workspace: string | undefined;
  /** More host paths to show read-only (e.g. where the server's code lives). */
  readonly readOnly: readonly string[];
  /**
   * The allow-list tier: the host directory of the egress proxy's socket.
   * The server then reaches the network only through `HTTP(S)_PROXY`, which
   * points at a forwarder inside the sandbox. Without it, no network at all.
   */
  readonly egress?: { readonly directory: string; readonly socketName: string };
}

/** The bubblewrap binary, the namespace flags its probe accepted, and its syscall filter. */
export interface BubblewrapProgram {
  readonly program: string;
  /** At least `--unshare-all --unshare-user`; see `sandboxSupport`. */
  readonly namespaces: readonly string[];
  /** The file of the sandbox's syscall filter (`syscall-filter.ts`). */
  readonly syscallFilter: string;
}

/**
 * The shell line that gives bubblewrap its syscall filter: bubblewrap reads
 * it from a descriptor (`--seccomp 3`), and the transport that starts a
 * server passes none past stderr. Run as `sh -c LINE sh <filter> <bwrap>
 * <args…>`: the shell opens the file as descriptor 3 and becomes bubblewrap
 * (`exec`), so no process is left between them.
 */
export const WITH_SYSCALL_FILTER = 'filter=$1; shift; exec "$@" 3<"$filter"';

/** The arguments of `/bin/sh` that run `program` with `args` and {@link WITH_SYSCALL_FILTER}. */
export function withSyscallFilter(
  syscallFilter: string,
  program: string,
  args: readonly string[],
): string[] {
  return ['-c', WITH_SYSCALL_FILTER, 'sh', syscallFilter, program, ...args];
}

/** Where the egress proxy's socket appears inside the sandbox. */
export const SANDBOX_EGRESS_DIRECTORY = '/run/mcp-sections-egress';
/** The port of the forwarder on the sandbox's own loopback. */
export const SANDBOX_PROXY_PORT = 3128;

/**
 * The bubblewrap command line that runs `line` with every namespace of its
 * own (user, pid, ipc, net, uts, cgroup), no capabilities, no keyrings (its
 * syscall filter), a read-only view of the system and of the server's own
 * files, private `/tmp`, `/run` and home, a fresh `/proc` (so no host
 * process and no host namespace is reachable through it), and write access
 * to the workspace only. Started through `/bin/sh`, which hands bubblewrap
 * the filter (see {@link WITH_SYSCALL_FILTER}).
 */
export function bubblewrapCommand(
  bwrap: BubblewrapProgram,
  line: CommandLine,
  layout: BubblewrapLayout,
): CommandLine {
  const args: string[] = [
    ...bwrap.namespaces,
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--seccomp',
    '3',
    '--hostname',
    'sandbox',
  ];
  for (const system of SYSTEM_PATHS) args.push('--ro-bind-try', system, system);
  args.push(
    '--proc',
    '/proc',
    // The keys the sandbox could see, by description: its keyring calls are refused, not these files.
    '--ro-bind-try',
    '/dev/null',
    '/proc/keys',
    '--ro-bind-try',
    '/dev/null',
    '/proc/key-users',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    '--tmpfs',
    '/run',
    '--tmpfs',
    '/home',
    '--dir',
    SANDBOX_HOME,
  );
  const workingDirectory = layout.workspace ?? process.cwd();
  if (layout.workspace !== undefined) {
    shown(layout.workspace, `the workspace (\`cwd\` ${JSON.stringify(layout.workspace)})`);
  }
  const fromWorkspace = (place: string): boolean =>
    layout.workspace !== undefined && resolvesThrough(place, layout.workspace);
  const readOnly = new Set([
    ...programRoots(line, workingDirectory, fromWorkspace),
    ...layout.readOnly
      .filter((p) => !fromWorkspace(path.resolve(p)))
      .map((p) =>
        shown(
          mountable(path.resolve(p), `the \`isolation.readOnlyPaths\` entry ${JSON.stringify(p)}`),
          `the \`isolation.readOnlyPaths\` entry ${JSON.stringify(p)}`,
        ),
      ),
  ]);
  if (layout.workspace === undefined) {
    readOnly.add(
      shown(
        workingDirectory,
        `the working directory ${JSON.stringify(workingDirectory)} (no \`cwd\` is declared)`,
      ),
    );
  }
  const egress = layout.egress;
  // The launcher runs on the Node that runs this library.
  const node = realpathSync(process.execPath);
  if (!isSystemPath(node)) readOnly.add(installation(node));
  for (const root of readOnly) args.push('--ro-bind-try', root, root);
  // Mounted last, so a workspace inside a read-only root is still writable.
  if (layout.workspace !== undefined) args.push('--bind', layout.workspace, layout.workspace);
  // Read-only: the server connects to the proxy's socket, and writes nothing there.
  if (egress !== undefined) args.push('--ro-bind', egress.directory, SANDBOX_EGRESS_DIRECTORY);
  args.push('--chdir', workingDirectory, '--', node, '-e', SANDBOX_LAUNCHER);
  args.push(
    egress === undefined ? '' : `${SANDBOX_EGRESS_DIRECTORY}/${egress.socketName}`,
    egress === undefined ? '' : String(SANDBOX_PROXY_PORT),
    line.command,
    ...line.args,
  );
  const proxyEnv: Record<string, string> = {};
  if (egress !== undefined) {
    const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
      proxyEnv[name] = proxy;
      proxyEnv[name.toLowerCase()] = proxy;
    }
  }
  return {
    command: '/bin/sh',
    args: withSyscallFilter(bwrap.syscallFilter, bwrap.program, args),
    env: {
      ...line.env,
      ...proxyEnv,
      HOME: SANDBOX_HOME,
      USERPROFILE: SANDBOX_HOME,
      TMPDIR: '/tmp',
      XDG_CONFIG_HOME: `${SANDBOX_HOME}/.config`,
      XDG_CACHE_HOME: `${SANDBOX_HOME}/.cache`,
    },
  };
}

/**
 * Host directories the server's program needs to read: the installation of
 * its command when that is outside the system paths (a Node from nvm, say),
 * and, for the command and every argument naming an existing file, the
 * project it belongs to: the owner of its `node_modules` tree, or its
 * nearest ancestor with a `node_modules` or `package.json`, so its imports
 * resolve.
 */
function programRoots(
  line: CommandLine,
  cwd: string,
  fromWorkspace: (place: string) => boolean,
): string[] {
  const roots: string[] = [];
  const command = resolveCommand(line.command, line.env['PATH'] ?? '', cwd);
  if (command !== undefined && !fromWorkspace(command.found) && !isSystemPath(command.real)) {
    roots.push(installation(command.real));
  }
  for (const arg of [line.command, ...line.args]) {
    if (arg.startsWith('-')) continue;
    const candidate = path.resolve(cwd, arg);
    // `/dev/null`, `/proc/self/fd/0`: the sandbox has its own of these. What
    // the workspace holds is mounted with it, and what its links lead to is
    // the server's choice: never a mount.
    if (kernelPlaceOf(candidate) !== undefined || !existsSync(candidate)) continue;
    if (fromWorkspace(candidate)) continue;
    const real = realpathSync(candidate);
    if (kernelPlaceOf(real) !== undefined || isSpecialFile(real)) continue;
    // A directory argument (a folder a filesystem server serves) is shown as it is.
    if (statSync(real).isDirectory()) {
      roots.push(shown(real, `the directory argument ${JSON.stringify(arg)}`));
      continue;
    }
    // Its project, else its folder, else the file alone: never the whole disk,
    // a home or /tmp because a stray node_modules or the file itself sits there.
    roots.push(
      narrowest(
        [packageRoot(real), path.dirname(real), real],
        `the argument ${JSON.stringify(arg)}`,
      ),
    );
  }
  return roots;
}

/** Where a program outside the system is installed (`…/bin/..`), else its folder, else itself. */
function installation(program: string): string {
  const folder = path.dirname(program);
  return narrowest([path.dirname(folder), folder, program], `the program ${program}`);
}

/**
 * The first of `candidates` (found, not configured: a program's
 * installation, a file's project) that may be shown; `what` names them in
 * the error. Besides what is too wide, never a hidden folder straight in a
 * home (`~/.cargo`, `~/.dotnet`, `~/.config`) nor `~/.local/share` or
 * `~/.local/state`: a tool's credentials and other programs' data sit there
 * beside the program.
 */
function narrowest(candidates: readonly (string | undefined)[], what: string): string {
  let why = '';
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    why = tooWide(candidate) ?? toolStateOfHome(candidate) ?? '';
    if (why === '') return candidate;
  }
  throw new Error(`the sandbox will not show ${what}: ${why}`);
}

/** Why `dir` is a home's folder of tool state, if it is one. */
function toolStateOfHome(dir: string): string | undefined {
  const home = realPath(homedir());
  const real = realPath(dir);
  const hidden = path.dirname(real) === home && path.basename(real).startsWith('.');
  const shared = ['.local/share', '.local/state'].some((place) => real === path.join(home, place));
  return hidden || shared
    ? `${real} holds tools' credentials and data beside the program`
    : undefined;
}

/**
 * `place`, when the sandbox may show it.
 * @throws Error naming `what` and the reason when it is, or holds, a place
 *   the sandbox keeps private (see {@link COVERED_PLACES}), or lies in a
 *   kernel interface.
 */
function shown(place: string, what: string): string {
  const why = tooWide(place);
  if (why !== undefined) {
    throw new Error(`the sandbox will not show ${what}: ${why}; name a narrower directory`);
  }
  return place;
}

/** The kernel interface `place` lies in, if any. */
function kernelPlaceOf(place: string): string | undefined {
  return KERNEL_PLACES.find((kernel) => place === kernel || place.startsWith(`${kernel}/`));
}

/** Why `place` (as given and as its real path) may not be mounted, if it may not. */
function tooWide(place: string): string | undefined {
  for (const checked of new Set([path.resolve(place), realPath(place)])) {
    const kernel = kernelPlaceOf(checked);
    if (kernel !== undefined) return `${checked} is in the host's ${kernel}`;
    const held = COVERED_PLACES.find((c) => c === checked || c.startsWith(withSlash(checked)));
    if (held !== undefined) {
      return held === checked
        ? `${checked} is kept private (a home, /etc, or the place of a private mount)`
        : `${checked} holds ${held}, which is kept private`;
    }
  }
  return undefined;
}

function withSlash(dir: string): string {
  return dir.endsWith('/') ? dir : `${dir}/`;
}

/** The real path of `place`, or `place` resolved when it does not exist. */
function realPath(place: string): string {
  try {
    return realpathSync(place);
  } catch {
    return path.resolve(place);
  }
}

/**
 * Where `command` is found (as found, and its real path): by its path,
 * relative to `cwd` where the sandbox runs it, or on `searchPath`.
 */
export function resolveCommand(
  command: string,
  searchPath: string,
  cwd: string,
): { readonly found: string; readonly real: string } | undefined {
  const found = command.includes('/')
    ? [path.resolve(cwd, command)]
    : searchPath
        .split(path.delimiter)
        .filter((dir) => dir.length > 0)
        .map((dir) => path.join(dir, command));
  const first = found.find((candidate) => existsSync(candidate));
  return first === undefined ? undefined : { found: first, real: realpathSync(first) };
}

/**
 * Whether resolving `place` (its symbolic links followed one by one, as
 * the kernel would) ever stands in `dir` or under it: what the sandboxed
 * server may have written there decides where such a path leads. A chain
 * of links too long to follow counts as leading there.
 */
export function resolvesThrough(place: string, dir: string): boolean {
  const inside = (candidate: string): boolean =>
    [dir, realPath(dir)].some(
      (root) => candidate === root || candidate.startsWith(withSlash(root)),
    );
  let pending = path.resolve(place).split(path.sep).filter(Boolean);
  let current: string = path.sep;
  for (let links = 0; pending.length > 0;) {
    const next = path.join(current, pending.shift()!);
    if (inside(next)) return true;
    let stats;
    try {
      stats = lstatSync(next);
    } catch {
      return false; // nothing there: nothing to mount either
    }
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    if ((links += 1) > MAX_LINKS_FOLLOWED) return true;
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) current = path.sep;
    pending = [...target.split(path.sep).filter(Boolean), ...pending];
  }
  return false;
}

/** As many symbolic links as the kernel follows in one path (`ELOOP` past it). */
const MAX_LINKS_FOLLOWED = 40;

/** Whether `file` is a socket, a device or a FIFO: nothing the sandbox mounts. */
function isSpecialFile(file: string): boolean {
  const stats = statSync(file);
  return !stats.isFile() && !stats.isDirectory();
}

/**
 * `place`, when it is a file or a directory.
 * @throws Error naming `what` when it is a socket, a device or a FIFO.
 */
function mountable(place: string, what: string): string {
  if (existsSync(place) && isSpecialFile(place)) {
    throw new Error(
      `the sandbox will not show ${what}: ${place} is a socket, a device or a FIFO, which would reach past the sandbox`,
    );
  }
  return place;
}

function isSystemPath(file: string): boolean {
  return SYSTEM_PATHS.some((system) => file === system || file.startsWith(`${system}/`));
}

function packageRoot(file: string): string | undefined {
  // Code inside a node_modules tree imports its siblings: show the whole tree's owner.
  const marker = `${path.sep}node_modules${path.sep}`;
  const inside = file.indexOf(marker);
  if (inside > 0) return file.slice(0, inside);
  const start = path.dirname(file);
  return nearestAncestor(start, 'node_modules') ?? nearestAncestor(start, 'package.json');
}

function nearestAncestor(start: string, entry: string): string | undefined {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, entry))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}
