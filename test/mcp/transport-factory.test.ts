/**
 * Stdio transports as the factory builds them: the SDK's safe environment
 * plus the declared `env` (the parent's secrets stay out unless
 * `inheritEnv`), and the child leading a process group of its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/mcp/transport-factory.js';

const SECRET = 'MCP_SECTIONS_FACTORY_TEST_SECRET';

/** Runs `script` as a stdio child and returns what it wrote to stderr, once it exited. */
async function stderrOf(
  script: string,
  options: Parameters<typeof createTransport>[1] = {},
): Promise<string> {
  let output = '';
  const handle = await createTransport(
    { type: 'stdio', command: process.execPath, args: ['-e', script] },
    { ...options, onStderr: (chunk) => (output += chunk) },
  );
  const closed = new Promise<void>((resolve) => {
    handle.transport.onclose = () => resolve();
  });
  await handle.transport.start();
  await closed;
  await handle.dispose();
  return output;
}

const REPORT = `
  const stat = require('fs').readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  process.stderr.write(JSON.stringify({
    env: process.env,
    pid: process.pid,
    pgid: Number(fields[2]),
  }));
  process.exit(0);`;

afterEach(() => {
  delete process.env[SECRET];
});

describe('createTransport (stdio)', () => {
  it("gives the child the safe default and its declared env, not the parent's secrets", async () => {
    process.env[SECRET] = 'parent-only';
    const report = JSON.parse(await stderrOf(REPORT, { env: { DECLARED: 'yes' } })) as {
      env: Record<string, string>;
    };
    expect(report.env['DECLARED']).toBe('yes');
    expect(report.env[SECRET]).toBeUndefined();
    expect(report.env['PATH']).toBe(process.env['PATH']);
  });

  it('passes the whole parent environment with inheritEnv', async () => {
    process.env[SECRET] = 'parent-only';
    const report = JSON.parse(await stderrOf(REPORT, { inheritEnv: true })) as {
      env: Record<string, string>;
    };
    expect(report.env[SECRET]).toBe('parent-only');
  });

  it.runIf(process.platform === 'linux')('starts the child as a process group leader', async () => {
    const report = JSON.parse(await stderrOf(REPORT)) as { pid: number; pgid: number };
    expect(report.pgid).toBe(report.pid);
    expect(report.pgid).not.toBe(process.pid);
  });

  it('lets a wrapper rewrite the command line, env included', async () => {
    const report = JSON.parse(
      await stderrOf(REPORT, {
        wrapCommand: (line) => ({ ...line, env: { ...line.env, WRAPPED: '1' } }),
      }),
    ) as { env: Record<string, string> };
    expect(report.env['WRAPPED']).toBe('1');
  });

  it('names a cwd that is no directory, not the command that would have run', async () => {
    const stdio = (cwd: string) =>
      createTransport({ type: 'stdio', command: process.execPath, args: [], cwd }, {});
    await expect(stdio('/nonexistent/mcp-sections-dir')).rejects.toThrow(
      'transport.cwd "/nonexistent/mcp-sections-dir" cannot be used as the server\'s working directory (ENOENT)',
    );
    await expect(stdio(process.execPath)).rejects.toThrow(
      `transport.cwd ${JSON.stringify(process.execPath)} is not a directory`,
    );
  });
});
