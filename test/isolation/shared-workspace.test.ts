/**
 * An isolated side that writes the session's private data in a directory
 * where an unsandboxed process of the same session runs with network: the
 * fixture server's every instance posts what it finds in its workspace to
 * a sink, so one left running there would carry the data out.
 * - an isolated deployment that is a local process (stdio), beside a
 *   normal deployment that is one too, in one directory: the normal
 *   process is stopped at the switch, before the isolated one takes a
 *   call, and never started again;
 * - a sandbox in one section, the same server without isolation in another
 *   section of the session, in one directory: the sandbox does not start
 *   (the route fails closed, naming the other server), and a process
 *   without isolation does not start where a sandbox of the session wrote.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  invokeTool,
  McpHealthMonitor,
  McpIntegrationSection,
  type McpServerConfig,
  Session,
} from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { toolNamed } from '../support/mcp-fixtures.js';
import {
  type PostSink,
  startPostSink,
  WORKSPACE_READER_SERVER as SERVER,
} from '../support/post-sink.js';
import { isAlive } from '../support/processes.js';

const PRIVATE = 'PRIVATE-diagnosis-4711';
const canSandbox = process.platform === 'linux' && sandboxSupport().available;

let sink: PostSink;
let posts: readonly string[] = [];
let sinkPort = 0;
const directories: string[] = [];
const sections: McpIntegrationSection[] = [];

beforeEach(async () => {
  sink = await startPostSink();
  posts = sink.posts;
  sinkPort = sink.port;
});

afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  await sink.close();
  for (const directory of directories.splice(0))
    rmSync(directory, { recursive: true, force: true });
});

function workspace(): string {
  const made = mkdtempSync(path.join(tmpdir(), 'mcp-sections-shared-ws-'));
  directories.push(made);
  return made;
}

function notes(
  cwd: string,
  extra: Partial<McpServerConfig> = {},
  offline = false,
): McpServerConfig {
  return {
    name: 'notes',
    timeoutMs: 20_000,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [SERVER, ...(offline ? ['--offline'] : [])],
      cwd,
    },
    env: { SINK_PORT: String(sinkPort) },
    ...extra,
  };
}

function section(session: Session, key: string, servers: McpServerConfig[]): McpIntegrationSection {
  const made = new McpIntegrationSection({ session, key, servers, onConnectError: 'report' });
  sections.push(made);
  return made;
}

/** Waits long enough for any instance left running to have posted what it read (it looks every 50 ms). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 600));

describe('an isolated deployment that is a local process, in the normal one’s directory', () => {
  it('stops the normal process before the isolated one takes a call, and never starts it again', async () => {
    const cwd = workspace();
    const session = new Session();
    const notesSection = section(session, 'a', [
      notes(cwd, {
        isolation: {
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [SERVER, '--offline'],
            cwd,
          },
        },
      }),
    ]);
    await notesSection.connect();
    const normalPid = notesSection.routes[0]!.connectionAt('normal')!.pid;
    expect(normalPid).toBeGreaterThan(0);
    session.privateData.add('patients', 'confidential');
    const saved = await invokeTool(
      toolNamed(notesSection, 'notes_save'),
      { text: PRIVATE },
      { session },
    );
    expect(saved.message).toBe('saved');
    expect(isAlive(normalPid!)).toBe(false);
    // Connecting the section again opens the isolated deployment only.
    await notesSection.connect();
    expect(notesSection.routes[0]!.connectionAt('normal')!.state).toBe('closed');
    await settle();
    expect(posts).toEqual([]);
  });
});

describe('an isolated deployment that is a local process, down until after the switch', () => {
  /** An isolated deployment that fails to start while `down` exists. */
  function downWhile(down: string, cwd: string) {
    return {
      transport: {
        type: 'stdio' as const,
        command: '/bin/sh',
        args: [
          '-c',
          `test -e "${down}" && exit 1; exec "${process.execPath}" "${SERVER}" --offline`,
        ],
        cwd,
      },
    };
  }

  it('stops the normal process though the switch fails closed, and recovers only once it is gone', async () => {
    const cwd = workspace();
    const down = path.join(workspace(), 'down');
    writeFileSync(down, '');
    const session = new Session();
    const notesSection = section(session, 'a', [notes(cwd, { isolation: downWhile(down, cwd) })]);
    await notesSection.connect();
    const route = notesSection.routes[0]!;
    const normalPid = route.connectionAt('normal')!.pid!;
    session.privateData.add('patients', 'confidential');
    const refused = await invokeTool(
      toolNamed(notesSection, 'notes_save'),
      { text: PRIVATE },
      { session },
    );
    expect(refused.message).toMatch(/fail closed\): the isolated endpoint cannot be reached/);
    expect(isAlive(normalPid)).toBe(false);
    rmSync(down);
    await new McpHealthMonitor(notesSection, { timeoutMs: 10_000 }).check();
    expect(route.phase).toBe('isolated');
    const saved = await invokeTool(
      toolNamed(notesSection, 'notes_save'),
      { text: PRIVATE },
      { session },
    );
    expect(saved.message).toBe('saved');
    await settle();
    expect(posts).toEqual([]);
  });

  it('does not hang a second section that shares the normal process with the first', async () => {
    const cwd = workspace();
    const down = path.join(workspace(), 'down');
    const session = new Session();
    writeFileSync(down, '');
    const first = section(session, 'a', [notes(cwd, { isolation: downWhile(down, cwd) })]);
    await first.connect();
    rmSync(down);
    const second = section(session, 'b', [notes(cwd, { isolation: downWhile(down, cwd) })]);
    await second.connect();
    session.privateData.add('patients', 'confidential');
    const saved = await invokeTool(toolNamed(second, 'notes_save'), { text: PRIVATE }, { session });
    expect(saved.message).toBe('saved');
    await settle();
    expect(posts).toEqual([]);
  });
});

