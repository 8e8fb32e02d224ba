/**
 * The CLI as a person uses it, through the built executable
 * (`node dist/src/cli/main.js`): JSON typos, wrong server and tool names,
 * unavailable servers, connection errors, progress on a terminal (under
 * `script`, a pty) and in a pipe, and `--json` documents — each with its
 * exit code. Servers listen on 127.0.0.1; none outlives the test.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import { everythingServerPath } from '../support/everything.js';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/processes.js';
import { builtMain, ensureBuilt, processesWithEnv, runBuiltCli, type CliRun } from './helpers.js';
import { configDir, type ConfigDir } from './mcp-host.js';

const MARKER = 'MCP_SECTIONS_BINARY_TEST';
const LONG = 'everything.trigger-long-running-operation';

/** Runs the built CLI under `script`, so that its stdout and stderr are a terminal. */
function runOnTerminal(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, builtMain, ...args].map(quote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

function parseOne(run: CliRun): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('node dist/src/cli/main.js', () => {
  const marker = randomUUID();
  let dir: ConfigDir;
  let config: string;
  let downPort: number;

  beforeAll(async () => {
    ensureBuilt();
    dir = await configDir('cli-binary');
    downPort = await freePort();
    config = await dir.write('servers.json', {
      everything: {
        command: process.execPath,
        args: [everythingServerPath, 'stdio'],
        env: { [MARKER]: marker },
      },
      broken: { command: '/nonexistent/mcp-server-binary' },
      down: { type: 'http', url: `http://127.0.0.1:${downPort}/mcp` },
    });
  });

  afterAll(async () => {
    await dir.remove();
    await waitFor(() => processesWithEnv(MARKER, marker).length === 0, {
      timeoutMs: 3_000,
      description: 'every server started by the CLI to exit',
    });
  });

  it('reports a JSON syntax error with line, column and the text, exit 2, before connecting', async () => {
    const run = await runBuiltCli(['call', config, 'everything.echo', '{"message": hi']);
    expect(run.code).toBe(EXIT_CODES.usage);
    expect(run.stderr).toBe(
      'error: invalid JSON arguments at line 1, column 13: expected a value, found a value without quotes (JSON strings take double quotes)\n' +
        '  {"message": …\n' +
        '              ^\n',
    );
    const comma = await runBuiltCli(['call', config, 'everything.echo', '{"message": "hi",\n}']);
    expect(comma.code).toBe(EXIT_CODES.usage);
    expect(comma.stderr.split('\n')[0]).toBe(
      'error: invalid JSON arguments at line 2, column 1: expected a property name in double quotes, found "}"',
    );
    const list = await runBuiltCli(['call', config, 'everything.echo', '["a",]']);
    expect(list.code).toBe(EXIT_CODES.usage);
    expect(list.stderr.split('\n')[0]).toBe(
      'error: invalid JSON arguments at line 1, column 6: expected a value, found "]"',
    );
  });

  it('fails at once for a server name that is not configured, listing the names one per line', async () => {
    const run = await runBuiltCli(['call', config, 'everythin.echo', 'message: hi']);
    expect(run.code).toBe(EXIT_CODES.usage);
    expect(run.stderr).toBe(
      [
        'error: unknown server "everythin" in "everythin.echo"',
        'did you mean everything?',
        'configured servers:',
        '  everything',
        '  broken',
        '  down',
        '',
      ].join('\n'),
    );
  });

  it('says a configured server that failed to start is unavailable, and why, exit 4', async () => {
    const run = await runBuiltCli(['call', config, 'broken.anything']);
    expect(run.code).toBe(EXIT_CODES.connection);
    // Only the named server was started.
    expect(run.stderr).toMatch(/^connecting to broken \(stdio\)\.\.\.\n/);
    expect(run.stderr).not.toContain('everything');
    expect(run.stderr).toMatch(
      /\nerror: server "broken" is configured but unavailable: cannot connect: .*(No such file or directory|ENOENT).*\n$/,
    );
  });

  it('names host, port and the system error code of a refused connection, exit 4', async () => {
    const run = await runBuiltCli(['call', '-q', config, 'down.echo']);
    expect(run.code).toBe(EXIT_CODES.connection);
    expect(run.stderr).toBe(
      `error: server "down" is configured but unavailable: cannot connect: fetch failed: host 127.0.0.1, port ${downPort}: ECONNREFUSED (connection refused: nothing listens there)\n`,
    );
  });

  it('lists the tools of the server one per line with a guess for an unknown tool, exit 2', async () => {
    const run = await runBuiltCli(['call', '-q', config, 'everything.ech', 'message: hi']);
    expect(run.code).toBe(EXIT_CODES.usage);
    const lines = run.stderr.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'error: server "everything" has no tool "ech"',
      'did you mean everything.echo?',
      'tools of everything:',
      '  everything.echo',
    ]);
    expect(lines.slice(3, -1)).toHaveLength(13);
  });

  it('shows progress as plain lines when stderr is not a terminal, and none with -q', async () => {
    const args = ['call', config, LONG, '{"duration": 0.2, "steps": 2}'];
    const run = await runBuiltCli(args);
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.stdout).toBe('Long running operation completed. Duration: 0.2 seconds, Steps: 2.\n');
    expect(run.stderr).toContain(`\n${LONG}: 1/2 (50%)\n`);
    for (const control of ['\u001b', '\r', '█']) expect(run.stderr).not.toContain(control);
    const quiet = await runBuiltCli(['-q', ...args]);
    expect(quiet).toMatchObject({ code: EXIT_CODES.ok, stderr: '' });
  });

  it('on a terminal, draws a progress bar updated in place and clears it', async () => {
    const run = await runOnTerminal(['call', config, LONG, '{"duration": 0.2, "steps": 2}']);
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.output).toContain(`\r\u001b[2K${LONG} [${'█'.repeat(10)}${'░'.repeat(10)}] 50% 1/2`);
    expect(run.output).not.toContain(`${LONG}: 1/2`);
    // The bar is cleared before the result is printed.
    expect(run.output).toContain('\r\u001b[2KLong running operation completed.');
  });

  it('--json prints exactly one JSON object with the exit code, usage errors included', async () => {
    const usage = await runBuiltCli(['call', '--json', config]);
    expect(usage.code).toBe(EXIT_CODES.usage);
    expect(parseOne(usage)).toEqual({
      exitCode: EXIT_CODES.usage,
      error: { message: 'call takes a config file and a tool name (run mcp-sections --help)' },
    });
    const json = await runBuiltCli(['call', '--json', config, 'everything.echo', '{"message": hi']);
    expect(json.code).toBe(EXIT_CODES.usage);
    expect(parseOne(json)).toEqual({
      exitCode: EXIT_CODES.usage,
      error: {
        message:
          'invalid JSON arguments at line 1, column 13: expected a value, found a value without quotes (JSON strings take double quotes)',
        details: ['  {"message": …', '              ^'],
      },
    });
    const down = await runBuiltCli(['call', '--json', '-q', config, 'down.echo']);
    expect(down.code).toBe(EXIT_CODES.connection);
    expect(parseOne(down)).toMatchObject({ exitCode: EXIT_CODES.connection });
    const ok = await runBuiltCli([
      'call',
      '--json',
      '-q',
      config,
      'everything.echo',
      'message: hi',
    ]);
    expect(ok.code).toBe(EXIT_CODES.ok);
    expect(parseOne(ok)).toMatchObject({ tool: 'everything_echo', success: true, exitCode: 0 });
  });
});
