import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  McpError as SdkMcpError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  createMcpServer,
  defineTool,
  PRIVATE_DATA_META_KEY,
  privateData,
  runWithIdentity,
  ServerOptionsError,
  TOOL_PERMISSIONS_META_KEY,
  ToolFatalError,
  ToolRetryError,
  workspaceToHostPath,
  type Identity,
} from '../../src/server/index.js';
import { call, makeTempDirs, textOf, type TempDirs } from './helpers.js';

let dirs: TempDirs;
let toolErrors: { error: unknown; tool: string }[];
let server: McpServer;
let client: Client;
const connectRuns = { count: 0 };

const alice: Identity = { userId: 'alice', sessionId: 's1' };

beforeEach(async () => {
  dirs = await makeTempDirs();
  toolErrors = [];
  connectRuns.count = 0;
  server = createMcpServer('unit', {
    workspaceRoot: dirs.workspaceRoot,
    privateDataDir: dirs.privateDataDir,
    onToolError: (error, tool) => toolErrors.push({ error, tool }),
  });
  defineTool(server, {
    name: 'reader',
    description: 'Reads',
    permissions: ['read'],
    handler: () => 'read ok',
  });
  defineTool(server, {
    name: 'writer',
    description: 'Writes',
    permissions: ['read', 'write', 'read'],
    annotations: { destructiveHint: false },
    handler: () => 'write ok',
  });
  defineTool(server, {
    name: 'sender',
    description: 'Sends data out',
    permissions: ['connect'],
    handler: () => {
      connectRuns.count++;
      return 'sent';
    },
  });
  defineTool(server, {
    name: 'flag',
    description: 'Flags the session',
    permissions: ['read'],
    inputSchema: {
      datasets: z.array(
        z.object({
          name: z.string(),
          level: z.enum(['public', 'internal', 'confidential', 'secret']),
        }),
      ),
      fail: z.boolean().default(false),
    },
    handler: async ({ datasets, fail }) => {
      for (const { name, level } of datasets) await privateData.add(name, level);
      if (fail) throw new ToolRetryError('failed after reading');
      return 'flagged';
    },
  });
  defineTool(server, {
    name: 'fails',
    description: 'Fails in a chosen way',
    permissions: ['read'],
    inputSchema: { how: z.enum(['retry', 'fatal', 'bug', 'path']) },
    handler: async ({ how }) => {
      if (how === 'retry') throw new ToolRetryError('query is empty; give a search term');
      if (how === 'fatal') throw new ToolFatalError('database unreachable');
      if (how === 'path') await workspaceToHostPath('/etc/passwd');
      throw new Error(`ENOENT: no such file, open '${dirs.workspaceRoot}/alice/s1/x'`);
    },
  });
  defineTool(server, {
    name: 'sdk_error',
    description: 'Throws an SDK McpError, after reading private data or not',
    permissions: ['read'],
    inputSchema: { url: z.boolean().default(false), flag: z.boolean().default(false) },
    handler: async ({ url, flag }) => {
      if (flag) await privateData.add('patient_records', 'confidential');
      if (url) {
        throw new UrlElicitationRequiredError(
          [{ mode: 'url', message: 'Sign in', url: 'https://example.test/x', elicitationId: 'e1' }],
          'sign in first',
        );
      }
      throw new SdkMcpError(
        ErrorCode.InternalError,
        `cannot summarise rows of ${dirs.workspaceRoot}/alice: P-001 hypertension`,
      );
    },
  });
  defineTool(server, {
    name: 'spoof',
    description: 'Fails with a message that starts like a fatal one',
    permissions: ['read'],
    inputSchema: { how: z.enum(['retry', 'lower', 'returned', 'resource', 'fatal']) },
    handler: ({ how }) => {
      if (how === 'retry') throw new ToolRetryError('[FATAL] notes is a directory, not a file');
      if (how === 'lower') throw new ToolRetryError(' \n[fatal] notes is a directory');
      if (how === 'fatal') throw new ToolFatalError('disk gone');
      if (how === 'resource') {
        return {
          isError: true,
          content: [
            { type: 'resource', resource: { uri: 'file:///x', text: '[FATAL] x is a directory' } },
          ],
        };
      }
      return { isError: true, content: [{ type: 'text', text: '[FATAL] x is a directory' }] };
    },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'unit', version: '1.0.0' });
  await client.connect(clientSide);
});

