/**
 * The bubblewrap command line, read as data: what is mounted how, and what
 * the sandboxed server's environment holds. (What it can and cannot reach
 * when run is in test/integration/isolation-bubblewrap.test.ts.)
 */
import net from 'node:net';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bubblewrapCommand,
  resolvesThrough,
  SANDBOX_EGRESS_DIRECTORY,
  SANDBOX_HOME,
  SANDBOX_PROXY_PORT,
  WITH_SYSCALL_FILTER,
} from '../../src/isolation/bubblewrap.js';
import { SANDBOX_LAUNCHER } from '../../src/isolation/sandbox-launcher.js';

const bwrap = {
  program: 'bwrap',
  namespaces: ['--unshare-all', '--unshare-user'],
  syscallFilter: '/var/lib/filter.bpf',
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A file straight in the temporary directory, removed after the test. */
function looseFile(name: string, mode = 0o644): string {
  const file = path.join(tmpdir(), `${name}-${process.pid}-${Date.now()}`);
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, mode);
  dirs.push(file);
  return file;
}

/** The mounts of a bwrap argument list as [option, source, target] triples. */
function mounts(args: readonly string[]): string[][] {
  const found: string[][] = [];
  for (let i = 0; i < args.length; i += 1) {
    const option = args[i] ?? '';
    if (['--bind', '--ro-bind', '--ro-bind-try'].includes(option)) {
      found.push([option, args[i + 1] ?? '', args[i + 2] ?? '']);
      i += 2;
    } else if (['--tmpfs', '--dir', '--proc', '--dev'].includes(option)) {
      found.push([option, args[i + 1] ?? '']);
      i += 1;
    }
  }
  return found;
}

