import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandLine } from './command-line.js';

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

/** The bubblewrap binary and the namespace flags its probe accepted. */
export interface BubblewrapProgram {
  readonly program: string;
  /** At least `--unshare-all --unshare-user`; see `sandboxSupport`. */
  readonly namespaces: readonly string[];
}

/** Where the egress proxy's socket appears inside the sandbox. */
export const SANDBOX_EGRESS_DIRECTORY = '/run/mcp-sections-egress';
/** The port of the forwarder on the sandbox's own loopback. */
export const SANDBOX_PROXY_PORT = 3128;

/**
 * Runs inside the sandbox as `node -e FORWARDER <socket> <port> <command> <args…>`:
 * listens on the sandbox's own 127.0.0.1:<port>, hands every connection to
 * the proxy's unix socket, and runs the server with stdio passed through,
 * ending as it ends. Our code, never server text.
 */
const FORWARDER = [
  "const net = require('node:net');",
  "const { spawn } = require('node:child_process');",
  'const [socket, port, command, ...args] = process.argv.slice(1);',
  'const server = net.createServer((client) => {',
  '  const upstream = net.connect(socket);',
  '  client.pipe(upstream).pipe(client);',
  "  client.on('error', () => upstream.destroy());",
  "  upstream.on('error', () => client.destroy());",
  '});',
  "server.listen(Number(port), '127.0.0.1', () => {",
  "  const child = spawn(command, args, { stdio: 'inherit' });",
  "  child.on('error', () => process.exit(127));",
  "  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));",
  "  for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(name, () => child.kill(name));",
  '});',
].join('\n');

/**
 * The bubblewrap command line that runs `line` with every namespace of its
 * own (user, pid, ipc, net, uts, cgroup), no capabilities, a read-only view
 * of the system and of the server's own files, private `/tmp`, `/run` and
 * home, a fresh `/proc` (so no host process and no host namespace is
 * reachable through it), and write access to the workspace only.
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
    '--hostname',
    'sandbox',
  ];
  for (const system of SYSTEM_PATHS) args.push('--ro-bind-try', system, system);
  args.push(
    '--proc',
    '/proc',
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
  const readOnly = new Set([
    ...programRoots(line, workingDirectory),
    ...layout.readOnly.map((p) =>
      shown(path.resolve(p), `the \`isolation.readOnlyPaths\` entry ${JSON.stringify(p)}`),
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
  const node = realpathSync(process.execPath);
  if (egress !== undefined && !isSystemPath(node)) readOnly.add(installation(node));
  for (const root of readOnly) args.push('--ro-bind-try', root, root);
  // Mounted last, so a workspace inside a read-only root is still writable.
  if (layout.workspace !== undefined) args.push('--bind', layout.workspace, layout.workspace);
  args.push('--chdir', workingDirectory, '--');
  const proxyEnv: Record<string, string> = {};
  if (egress === undefined) {
    args.push(line.command, ...line.args);
  } else {
    args.push(node, '-e', FORWARDER, `${SANDBOX_EGRESS_DIRECTORY}/${egress.socketName}`);
    args.push(String(SANDBOX_PROXY_PORT), line.command, ...line.args);
    args.splice(args.indexOf('--chdir'), 0, '--bind', egress.directory, SANDBOX_EGRESS_DIRECTORY);
    const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
      proxyEnv[name] = proxy;
      proxyEnv[name.toLowerCase()] = proxy;
    }
  }
  return {
    command: bwrap.program,
    args,
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
function programRoots(line: CommandLine, cwd: string): string[] {
  const roots: string[] = [];
  const command = resolveCommand(line.command, line.env['PATH'] ?? '');
  if (command !== undefined && !isSystemPath(command)) roots.push(installation(command));
  for (const arg of [line.command, ...line.args]) {
    if (arg.startsWith('-')) continue;
    const candidate = path.resolve(cwd, arg);
    // `/dev/null`, `/proc/self/fd/0`: the sandbox has its own of these.
    if (kernelPlaceOf(candidate) !== undefined || !existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (kernelPlaceOf(real) !== undefined) continue;
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

function resolveCommand(command: string, searchPath: string): string | undefined {
  if (command.includes('/')) return existsSync(command) ? realpathSync(command) : undefined;
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir.length === 0) continue;
    const candidate = path.join(dir, command);
    if (existsSync(candidate)) return realpathSync(candidate);
  }
  return undefined;
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