describe.runIf(canSandbox)(
  'a sandbox, and the same server without isolation in another section',
  () => {
    /**
     * Section `a` sandboxes notes in `cwd`, section `b` runs `other` without
     * isolation; the session escalates and `a` saves the private text.
     */
    async function saveBesideSandbox(cwd: string, other: McpServerConfig) {
      const session = new Session();
      const sandboxing = section(session, 'a', [notes(cwd, { isolation: {} })]);
      const beside = section(session, 'b', [other]);
      await sandboxing.connect();
      await beside.connect();
      session.privateData.add('patients', 'confidential');
      const result = await invokeTool(
        toolNamed(sandboxing, 'notes_save'),
        { text: PRIVATE },
        { session },
      );
      return { session, result };
    }

    it('fails closed while the other runs in its workspace, naming it, and nothing gets out', async () => {
      const cwd = workspace();
      const { result: refused } = await saveBesideSandbox(cwd, notes(cwd));
      expect(refused.success).toBe(false);
      expect(refused.message).toContain(
        `server "notes" (in ${JSON.stringify(cwd)}) of this session runs without isolation where the isolated side of "notes" would write`,
      );
      await settle();
      expect(posts).toEqual([]);
    });

    it('runs the sandbox beside a server without isolation that runs above its workspace', async () => {
      const parent = workspace();
      const cwd = path.join(parent, 'ws');
      mkdirSync(cwd);
      const memo = { ...notes(parent, {}, true), name: 'memo' };
      const { result: saved } = await saveBesideSandbox(cwd, memo);
      expect(saved.message).toBe('saved');
    });

    it('runs the sandbox when the other runs elsewhere, and starts no process without isolation in its workspace', async () => {
      const cwd = workspace();
      const { session, result: saved } = await saveBesideSandbox(cwd, notes(workspace()));
      expect(saved.message).toBe('saved');
      // A section connected now, without isolation, in the sandbox's workspace: not started there.
      const late = section(session, 'c', [notes(cwd)]);
      await late.connect();
      expect(late.unavailableServers.map(({ name }) => name)).toEqual(['notes']);
      expect(late.unavailableServers[0]?.reason).toContain(
        `written in ${JSON.stringify(cwd)} by the isolated side of server "notes"`,
      );
      await settle();
      expect(posts).toEqual([]);
    });
  },
);