afterEach(async () => {
  await client.close();
  await server.close();
  await dirs.remove();
});

/** Calls a tool as `identity` (in-process: through the async context). */
function callAs(identity: Identity, name: string, args: Record<string, unknown> = {}) {
  return runWithIdentity(identity, () => call(client, name, args));
}

describe('defineTool', () => {
  it('publishes permissions as annotations and _meta', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName['reader']?.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(byName['writer']?.annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: false,
      destructiveHint: false,
    });
    expect(byName['sender']?.annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: true,
    });
    expect(byName['writer']?._meta?.[TOOL_PERMISSIONS_META_KEY]).toEqual(['read', 'write']);
    expect(byName['sender']?._meta?.[TOOL_PERMISSIONS_META_KEY]).toEqual(['connect']);
  });

  it('turns ToolRetryError into an isError result with its message', async () => {
    const result = await callAs(alice, 'fails', { how: 'retry' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('query is empty; give a search term');
    expect(toolErrors).toEqual([]);
  });

  it('turns ToolFatalError into an isError result prefixed [FATAL]', async () => {
    const result = await callAs(alice, 'fails', { how: 'fatal' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('[FATAL] database unreachable');
  });

  it('reports a bad workspace path to the model as retryable', async () => {
    const result = await callAs(alice, 'fails', { how: 'path' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"/etc/passwd" is not under /workspace');
  });

  it('hides unclassified errors (host paths) from the model and logs them', async () => {
    const result = await callAs(alice, 'fails', { how: 'bug' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Tool "fails" failed with an internal error; the details are in the server log.',
    );
    expect(textOf(result)).not.toContain(dirs.workspaceRoot);
    expect(toolErrors).toHaveLength(1);
    expect(toolErrors[0]?.tool).toBe('fails');
  });

  it('puts the strongest private-data marker on the result', async () => {
    const result = await callAs(alice, 'flag', {
      datasets: [
        { name: 'hr', level: 'internal' },
        { name: 'patients', level: 'secret' },
        { name: 'notes', level: 'confidential' },
      ],
    });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
      dataset: 'patients',
      sensitivity: 'secret',
    });
  });

  it('keeps the marker on a result that failed after reading private data', async () => {
    const result = await callAs(alice, 'flag', {
      datasets: [{ name: 'patients', level: 'confidential' }],
      fail: true,
    });
    expect(result.isError).toBe(true);
    expect(result._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
      dataset: 'patients',
      sensitivity: 'confidential',
    });
  });

  it('treats an SDK McpError thrown after reading private data like any error, with the marker', async () => {
    const result = await callAs(alice, 'sdk_error', { flag: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Tool "sdk_error" failed with an internal error; the details are in the server log.',
    );
    expect(result._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
      dataset: 'patient_records',
      sensitivity: 'confidential',
    });
    expect(toolErrors.map((e) => e.tool)).toEqual(['sdk_error']);
  });

  it('hides the text of an SDK McpError without private data too', async () => {
    const result = await callAs(alice, 'sdk_error');
    expect(result.isError).toBe(true);
    expect(textOf(result)).not.toContain('hypertension');
    expect(textOf(result)).not.toContain(dirs.workspaceRoot);
    expect(result._meta?.[PRIVATE_DATA_META_KEY]).toBeUndefined();
  });

  it('leaves a URL-elicitation request to the SDK, unless private data entered first', async () => {
    const error = await callAs(alice, 'sdk_error', { url: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkMcpError);
    expect((error as SdkMcpError).code).toBe(ErrorCode.UrlElicitationRequired);

    const result = await callAs(alice, 'sdk_error', { url: true, flag: true });
    expect(result.isError).toBe(true);
    expect(result._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
      dataset: 'patient_records',
      sensitivity: 'confidential',
    });
  });

  it('never lets a retryable message start with [FATAL]', async () => {
    const retry = await callAs(alice, 'spoof', { how: 'retry' });
    expect(retry.isError).toBe(true);
    expect(textOf(retry)).toBe('Error: [FATAL] notes is a directory, not a file');
    expect(textOf(await callAs(alice, 'spoof', { how: 'lower' }))).toBe(
      'Error:  \n[fatal] notes is a directory',
    );
    expect(textOf(await callAs(alice, 'spoof', { how: 'returned' }))).toBe(
      'Error: [FATAL] x is a directory',
    );
    const resource = await callAs(alice, 'spoof', { how: 'resource' });
    expect(resource.content[0]).toEqual({ type: 'text', text: 'Error:' });
    expect(resource.content).toHaveLength(2);
    // A real ToolFatalError keeps its prefix.
    expect(textOf(await callAs(alice, 'spoof', { how: 'fatal' }))).toBe('[FATAL] disk gone');
  });

  it('refuses a connect tool once the session holds private data, without running it', async () => {
    expect(textOf(await callAs(alice, 'sender'))).toBe('sent');
    expect(connectRuns.count).toBe(1);

    await callAs(alice, 'flag', { datasets: [{ name: 'patients', level: 'confidential' }] });
    const refused = await callAs(alice, 'sender');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('this session holds private data (confidential: patients)');
    expect(refused._meta?.[PRIVATE_DATA_META_KEY]).toEqual({
      dataset: 'patients',
      sensitivity: 'confidential',
    });
    expect(connectRuns.count).toBe(1);

    // Another session of the same user is not affected.
    expect(textOf(await callAs({ userId: 'alice', sessionId: 's2' }, 'sender'))).toBe('sent');
    expect(connectRuns.count).toBe(2);
  });

  it('fails closed: a connect tool without a known caller is refused', async () => {
    const refused = await call(client, 'sender');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("the caller's session is unknown");
    expect(connectRuns.count).toBe(0);
  });

  it('fails closed when the private-data state is unreadable', async () => {
    await callAs(alice, 'flag', { datasets: [{ name: 'patients', level: 'confidential' }] });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(dirs.privateDataDir, 'alice', 's1', '.private_data'), '{ broken');
    const refused = await callAs(alice, 'sender');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('private-data state cannot be read');
    expect(connectRuns.count).toBe(0);
    expect(toolErrors).toHaveLength(1);
  });

  it('writes the state outside the workspace', async () => {
    await callAs(alice, 'flag', { datasets: [{ name: 'patients', level: 'confidential' }] });
    const file = path.join(dirs.privateDataDir, 'alice', 's1', '.private_data');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      has_private_data: true,
      private_datasets: ['patients'],
      sensitivity: 'confidential',
    });
    expect(path.relative(dirs.workspaceRoot, file).startsWith('..')).toBe(true);
  });
});

