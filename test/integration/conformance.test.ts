/**
 * The MCP conformance suite's client scenarios, run against
 * `examples/conformance-client.ts` (an McpIntegrationSection).
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformancePreloadPath, tempDir, type TempDir } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const conformanceBin = path.join(root, 'node_modules/.bin/conformance');
const tsxBin = path.join(root, 'node_modules/.bin/tsx');
const clientScript = path.join(root, 'examples/conformance-client.ts');
const SCENARIO_TIMEOUT_MS = 60_000;

interface Check {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly description?: string;
}

interface Run {
  readonly exitCode: number;
  readonly output: string;
}

function runScenario(scenario: string, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      conformanceBin,
      ['client', '--command', `${tsxBin} ${clientScript}`, '--scenario', scenario, '-o', 'results'],
      {
        cwd,
        timeout: SCENARIO_TIMEOUT_MS - 5_000,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          NODE_OPTIONS: `--import=${pathToFileURL(conformancePreloadPath).href}`,
        },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ exitCode: code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

async function readChecks(cwd: string, scenario: string): Promise<Check[]> {
  const results = path.join(cwd, 'results');
  const runs = (await readdir(results)).filter((name) => name.startsWith(`${scenario}-`));
  expect(runs).toHaveLength(1);
  const text = await readFile(path.join(results, runs[0]!, 'checks.json'), 'utf8');
  return JSON.parse(text) as Check[];
}

describe('the conformance preload', () => {
  it('binds every host-less listen form to 127.0.0.1 before listen() returns', async () => {
    const script = `
      import net from 'node:net';
      const forms = [
        (s) => s.listen(0),
        (s) => s.listen(0, () => {}),
        (s) => s.listen({ port: 0 }),
        (s) => s.listen(),
      ];
      const bound = [];
      for (const listen of forms) {
        const server = net.createServer();
        listen(server);
        bound.push(server.address()?.address ?? null);
        await new Promise((resolve) => server.close(resolve));
      }
      console.log(JSON.stringify(bound));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--import',
      pathToFileURL(conformancePreloadPath).href,
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(JSON.parse(stdout)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });
});

describe('MCP conformance suite, client scenarios', () => {
  let before: number[];
  let dir: TempDir;

  beforeAll(async () => {
    before = childPids();
    dir = await tempDir('mcp-conformance');
  });

  afterAll(async () => {
    await dir[Symbol.asyncDispose]();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it.each(['tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'])(
    '%s passes with no failed check',
    async (scenario) => {
      const cwd = dir.path;
      const run = await runScenario(scenario, cwd);
      expect(run.exitCode, run.output).toBe(0);
      const checks = await readChecks(cwd, scenario);
      const failures = checks.filter((check) => check.status === 'FAILURE');
      expect(failures, run.output).toEqual([]);
      expect(checks.filter((check) => check.status === 'SUCCESS').length).toBeGreaterThan(0);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
