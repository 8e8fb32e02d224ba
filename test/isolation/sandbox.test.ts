/**
 * The sandbox probe and command lines: bubblewrap with every namespace (the
 * user namespace required, nested ones disabled) where it runs; a clear
 * reason and no sandbox where it does not, unless the unshare fallback is
 * asked for explicitly.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxedCommand, sandboxSupport } from '../../src/isolation/sandbox.js';
import { SANDBOX_LAUNCHER } from '../../src/isolation/sandbox-launcher.js';
import { sandboxSyscallFilterFile } from '../../src/isolation/syscall-filter.js';

const line = { command: 'node', args: ['server.js'], env: { PATH: '/usr/bin' } };
const plan = { workspace: undefined, readOnly: [] };

afterEach(() => {
  delete process.env['MCP_SECTIONS_BWRAP'];
});

describe('sandboxSupport', () => {
  it.runIf(process.platform === 'linux')(
    'finds bubblewrap here and runs it with the user namespace required',
    () => {
      const support = sandboxSupport();
      expect(support).toMatchObject({ available: true, backend: 'bubblewrap' });
      expect(support.flags).toEqual(expect.arrayContaining(['--unshare-all', '--unshare-user']));
      const wrapped = sandboxedCommand(line, plan, support);
      // Found on this process's PATH: the shell that starts it has the server's.
      expect(path.isAbsolute(support.program ?? '')).toBe(true);
      // The shell hands bubblewrap its syscall filter and becomes it.
      expect(wrapped.command).toBe('/bin/sh');
      expect(wrapped.args.slice(3, 5)).toEqual([sandboxSyscallFilterFile(), support.program]);
      expect(wrapped.args.slice(5, 5 + support.flags.length)).toEqual([...support.flags]);
      expect(wrapped.args).toEqual(
        expect.arrayContaining(['--cap-drop', 'ALL', '--die-with-parent']),
      );
      expect(wrapped.args.slice(-2)).toEqual(['node', 'server.js']);
    },
  );

  it('names what is missing when bubblewrap cannot run, and offers no sandbox', () => {
    process.env['MCP_SECTIONS_BWRAP'] = '/nonexistent/bwrap-for-test';
    const support = sandboxSupport();
    expect(support.available).toBe(false);
    expect(support.reason).toContain('/nonexistent/bwrap-for-test');
    expect(support.reason).toContain('apt-get install bubblewrap');
    expect(support.reason).toContain('isolation.unshareFallback');
  });

  it.runIf(process.platform === 'linux')(
    'falls back to unshare only when asked, with a HOME of its own',
    () => {
      process.env['MCP_SECTIONS_BWRAP'] = '/nonexistent/bwrap-for-test';
      const support = sandboxSupport({ allowUnshare: true });
      expect(support).toMatchObject({ available: true, backend: 'unshare' });
      const wrapped = sandboxedCommand(line, { ...plan, unshareHome: '/tmp/home-x' }, support);
      expect(wrapped.command).toBe('unshare');
      // Through the launcher, which closes what the agent inherited.
      expect(wrapped.args).toEqual([
        ...support.flags,
        '--',
        process.execPath,
        '-e',
        SANDBOX_LAUNCHER,
        '',
        '',
        'node',
        'server.js',
      ]);
      expect(wrapped.env).toMatchObject({ HOME: '/tmp/home-x', PATH: '/usr/bin' });
    },
  );
});
