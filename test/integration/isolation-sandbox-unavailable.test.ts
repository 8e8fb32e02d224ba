/**
 * The fail-closed branch of the sandbox, made real on any host: with no
 * `unshare` on PATH, this worker's probe finds no way to build a network
 * namespace. (Vitest isolates test files, so the probe's cached answer does
 * not leak into other files.) On a host that really cannot sandbox,
 * `isolation-sandbox.test.ts` runs the same assertions without the trick.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { McpIsolationFailed, McpSectionIsolated, Session, ToolInvoked } from '../../src/index.js';
import { sandboxSupport } from '../../src/isolation/sandbox.js';
import { call, collect, jsonOf, probeSection } from '../fixtures/isolation/helpers.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

let savedPath: string | undefined;
let emptyBin: string;

beforeAll(async () => {
  emptyBin = await mkdtemp(path.join(tmpdir(), 'mcp-sections-no-unshare-'));
  savedPath = process.env.PATH;
  process.env.PATH = emptyBin;
});

afterAll(async () => {
  if (savedPath === undefined) delete process.env.PATH;
  else process.env.PATH = savedPath;
  await rm(emptyBin, { recursive: true, force: true });
});

it('fails closed, saying why, when unshare cannot be run', async () => {
  const support = sandboxSupport();
  expect(support.available).toBe(false);
  expect(support.reason).toMatch(/^cannot create a network namespace \(unshare --net: .*ENOENT/);

  const before = childPids();
  const workdir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-isolation-cwd-'));
  const session = new Session();
  const failed = collect(session, McpIsolationFailed);
  const isolated = collect(session, McpSectionIsolated);
  const invoked = collect(session, ToolInvoked);
  const section = probeSection(session, workdir);
  try {
    await section.connect();
    expect(jsonOf(await call(section, 'probe_write', { path: 'a.txt', content: 'x' }))).toEqual({
      written: 'a.txt',
    });

    session.privateData.add('x');

    const result = await call(section, 'probe_read', { path: 'a.txt' });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      `calls to server "probe" are refused (fail closed): this host cannot sandbox a stdio server: ${support.reason}`,
    );
    expect(invoked.at(-1)).toMatchObject({ toolName: 'probe_read', result });
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ sectionKey: 'mcp.probe', serverName: 'probe' });
    expect(failed[0]?.reason).toContain('this host cannot sandbox a stdio server');
    expect(isolated).toEqual([]);
    expect(section.isolatedServers).toEqual(['probe']);
  } finally {
    await section.disconnect();
    await rm(workdir, { recursive: true, force: true });
  }
  expect(await expectNoNewChildren(before)).toEqual([]);
});