describe('bubblewrapCommand', () => {
  it('mounts the workspace read-write and nothing else of the host writable', () => {
    const workspace = mkdtempSync(path.join(tmpdir(), 'bwrap-ws-'));
    dirs.push(workspace);
    const line = { command: 'node', args: ['server.js'], env: { PATH: '/usr/bin', TOKEN: 't' } };
    const wrapped = bubblewrapCommand(bwrap, line, { workspace, readOnly: ['/opt/data'] });
    // The shell opens the syscall filter as descriptor 3 and becomes bubblewrap.
    expect(wrapped.command).toBe('/bin/sh');
    expect(wrapped.args.slice(0, 5)).toEqual([
      '-c',
      WITH_SYSCALL_FILTER,
      'sh',
      bwrap.syscallFilter,
      'bwrap',
    ]);
    expect(wrapped.args.slice(5, 7)).toEqual(bwrap.namespaces);
    const seccomp = wrapped.args.indexOf('--seccomp');
    expect(wrapped.args[seccomp + 1]).toBe('3');
    expect(seccomp).toBeLessThan(wrapped.args.indexOf('--'));
    const list = mounts(wrapped.args);
    expect(list.filter(([option]) => option === '--bind')).toEqual([
      ['--bind', workspace, workspace],
    ]);
    expect(list).toContainEqual(['--ro-bind-try', '/opt/data', '/opt/data']);
    for (const tmpfs of ['/tmp', '/run', '/home']) expect(list).toContainEqual(['--tmpfs', tmpfs]);
    expect(list).toContainEqual(['--proc', '/proc']);
    const chdir = wrapped.args.indexOf('--chdir');
    expect(wrapped.args[chdir + 1]).toBe(workspace);
    expect(wrapped.args.slice(-2)).toEqual(['node', 'server.js']);
    expect(wrapped.env).toMatchObject({ HOME: SANDBOX_HOME, TMPDIR: '/tmp', TOKEN: 't' });
  });

  it('without a declared workspace, the working directory is read-only', () => {
    const wrapped = bubblewrapCommand(
      bwrap,
      { command: 'node', args: [], env: {} },
      { workspace: undefined, readOnly: [] },
    );
    const list = mounts(wrapped.args);
    expect(list.some(([option]) => option === '--bind')).toBe(false);
    expect(list).toContainEqual(['--ro-bind-try', process.cwd(), process.cwd()]);
  });

  it('never mounts a whole home or the root read-write', () => {
    const wrapped = bubblewrapCommand(
      bwrap,
      { command: path.join(process.cwd(), 'node_modules/.bin/tsx'), args: ['x.ts'], env: {} },
      { workspace: undefined, readOnly: [] },
    );
    const targets = mounts(wrapped.args).map((mount) => mount[2] ?? mount[1]);
    expect(targets).not.toContain('/');
    expect(targets).not.toContain(process.env['HOME'] ?? '/root');
  });

  it('shows a file straight in /tmp alone, never the host /tmp over the private one', () => {
    const script = looseFile('bwrap-script.js');
    const program = looseFile('bwrap-program', 0o755);
    const wrapped = bubblewrapCommand(
      bwrap,
      { command: program, args: [script], env: {} },
      { workspace: undefined, readOnly: [] },
    );
    const binds = mounts(wrapped.args).filter(([option]) => option === '--ro-bind-try');
    expect(binds).toContainEqual(['--ro-bind-try', script, script]);
    expect(binds).toContainEqual(['--ro-bind-try', program, program]);
    const sources = binds.map(([, source]) => source);
    for (const wide of ['/', tmpdir(), path.dirname(tmpdir())]) expect(sources).not.toContain(wide);
  });

  it.each([
    ['/', /the directory argument "\/": \/ holds \/home/],
    [tmpdir(), /the directory argument .*: \/tmp is kept private/],
    ['/var', /\/var holds \/var\/tmp/],
    [homedir(), /is kept private/],
  ])('refuses the directory argument %s, naming it and why', (directory, message) => {
    expect(() =>
      bubblewrapCommand(
        bwrap,
        { command: 'node', args: ['server.js', directory], env: {} },
        { workspace: undefined, readOnly: [] },
      ),
    ).toThrow(message);
  });

  it('refuses a workspace, a read-only path or an undeclared working directory that is too wide', () => {
    const line = { command: 'node', args: [], env: {} };
    expect(() => bubblewrapCommand(bwrap, line, { workspace: tmpdir(), readOnly: [] })).toThrow(
      /will not show the workspace \(`cwd` "\/tmp"\): \/tmp is kept private/,
    );
    expect(() =>
      bubblewrapCommand(bwrap, line, { workspace: undefined, readOnly: ['/etc'] }),
    ).toThrow(/will not show the `isolation.readOnlyPaths` entry "\/etc": \/etc is kept private/);
    const before = process.cwd();
    process.chdir(homedir());
    try {
      expect(() => bubblewrapCommand(bwrap, line, { workspace: undefined, readOnly: [] })).toThrow(
        /will not show the working directory ".*" \(no `cwd` is declared\)/,
      );
    } finally {
      process.chdir(before);
    }
  });

  it('skips device and process files among the arguments: the sandbox has its own', () => {
    const wrapped = bubblewrapCommand(
      bwrap,
      {
        command: 'node',
        args: ['server.js', '--log', '/dev/null', '/proc/self/fd/0', '/proc/1/root', '/dev'],
        env: {},
      },
      { workspace: undefined, readOnly: [] },
    );
    const shown = mounts(wrapped.args).filter(([option]) => option === '--ro-bind-try');
    // Only /dev/null laid over the kernel's lists of keys, which the sandbox must not read.
    expect(shown.filter(([, source]) => /^\/(dev|proc)(\/|$)/.test(source ?? ''))).toEqual([
      ['--ro-bind-try', '/dev/null', '/proc/keys'],
      ['--ro-bind-try', '/dev/null', '/proc/key-users'],
    ]);
    expect(wrapped.args.at(-1)).toBe('/dev');
  });

  it("shows a program installed in a home's tool folder by its bin folder, not the tool folder", () => {
    const home = mkdtempSync(path.join(tmpdir(), 'bwrap-home-'));
    dirs.push(home);
    const bin = path.join(home, '.cargo', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(home, '.cargo', 'credentials.toml'), 'token = "x"');
    const program = path.join(bin, 'mcp-server');
    writeFileSync(program, '#!/bin/sh\n');
    chmodSync(program, 0o755);
    const before = process.env['HOME'];
    process.env['HOME'] = home;
    try {
      const wrapped = bubblewrapCommand(
        bwrap,
        { command: program, args: [], env: {} },
        { workspace: undefined, readOnly: [] },
      );
      const sources = mounts(wrapped.args).map(([, source]) => source);
      expect(sources).toContain(bin);
      expect(sources).not.toContain(path.join(home, '.cargo'));
      // A program straight in a hidden tool folder, or in ~/.local/share: never the folder.
      for (const [folder, name] of [
        ['.dotnet', 'dotnet'],
        ['.local/share/pnpm', 'tool'],
      ] as const) {
        mkdirSync(path.join(home, folder), { recursive: true });
        const other = path.join(home, folder, name);
        writeFileSync(other, '#!/bin/sh\n');
        chmodSync(other, 0o755);
        const seen = mounts(
          bubblewrapCommand(
            bwrap,
            { command: other, args: [], env: {} },
            { workspace: undefined, readOnly: [] },
          ).args,
        ).map(([, source]) => source);
        for (const wide of ['.dotnet', '.local', '.local/share']) {
          expect(seen).not.toContain(path.join(home, wide));
        }
      }
    } finally {
      process.env['HOME'] = before;
    }
  });

  it('runs the server through the launcher, which closes what the sandbox inherited', () => {
    const line = { command: 'node', args: ['server.js'], env: {} };
    const plain = bubblewrapCommand(bwrap, line, { workspace: undefined, readOnly: [] });
    const node = realpathSync(process.execPath);
    const run = plain.args.slice(plain.args.indexOf('--') + 1);
    expect(run).toEqual([node, '-e', SANDBOX_LAUNCHER, '', '', 'node', 'server.js']);
    const egress = {
      directory: mkdtempSync(path.join(tmpdir(), 'bwrap-egress-')),
      socketName: 's',
    };
    dirs.push(egress.directory);
    const proxied = bubblewrapCommand(bwrap, line, { workspace: undefined, readOnly: [], egress });
    const tail = proxied.args.slice(proxied.args.indexOf('--') + 1);
    expect(tail.slice(3, 5)).toEqual([`${SANDBOX_EGRESS_DIRECTORY}/s`, String(SANDBOX_PROXY_PORT)]);
    // The proxy's directory is read-only inside: the server connects to its socket, nothing more.
    expect(mounts(proxied.args)).toContainEqual([
      '--ro-bind',
      egress.directory,
      SANDBOX_EGRESS_DIRECTORY,
    ]);
    expect(mounts(proxied.args).filter(([option]) => option === '--bind')).toEqual([]);
  });

  it('mounts nothing that a path through the workspace leads to, nor a socket', async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), 'bwrap-ws-'));
    const host = mkdtempSync(path.join(tmpdir(), 'bwrap-host-'));
    dirs.push(workspace, host);
    const hostFile = path.join(host, 'credentials');
    writeFileSync(hostFile, 'x');
    mkdirSync(path.join(host, 'project'));
    // The server's own links, left in its workspace: one to a file, one to a folder.
    symlinkSync(hostFile, path.join(workspace, 'settings.json'));
    symlinkSync(path.join(host, 'project'), path.join(workspace, 'lib'));
    // A host link that leads into the workspace, where the server's link takes over.
    symlinkSync(path.join(workspace, 'settings.json'), path.join(host, 'config-link'));
    const socket = path.join(host, 'agent.sock');
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(socket, resolve));
    try {
      const wrapped = bubblewrapCommand(
        bwrap,
        {
          command: 'node',
          args: ['server.js', 'settings.json', 'lib', path.join(host, 'config-link'), socket],
          env: {},
        },
        { workspace, readOnly: [path.join(workspace, 'lib'), path.join(host, 'config-link')] },
      );
      const sources = mounts(wrapped.args).map(([, source]) => source);
      for (const reached of [hostFile, host, path.join(host, 'project'), socket]) {
        expect(sources).not.toContain(reached);
      }
      expect(() =>
        bubblewrapCommand(
          bwrap,
          { command: 'node', args: [], env: {} },
          { workspace, readOnly: [socket] },
        ),
      ).toThrow(`${socket} is a socket, a device or a FIFO`);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('follows links outside the workspace as before', () => {
    const host = mkdtempSync(path.join(tmpdir(), 'bwrap-host-'));
    dirs.push(host);
    mkdirSync(path.join(host, 'data'));
    symlinkSync(path.join(host, 'data'), path.join(host, 'data-link'));
    expect(resolvesThrough(path.join(host, 'data-link'), path.join(host, 'elsewhere'))).toBe(false);
    expect(resolvesThrough(path.join(host, 'data-link'), path.join(host, 'data'))).toBe(true);
    const wrapped = bubblewrapCommand(
      bwrap,
      { command: 'node', args: [], env: {} },
      { workspace: undefined, readOnly: [path.join(host, 'data-link')] },
    );
    expect(mounts(wrapped.args)).toContainEqual([
      '--ro-bind-try',
      path.join(host, 'data-link'),
      path.join(host, 'data-link'),
    ]);
  });
});
