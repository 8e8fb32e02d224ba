import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { InspectReport } from '../../src/cli/commands.js';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import {
  everythingServerPath,
  startEverythingHttp,
  type EverythingHttpServer,
} from '../support/everything.js';
import { waitFor } from '../support/processes.js';
import { processesWithEnv, repo, runCliProcess, startCliProcess } from './helpers.js';

const MARKER = 'MCP_SECTIONS_CLI_TEST';
const HEADER_SECRET = 'cli-header-secret-4d2f';

/** Every line of stderr is a plain line: no spinner frames, no terminal escapes. */
function expectPlainProgress(stderr: string): void {
  expect(stderr).toContain('connecting to everything');
  for (const control of ['\u001b', '\r', '⠋']) expect(stderr).not.toContain(control);
}

describe('mcp-sections CLI over stdio', () => {
  const dir = path.join(repo, '.tmp', `cli-${randomUUID()}`);
  const config = path.join(dir, '.mcp.json');
  const marker = randomUUID();

  beforeAll(async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [everythingServerPath, 'stdio'],
            env: { [MARKER]: marker },
          },
        },
      }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The server the CLI started is gone once the CLI has exited. */
  async function expectServerStopped(): Promise<void> {
    await waitFor(() => processesWithEnv(MARKER, marker).length === 0, {
      timeoutMs: 3_000,
      description: 'the stdio server started by the CLI to exit',
    });
  }

  it('inspect renders the section and lists every tool with its arguments', async () => {
    const run = await runCliProcess(['inspect', config]);
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.stdout).toContain('Servers\n  everything  stdio: node  connected, 13 tools\n');
    expect(run.stdout).toContain('  ## 1. MCP Integrations (mcp.integrations)\n');
    expect(run.stdout).toContain('  - `everything_echo` - Echoes back the input');
    expect(run.stdout).toContain(
      '  everything_get-sum  (everything.get-sum)\n    Returns the sum of two numbers\n' +
        '    - a: number, required - First number\n    - b: number, required - Second number\n',
    );
    expect(run.stdout).toContain('    - includeImage: boolean, optional, default false');
    expectPlainProgress(run.stderr);
    await expectServerStopped();
  });

  it('call validates and invokes a tool named server.tool, and stops the server it started', async () => {
    const running = runCliProcess([
      'call',
      '-q',
      config,
      'everything.trigger-long-running-operation',
      '{"duration":1,"steps":1}',
    ]);
    // The control: while the call runs, its server is found by the marker...
    await waitFor(() => processesWithEnv(MARKER, marker).length > 0, {
      timeoutMs: 15_000,
      description: 'the stdio server started by the CLI',
    });
    const run = await running;
    expect(run).toMatchObject({
      code: EXIT_CODES.ok,
      stdout: 'Long running operation completed. Duration: 1 seconds, Steps: 1.\n',
      stderr: '',
    });
    // ...and once the CLI has exited, it is gone.
    await expectServerStopped();
  });

  it('on SIGINT cancels the call, disconnects and exits 130', async () => {
    const cli = startCliProcess([
      'call',
      config,
      'everything.trigger-long-running-operation',
      'duration: 30, steps: 1',
    ]);
    await waitFor(() => processesWithEnv(MARKER, marker).length > 0, {
      timeoutMs: 15_000,
      description: 'the stdio server started by the CLI',
    });
    cli.child.kill('SIGINT');
    const run = await cli.done;
    expect(run.code).toBe(EXIT_CODES.interrupted);
    expect(run.stderr).toMatch(/error: .*\n$/);
    await expectServerStopped();
  });

  it('call refuses arguments the validator refuses with exit 2, one error line and a JSON document', async () => {
    const run = await runCliProcess([
      'call',
      '--json',
      '-q',
      config,
      'everything__echo',
      'message: 5',
    ]);
    expect(run.code).toBe(EXIT_CODES.usage);
    const document = JSON.parse(run.stdout) as { tool: string; success: boolean; message: string };
    expect(document).toMatchObject({ tool: 'everything_echo', success: false });
    expect(document.message).toMatch(/^invalid arguments for tool "everything_echo": message: /);
    expect(run.stderr.split('\n')).toEqual([`error: ${document.message}`, '']);
    await expectServerStopped();
  });

  it('codegen writes typed bindings for every tool', async () => {
    const output = path.join(dir, 'generated', 'tools.ts');
    const run = await runCliProcess(['codegen', config, '-o', output]);
    expect(run.code).toBe(EXIT_CODES.ok);
    expect(run.stderr).toContain(`wrote ${output}: 13 tools, 13 exact\n`);
    const source = await readFile(output, 'utf8');
    expect(source).toContain('export const everythingEchoArgs = z.object(');
    expect(source).toContain(
      'export type EverythingGetSumArgs = z.input<typeof everythingGetSumArgs>;',
    );
    const module = (await import(pathToFileURL(output).href)) as {
      toolArgs: Record<string, z.ZodType>;
    };
    expect(module.toolArgs['everything_get-sum']?.safeParse({ a: 1, b: 2 }).success).toBe(true);
    expect(module.toolArgs['everything_get-sum']?.safeParse({ a: 1 }).success).toBe(false);
    await expectServerStopped();
  });
});

