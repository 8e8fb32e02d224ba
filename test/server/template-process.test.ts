import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  connectClient,
  makeTempDirs,
  SECRET,
  textOf,
  tokenFor,
  type TempDirs,
} from './helpers.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = 'examples/template/server.ts';

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await makeTempDirs();
});
afterEach(async () => {
  await dirs.remove();
});

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Runs the entry point in one Node process (tsx as a loader, no wrapper process). */
function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: repoRoot,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, output: () => output, exited };
}

async function listeningUrl(started: Started): Promise<string> {
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(started.output());
    if (match?.[1] !== undefined) return match[1];
    if (started.child.exitCode !== null)
      throw new Error(`server exited early: ${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('examples/template/server.ts', () => {
  it('starts from the environment, answers as its instance and stops on SIGTERM', async () => {
    const started = start({
      PORT: '0',
      INSTANCE: 'isolated',
      JWT_SECRET: SECRET,
      WORKSPACE_ROOT: dirs.workspaceRoot,
      PRIVATE_DATA_DIR: dirs.privateDataDir,
    });
    try {
      const url = await listeningUrl(started);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = await connectClient(url, await tokenFor('alice', 's1'));
      try {
        expect(JSON.parse(textOf(await call(client, 'whoami')))).toEqual({
          instance: 'isolated',
          userId: 'alice',
          sessionId: 's1',
        });
      } finally {
        await client.close();
      }
      started.child.kill('SIGTERM');
      const [code] = await started.exited;
      expect(code).toBe(0);
      expect(started.output()).not.toContain(SECRET);
    } finally {
      if (started.child.exitCode === null && started.child.signalCode === null) {
        started.child.kill('SIGKILL');
        await started.exited;
      }
    }
  });

  it('refuses to start without JWT_SECRET, naming the variable', async () => {
    const started = start({
      PORT: '0',
      WORKSPACE_ROOT: dirs.workspaceRoot,
      PRIVATE_DATA_DIR: dirs.privateDataDir,
    });
    try {
      const [code] = await started.exited;
      expect(code).toBe(2);
      expect(started.output()).toContain('environment variable JWT_SECRET is required');
    } finally {
      if (started.child.exitCode === null) started.child.kill('SIGKILL');
    }
  });
});
