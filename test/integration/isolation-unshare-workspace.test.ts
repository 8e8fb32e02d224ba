/**
 * The weak `unshare --net` sandbox (`isolation.unshareFallback`) takes the
 * network away and nothing else: it writes the host's files where it
 * runs, declared `cwd` or not. So its working directory is checked like a
 * bubblewrap workspace: a server of the session without isolation that
 * runs there makes the route fail closed, and nothing gets out. With
 * `MCP_SECTIONS_BWRAP` naming a program that does not exist, the probe
 * falls back to `unshare` (vitest isolates test files: the variable and
 * the probe's cache stay here).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  invokeTool,
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

const PRIVATE = 'PRIVATE-diagnosis-4713';

// Set before the tests are collected: `runIf` below probes with it.
const emptyBin = mkdtempSync(path.join(tmpdir(), 'mcp-sections-no-bwrap-'));
process.env.MCP_SECTIONS_BWRAP = path.join(emptyBin, 'bwrap');
const workingDirectory = mkdtempSync(path.join(tmpdir(), 'mcp-sections-unshare-ws-'));
const startedIn = process.cwd();

let sink: PostSink;

beforeAll(async () => {
  // Both servers declare no `cwd`: they run where this process runs.
  process.chdir(workingDirectory);
  sink = await startPostSink();
});

afterAll(async () => {
  process.chdir(startedIn);
  delete process.env.MCP_SECTIONS_BWRAP;
  await sink.close();
  rmSync(emptyBin, { recursive: true, force: true });
  rmSync(workingDirectory, { recursive: true, force: true });
});

function notes(extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'notes',
    transport: { type: 'stdio', command: process.execPath, args: [SERVER] },
    env: { SINK_PORT: String(sink.port) },
    ...extra,
  };
}

it.runIf(sandboxSupport({ allowUnshare: true }).backend === 'unshare')(
  'fails closed while a server without isolation runs where the unshare sandbox writes',
  async () => {
    const session = new Session();
    const sandboxing = new McpIntegrationSection({
      session,
      key: 'a',
      servers: [notes({ isolation: { unshareFallback: true } })],
    });
    const plain = new McpIntegrationSection({ session, key: 'b', servers: [notes()] });
    try {
      await sandboxing.connect();
      await plain.connect();
      session.privateData.add('patients', 'confidential');
      const refused = await invokeTool(
        toolNamed(sandboxing, 'notes_save'),
        { text: PRIVATE },
        { session },
      );
      expect(refused.success).toBe(false);
      expect(refused.message).toContain(
        'runs without isolation where the isolated side of "notes"',
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(sink.posts.filter((post) => post.includes(PRIVATE))).toEqual([]);
    } finally {
      await Promise.all([sandboxing.disconnect(), plain.disconnect()]);
    }
  },
);
