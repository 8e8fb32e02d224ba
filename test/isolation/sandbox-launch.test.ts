/**
 * Pins `launchSandbox` on this Linux host (bubblewrap installed, so a
 * missing sandbox is a failure, not a skip): a server runs in the sandbox
 * with its workspace writable and its read-only paths not; the allow-list
 * tier starts an egress proxy that refuses hosts off the list, and every
 * host once the session holds secret data, telling `onDenied`; `dispose`
 * removes the proxy and the temporary HOME and is idempotent; without
 * bubblewrap the launch reports why, or falls back to `unshare` when
 * allowed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSensitivity } from '../../src/core/sensitivity.js';
import type { CommandLine } from '../../src/isolation/command-line.js';
import { launchSandbox, type SandboxLaunch } from '../../src/isolation/sandbox-launch.js';

let root: string;
const launches: SandboxLaunch[] = [];
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'sandbox-launch-test-'));
});
afterEach(async () => {
  for (const launch of launches.splice(0)) await launch.dispose();
  await rm(root, { recursive: true, force: true });
});

/** Lists the network interfaces of the namespace the shell runs in. */
const LIST_INTERFACES = `awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev`;

const shell = (script: string): CommandLine => ({
  command: '/bin/sh',
  args: ['-c', script],
  env: { PATH: '/usr/bin:/bin' },
});

function run(line: CommandLine, cwd: string) {
  const result = spawnSync(line.command, [...line.args], {
    cwd,
    env: { ...line.env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout };
}

async function launched(
  options: Partial<Parameters<typeof launchSandbox>[0]> & { cwd: string },
): Promise<SandboxLaunch> {
  const { cwd, ...rest } = options;
  const result = await launchSandbox({
    serverName: 'files',
    transport: { type: 'stdio', command: '/bin/sh', cwd },
    isolation: undefined,
    level: () => 'confidential',
    onDenied: () => undefined,
    ...rest,
  });
  if ('unavailable' in result) throw new Error(`expected a sandbox: ${result.unavailable}`);
  launches.push(result);
  return result;
}

/** Sends a CONNECT for `target` through the proxy's socket and returns the answer. */
function connectThrough(socketPath: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** The proxy socket's host path, read from the bubblewrap arguments. */
function proxySocket(line: CommandLine): { directory: string; socketPath: string } {
  const at = line.args.indexOf('/run/mcp-sections-egress');
  const directory = line.args[at - 1]!;
  const forwarded = line.args.find((arg) => arg.startsWith('/run/mcp-sections-egress/'))!;
  return { directory, socketPath: path.join(directory, path.basename(forwarded)) };
}

describe('launchSandbox with bubblewrap', () => {
  it('runs the server in the sandbox with only its workspace writable', async () => {
    const workspace = path.join(root, 'ws');
    const readOnly = path.join(root, 'ro');
    await mkdir(workspace);
    await mkdir(readOnly);
    const launch = await launched({
      cwd: workspace,
      isolation: { readOnlyPaths: [readOnly] },
    });
    const line = launch.wrap(
      shell(
        `pwd; echo inside > note.txt; touch ${readOnly}/x 2>/dev/null && echo ro-writable; echo done`,
      ),
    );
    // The shell that hands bubblewrap its syscall filter, then bubblewrap.
    expect(line.command).toBe('/bin/sh');
    expect(path.basename(line.args[4] ?? '')).toBe('bwrap');
    expect(line.args.slice(-3)).toEqual(['/bin/sh', '-c', line.args.at(-1)]);
    const result = run(line, workspace);
    expect(result).toEqual({ status: 0, stdout: `${workspace}\ndone\n` });
    expect(await readFile(path.join(workspace, 'note.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(path.join(readOnly, 'x'))).toBe(false);
  });

  it('has no network of its own inside the sandbox', async () => {
    const launch = await launched({ cwd: root });
    // Only the loopback interface exists in a fresh network namespace.
    const result = run(launch.wrap(shell(LIST_INTERFACES)), root);
    expect(result).toEqual({ status: 0, stdout: 'lo\n' });
  });

  it('starts no egress proxy without an allow-list', async () => {
    const launch = await launched({ cwd: root });
    expect(launch.wrap(shell('true')).args).not.toContain('/run/mcp-sections-egress');
  });

  it('refuses hosts off the allow-list, and every host at secret, telling onDenied', async () => {
    let level: DataSensitivity = 'confidential';
    const denied: [string, number, string][] = [];
    const launch = await launched({
      cwd: root,
      isolation: { network: { allow: ['api.example.com'] } },
      level: () => level,
      onDenied: (host, port, reason) => denied.push([host, port, reason]),
    });
    const line = launch.wrap(shell('true'));
    const { directory, socketPath } = proxySocket(line);
    expect(path.basename(directory)).toMatch(/^mcp-sections-egress-/);

    const offList = await connectThrough(socketPath, 'evil.example:443');
    expect(offList).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    level = 'secret';
    const atSecret = await connectThrough(socketPath, 'api.example.com:443');
    expect(atSecret).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(denied).toEqual([
      [
        'evil.example',
        443,
        'evil.example:443 is not on the allow-list of this sandbox (api.example.com)',
      ],
      [
        'api.example.com',
        443,
        'the session holds secret data: a sandboxed server reaches no host, api.example.com:443 included',
      ],
    ]);

    await launch.dispose();
    await launch.dispose();
    expect(existsSync(directory)).toBe(false);
  });
});

describe('launchSandbox without bubblewrap', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env['MCP_SECTIONS_BWRAP'];
    process.env['MCP_SECTIONS_BWRAP'] = path.join(root, 'no-such-bwrap');
  });
  afterEach(() => {
    if (saved === undefined) delete process.env['MCP_SECTIONS_BWRAP'];
    else process.env['MCP_SECTIONS_BWRAP'] = saved;
  });

  it('reports why it cannot sandbox', async () => {
    const result = await launchSandbox({
      serverName: 'files',
      transport: { type: 'stdio', command: '/bin/sh' },
      isolation: undefined,
      level: () => 'public',
      onDenied: () => undefined,
    });
    expect('unavailable' in result).toBe(true);
    const reason = (result as { unavailable: string }).unavailable;
    expect(
      reason.startsWith(
        `this host cannot sandbox a stdio server: bubblewrap (${path.join(root, 'no-such-bwrap')}) cannot sandbox a stdio server here: `,
      ),
    ).toBe(true);
    expect(
      reason.endsWith(
        'or set isolation.unshareFallback: true to accept a sandbox that only removes the network',
      ),
    ).toBe(true);
  });

  it('falls back to unshare with a HOME of its own, removed by dispose', async () => {
    // This host can run `unshare --net` (checked here, so a change fails loudly).
    expect(spawnSync('unshare', ['--net', '--', 'true']).status).toBe(0);
    const launch = await launched({ cwd: root, isolation: { unshareFallback: true } });
    const line = launch.wrap(shell(`echo "$HOME"; ${LIST_INTERFACES}`));
    expect(line.command).toBe('unshare');
    const home = line.env['HOME']!;
    expect(path.dirname(home)).toBe(tmpdir());
    expect(path.basename(home)).toMatch(/^mcp-sections-files-home-/);
    expect(line.env).toMatchObject({
      XDG_CONFIG_HOME: `${home}/.config`,
      XDG_CACHE_HOME: `${home}/.cache`,
    });
    expect(existsSync(home)).toBe(true);
    expect(run(line, root)).toEqual({ status: 0, stdout: `${home}\nlo\n` });
    await launch.dispose();
    await launch.dispose();
    expect(existsSync(home)).toBe(false);
  });
});