describe('defineTool and createMcpServer validation', () => {
  it('names a bad permission, its position and the tool', () => {
    const error = (() => {
      try {
        defineTool(server, {
          name: 'bad',
          description: 'Bad',
          permissions: ['read', 'exec' as 'read'],
          handler: () => '',
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ServerOptionsError);
    expect((error as Error).message).toBe(
      'permissions[1] of tool "bad" must be one of read, write, connect; got "exec"',
    );
  });

  it('requires at least one permission, a valid name and a description', () => {
    expect(() =>
      defineTool(server, { name: 'none', description: 'd', permissions: [], handler: () => '' }),
    ).toThrow(/must declare its permissions as a non-empty list/);
    expect(() =>
      defineTool(server, {
        name: 'has space',
        description: 'd',
        permissions: ['read'],
        handler: () => '',
      }),
    ).toThrow(/tool name "has space" must match/);
    expect(() =>
      defineTool(server, {
        name: 'blank',
        description: '  ',
        permissions: ['read'],
        handler: () => '',
      }),
    ).toThrow(/needs a non-blank description/);
  });

  it('needs a server made by createMcpServer', () => {
    const plain = new McpServer({ name: 'plain', version: '1' });
    expect(() =>
      defineTool(plain, { name: 'x', description: 'd', permissions: ['read'], handler: () => '' }),
    ).toThrow(/needs a server made by createMcpServer/);
  });

  it('refuses overlapping workspace and private-data directories', () => {
    expect(() =>
      createMcpServer('x', {
        workspaceRoot: dirs.workspaceRoot,
        privateDataDir: path.join(dirs.workspaceRoot, 'private'),
      }),
    ).toThrow(/must not contain one another/);
    expect(() =>
      createMcpServer('x', { workspaceRoot: 'relative', privateDataDir: dirs.privateDataDir }),
    ).toThrow('workspaceRoot must be an absolute directory path, got "relative"');
  });
});
