import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const walkthrough = fileURLToPath(
  new URL('../../examples/template/walkthrough.ts', import.meta.url),
);

function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', walkthrough], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the isolation walkthrough (npm run example:isolation)', () => {
  it('switches to the isolated template instance after the sensitive dataset, and never back', async () => {
    const before = childPids();
    const { code, stdout, stderr } = await run();
    expect(code, stderr).toBe(0);

    const steps = stdout.split('── Step ');
    expect(steps[1]).toContain('"instance":"normal"');
    expect(steps[2]).toContain('ok: Quarterly plan, draft 1');
    expect(steps[3]).toMatch(/error: query is empty/);
    expect(steps[4]).toContain('[SensitivityEscalated] public → confidential (patient_records)');
    expect(steps[4]).toContain('[McpSectionIsolated] template now uses its endpoint');
    expect(steps[4]).toContain('section isolated: true');
    // The isolated instance shares the workspace: the file written before the switch is there.
    expect(steps[5]).toContain('"instance":"isolated"');
    expect(steps[5]).toContain('ok: Quarterly plan, draft 1');
    expect(steps[6]).toMatch(
      /error: tool "template_fetch_url" is blocked: it has the "connect" permission/,
    );
    expect(await expectNoNewChildren(before)).toEqual([]);
  }, 60_000);
});
