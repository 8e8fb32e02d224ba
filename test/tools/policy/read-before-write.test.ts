/**
 * readBeforeWrite with native file tools on a real temporary directory:
 * new files may be created, existing ones only once read, paths compare
 * resolved, and what was read survives in a persistent slice. The same
 * policy against the reference file-system server over stdio is in
 * test/integration/tool-policies.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FileSessionStore,
  PromptValidationError,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  readBeforeWrite,
  type ReadBeforeWriteOptions,
  type ToolPolicy,
} from '../../../src/index.js';
import { tempDir, type TempDir } from '../../support/mcp-fixtures.js';

let dir: TempDir;

beforeEach(async () => {
  dir = await tempDir('read-before-write');
  await writeFile(path.join(dir.path, 'config.yaml'), 'mode: safe\n');
});

afterEach(async () => {
  await dir[Symbol.asyncDispose]();
});

const readTool = Tool.create({
  name: 'read_file',
  description: 'Reads a file',
  params: z.object({ path: z.string() }),
  handler: async ({ path: file }) => {
    try {
      return ToolResult.ok(await readFile(path.resolve(dir.path, file), 'utf8'));
    } catch (error) {
      return ToolResult.error(error instanceof Error ? error.message : String(error));
    }
  },
});

const writeTool = Tool.create({
  name: 'write_file',
  description: 'Writes a file',
  params: z.object({ path: z.string(), content: z.string() }),
  handler: async ({ path: file, content }) => {
    await writeFile(path.resolve(dir.path, file), content);
    return ToolResult.ok('written');
  },
});

function policy(options: ReadBeforeWriteOptions = {}): ToolPolicy {
  return readBeforeWrite({ root: dir.path, ...options });
}

async function write(session: Session, policies: ToolPolicy[], file: string): Promise<ToolResult> {
  return invokeTool(writeTool, { path: file, content: 'mode: fast\n' }, { session, policies });
}

describe('readBeforeWrite', () => {
  it('refuses to overwrite a file that was not read, and allows it after a read', async () => {
    const session = new Session();
    const policies = [policy()];

    const refused = await write(session, policies, 'config.yaml');
    expect(refused.message).toBe(
      'tool "write_file" was denied by policy "read-before-write": file "config.yaml" exists and has not been read in this session; read it first (read_file or read_text_file or read_multiple_files)',
    );
    expect(await readFile(path.join(dir.path, 'config.yaml'), 'utf8')).toBe('mode: safe\n');

    expect(
      (await invokeTool(readTool, { path: 'config.yaml' }, { session, policies })).success,
    ).toBe(true);
    // Read by a relative path, written by the absolute one: the same file.
    expect((await write(session, policies, path.join(dir.path, 'config.yaml'))).success).toBe(true);
    expect(await readFile(path.join(dir.path, 'config.yaml'), 'utf8')).toBe('mode: fast\n');
  });

  it('lets a new file be created, and edited again after that without a read', async () => {
    const session = new Session();
    const policies = [policy()];
    expect((await write(session, policies, 'new.txt')).success).toBe(true);
    expect((await write(session, policies, './new.txt')).success).toBe(true);
  });

  it('a failed read counts for nothing', async () => {
    const session = new Session();
    const policies = [policy()];
    const failing = Tool.create({
      name: 'read_text_file',
      description: 'Reads, and fails',
      params: z.object({ path: z.string() }),
      handler: () => ToolResult.error('permission denied'),
    });
    await invokeTool(failing, { path: 'config.yaml' }, { session, policies });
    expect((await write(session, policies, 'config.yaml')).success).toBe(false);
  });

  it('keeps a read made by a successful call when a failing caller of another read of the same file is rolled back', async () => {
    const session = new Session();
    const policies = [policy()];
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // An agent step reads the file (recorded, inside the step's call), then fails.
    const step = Tool.create({
      name: 'step',
      description: 'Reads config.yaml, then fails',
      params: z.object({}),
      handler: async (_params, context) => {
        await invokeTool(readTool, { path: 'config.yaml' }, { session: context.session, policies });
        await released;
        return ToolResult.error('the step failed');
      },
    });
    const failing = invokeTool(step, {}, { session });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Meanwhile the model reads the same file itself, and that call succeeds.
    expect(
      (await invokeTool(readTool, { path: 'config.yaml' }, { session, policies })).success,
    ).toBe(true);
    release();
    expect((await failing).success).toBe(false);
    // The successful read still counts: the write is allowed.
    expect((await write(session, policies, 'config.yaml')).success).toBe(true);
  });

  it('refuses a write call with none of the path arguments', async () => {
    const session = new Session();
    const oddWriter = Tool.create({
      name: 'write_file',
      description: 'Writes a file named differently',
      params: z.object({ target: z.string() }),
      handler: () => ToolResult.ok('written'),
    });
    const result = await invokeTool(
      oddWriter,
      { target: 'config.yaml' },
      { session, policies: [policy()] },
    );
    expect(result.message).toBe(
      'tool "write_file" was denied by policy "read-before-write": tool "write_file" writes files, but the call has none of the path arguments path, paths, file_path',
    );
  });

  it('asks `exists` when given; a throwing one denies', async () => {
    const session = new Session();
    const asked: string[] = [];
    const remote = policy({
      exists: (file) => {
        asked.push(file);
        return false;
      },
    });
    expect((await write(session, [remote], 'config.yaml')).success).toBe(true);
    expect(asked).toEqual([path.join(dir.path, 'config.yaml')]);
    const broken = policy({
      exists: () => {
        throw new Error('remote stat failed');
      },
    });
    expect((await write(session, [broken], 'other.yaml')).message).toBe(
      'tool "write_file" was denied by policy "read-before-write": the policy failed: remote stat failed',
    );
  });

  it('keeps what was read in the store: a resumed session may write at once', async () => {
    await using storeDir = await tempDir('read-before-write-store');
    const store = new FileSessionStore({ directory: storeDir.path });
    const first = await Session.open({ sessionId: 'conv-1', store });
    await invokeTool(readTool, { path: 'config.yaml' }, { session: first, policies: [policy()] });
    await first.flush();

    const resumed = await Session.open({ sessionId: 'conv-1', store });
    expect((await write(resumed, [policy()], 'config.yaml')).success).toBe(true);
    const stranger = await Session.open({ sessionId: 'conv-2', store });
    expect((await write(stranger, [policy()], 'config.yaml')).success).toBe(false);
  });

  it("counts an MCP server's read for that server's files only", async () => {
    const on = (server: string, tool: Tool): Tool =>
      Tool.create({
        name: `${server}_${tool.name}`,
        description: tool.description,
        params: tool.params,
        handler: tool.handler,
        origin: { kind: 'mcp', server, originalName: tool.name },
      });
    const session = new Session();
    const policies = [policy()];
    const args = { path: 'config.yaml' };
    // A second server that merely lists a read_file cannot vouch for the file server's files.
    expect((await invokeTool(on('evil', readTool), args, { session, policies })).success).toBe(
      true,
    );
    const refused = await invokeTool(
      on('fs', writeTool),
      { ...args, content: 'x' },
      { session, policies },
    );
    expect(refused.message).toMatch(/file "config.yaml" exists and has not been read/);
    expect((await invokeTool(on('fs', readTool), args, { session, policies })).success).toBe(true);
    const written = await invokeTool(
      on('fs', writeTool),
      { ...args, content: 'x' },
      { session, policies },
    );
    expect(written.success).toBe(true);
  });

  it('keeps each policy name’s paths apart', async () => {
    const session = new Session();
    await invokeTool(
      readTool,
      { path: 'config.yaml' },
      { session, policies: [policy({ name: 'docs' })] },
    );
    expect((await write(session, [policy({ name: 'code' })], 'config.yaml')).success).toBe(false);
    expect((await write(session, [policy({ name: 'docs' })], 'config.yaml')).success).toBe(true);
  });

  it.each<[string, ReadBeforeWriteOptions, string]>([
    ['a bad name', { name: 'Read First' }, 'readBeforeWrite: name "Read First" must match'],
    [
      'an empty tool name',
      { writeTools: ['write_file', ''] },
      'readBeforeWrite "read-before-write": writeTools[1] must be a tool name (a non-empty string), received ""',
    ],
    [
      'path arguments that are not a list',
      { pathArguments: 'path' as never },
      'readBeforeWrite "read-before-write": pathArguments must be an array of argument names, received string',
    ],
    [
      'an empty root',
      { root: '' },
      'readBeforeWrite "read-before-write": root must be a directory path, received ""',
    ],
    [
      'exists that is not a function',
      { exists: true as never },
      'readBeforeWrite "read-before-write": exists must be a function of the path, received boolean',
    ],
  ])('refuses %s', (_label, options, message) => {
    expect(() => readBeforeWrite(options)).toThrow(PromptValidationError);
    expect(() => readBeforeWrite(options)).toThrow(message);
  });
});
