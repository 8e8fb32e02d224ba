/**
 * No sandbox of a session starts while an unsandboxed instance of one of
 * its servers is still being stopped. Two sections of one session that
 * run the same server in the same workspace switched one after the other:
 * the first one's sandboxed server wrote what it was given to the
 * workspace while the other's unsandboxed process (pooled and still held,
 * or its own, waiting for a call in flight) was alive, read it and could
 * send it out. The fixture server outlives its stop as long as it can
 * (it ignores SIGTERM and the end of its stdin) and copies what the
 * sandbox writes, while it runs outside it, to a directory of the test.
 * The same server, asked to, starts a process of its own session when it
 * is stopped: it is ended with the server.
 */
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpIntegrationSection, Session } from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { toolNamed } from '../support/mcp-fixtures.js';

const SERVER = fileURLToPath(new URL('../fixtures/hostile/lingering-server.mjs', import.meta.url));
const canSandbox = process.platform === 'linux' && sandboxSupport().available;

const directories: string[] = [];
const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function directory(prefix: string): string {
  const made = mkdtempSync(path.join(tmpdir(), prefix));
  directories.push(made);
  return made;
}

function sectionOf(
  session: Session,
  key: string,
  workspace: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
): McpIntegrationSection {
  const section = new McpIntegrationSection({
    key,
    session,
    servers: [
      {
        name: 'lingering',
        timeoutMs,
        transport: { type: 'stdio', command: process.execPath, args: [SERVER], cwd: workspace },
        env,
        isolation: {},
      },
    ],
  });
  sections.push(section);
  return section;
}

describe.runIf(canSandbox)('a session whose sections share a sandboxed server', () => {
  it.each([
    ['pooled: one process both sections hold', false],
    ['each its own process, one with a call in flight', true],
  ])(
    'starts no sandbox while an unsandboxed instance still runs (%s)',
    async (_case, separate) => {
      const workspace = directory('mcp-overlap-ws-');
      const evidence = directory('mcp-overlap-evidence-');
      const env = { HOST_NET: readlinkSync('/proc/self/ns/net'), EVIDENCE_DIR: evidence };
      const session = new Session();
      const first = sectionOf(session, 'a', workspace, env);
      // A different env makes a different process; the same env shares the pooled one.
      const second = separate
        ? sectionOf(session, 'b', workspace, { ...env, SECOND: '1' }, 1_500)
        : sectionOf(session, 'b', workspace, env);
      await Promise.all([first.connect(), second.connect()]);
      const hung = separate
        ? invokeTool(toolNamed(second, 'lingering_hang'), {}, { session })
        : undefined;
      session.privateData.add('hr', 'confidential');
      const marker = `private-${String(Date.now())}`;
      const stashed = await invokeTool(
        toolNamed(first, 'lingering_stash'),
        { data: marker },
        { session },
      );
      expect(stashed.message).toBe('stashed in the sandbox');
      await hung;
      // An unsandboxed instance alive now polls every 10 ms: give it time to look.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(path.join(evidence, 'seen.txt'))).toBe(false);
    },
    60_000,
  );
});

describe.runIf(process.platform === 'linux')(
  'a stdio server that spawns while it is stopped',
  () => {
    it('has what it starts in a session of its own, while it shuts down, ended with it', async () => {
      const evidence = directory('mcp-late-child-');
      const section = sectionOf(new Session(), 'late', directory('mcp-late-ws-'), {
        HOST_NET: readlinkSync('/proc/self/ns/net'),
        EVIDENCE_DIR: evidence,
        SPAWN_ON_END: '1',
      });
      await section.connect();
      await section.disconnect();
      const pid = Number(readFileSync(path.join(evidence, 'child.pid'), 'utf8'));
      const alive = isAlive(pid);
      if (alive) process.kill(pid, 'SIGKILL');
      expect(alive).toBe(false);
    }, 30_000);
  },
);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is gone but not yet reaped by its new parent.
  return !readFileSync(`/proc/${String(pid)}/stat`, 'utf8').includes(') Z ');
}
