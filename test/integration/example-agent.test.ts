/**
 * `npm run example:agent` as CI runs it: no API key, so the scripted model
 * drives the real reference servers over stdio through `evaluate`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const agent = fileURLToPath(new URL('../../examples/agent.ts', import.meta.url));

function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env['OPENAI_API_KEY'];
  delete env['ANTHROPIC_API_KEY'];
  const child = spawn(process.execPath, ['--import', 'tsx', agent], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('the agent example (npm run example:agent)', () => {
  it('runs three turns against server-filesystem and server-everything with the scripted model', async () => {
    const before = childPids();
    const { code, stdout, stderr } = await run();
    expect(code, stderr).toBe(0);

    expect(stdout).toContain('[model] scripted');
    const turns = stdout.split('[model] turn ').slice(1);
    expect(turns[0]).toMatch(/^1: calls fs_list_directory, fs_read_text_file\n/);
    expect(turns[0]).toContain('[tool]  fs_list_directory: ok — [FILE] todo.md');
    expect(turns[1]).toMatch(/^2: calls fs_write_file, everything_get-sum\n/);
    expect(turns[1]).toContain('[tool]  everything_get-sum: ok — The sum of 3 and 1 is 4.');
    expect(turns[2]).toContain('[done]  3 turns, 4 tool calls, 0 tokens (scripted)');
    expect(turns[2]).toContain('[answer] {"files":["summary.md","todo.md"],"items":3,"total":4}');
    expect(turns[2]).toContain('* buy milk\n* call Ada\n* fix the roof');
    expect(await expectNoNewChildren(before)).toEqual([]);
  }, 60_000);
});