describe('mcp-sections CLI over streamable HTTP', () => {
  let server: EverythingHttpServer;
  const dir = path.join(repo, '.tmp', `cli-http-${randomUUID()}`);
  const config = path.join(dir, 'servers.json');

  beforeAll(async () => {
    server = await startEverythingHttp('streamableHttp');
    await mkdir(dir, { recursive: true });
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          everything: {
            type: 'http',
            url: server.url,
            headers: { Authorization: `Bearer ${HEADER_SECRET}` },
          },
        },
      }),
    );
  });

  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('inspect --json prints one JSON document for scripts', async () => {
    const run = await runCliProcess(['inspect', '--json', config]);
    expect(run.code).toBe(EXIT_CODES.ok);
    const report = JSON.parse(run.stdout) as InspectReport;
    expect(report.servers).toEqual([
      {
        name: 'everything',
        transport: `streamable-http: http://127.0.0.1:${server.port}/mcp`,
        status: 'connected',
        toolCount: 13,
      },
    ]);
    expect(report.prompt).toMatch(/^## 1\. MCP Integrations \(mcp\.integrations\)\n/);
    expect(report.tools.find((tool) => tool.name === 'everything_echo')).toMatchObject({
      server: 'everything',
      originalName: 'echo',
      arguments: [
        { name: 'message', type: 'string', required: true, description: 'Message to echo' },
      ],
      inputSchema: { type: 'object', required: ['message'] },
    });
    expect(run.stdout + run.stderr).not.toContain(HEADER_SECRET);
  });

  it('call takes ActionInput text and prints the result', async () => {
    const run = await runCliProcess([
      'call',
      '-q',
      config,
      'everything_echo',
      'message:',
      'hello',
      'world',
    ]);
    expect(run).toMatchObject({ code: EXIT_CODES.ok, stdout: 'Echo: hello world\n' });
    const sum = await runCliProcess([
      'call',
      '-q',
      config,
      'everything__get-sum',
      '{"a":2,"b":3.5}',
    ]);
    expect(sum).toMatchObject({ code: EXIT_CODES.ok, stdout: 'The sum of 2 and 3.5 is 5.5.\n' });
  });

  it('call exits 1 when the tool returns an error result', async () => {
    const run = await runCliProcess([
      'call',
      '-q',
      config,
      'everything.get-resource-reference',
      'resourceId: -1',
    ]);
    expect(run.code).toBe(EXIT_CODES.toolError);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: Invalid resourceId: -1. Must be a finite positive integer.\n');
  });
});
