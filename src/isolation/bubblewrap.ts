import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
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

const TOO_WIDE = new Set(['/', homedir(), '/home', '/root']);

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
  const readOnly = new Set([
    ...programRoots(line, workingDirectory),
    ...layout.readOnly.map((p) => path.resolve(p)),
  ]);
  if (layout.workspace === undefined) readOnly.add(workingDirectory);
  const egress = layout.egress;
  const node = realpathSync(process.execPath);
  if (egress !== undefined && !isSystemPath(node)) readOnly.add(path.dirname(path.dirname(node)));
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
  if (command !== undefined && !isSystemPath(command)) {
    roots.push(path.dirname(path.dirname(command)));
  }
  for (const arg of [line.command, ...line.args]) {
    if (arg.startsWith('-')) continue;
    const candidate = path.resolve(cwd, arg);
    if (!existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    // A directory argument (a folder a filesystem server serves) is shown as it is.
    if (statSync(real).isDirectory()) {
      roots.push(real);
      continue;
    }
    const root = packageRoot(real);
    // Never the whole disk or a whole home because a stray node_modules sits there.
    roots.push(root === undefined || TOO_WIDE.has(root) ? path.dirname(real) : root);
  }
  return roots;
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
