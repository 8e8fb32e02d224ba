/**
 * Pins `createMcpServer`: the `serverInfo` and instructions a real client
 * sees, the settings `toolkitSettingsOf` returns (normalised, frozen), and
 * the refusal of empty names, relative directories and directories that
 * contain one another, lexically or through a symlink.
 */
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_SERVER_VERSION,
  createMcpServer,
  toolkitSettingsOf,
} from '../../src/server/create-server.js';
import { ServerOptionsError } from '../../src/server/errors.js';

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'create-server-test-')));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

const dirs = () => ({
  workspaceRoot: path.join(root, 'ws'),
  privateDataDir: path.join(root, 'pd'),
});

function refusal(fn: () => unknown): [string, string] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ServerOptionsError);
    return [(error as ServerOptionsError).option, (error as Error).message];
  }
  throw new Error('expected a ServerOptionsError');
}

async function connect(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

describe('createMcpServer', () => {
  it('reports name, default version and no title to a client', async () => {
    expect(DEFAULT_SERVER_VERSION).toBe('1.0.0');
    const server = createMcpServer('tpl', dirs());
    const client = await connect(server);
    expect(client.getServerVersion()).toEqual({ name: 'tpl', version: '1.0.0' });
    expect(client.getInstructions()).toBeUndefined();
    await client.close();
    await server.close();
  });

  it('reports version, title and instructions when given', async () => {
    const server = createMcpServer('tpl', {
      ...dirs(),
      version: '2.3.4',
      title: 'Template',
      instructions: 'Use the tools.',
      serverOptions: { instructions: 'overridden', capabilities: { logging: {} } },
    });
    const client = await connect(server);
    expect(client.getServerVersion()).toEqual({ name: 'tpl', version: '2.3.4', title: 'Template' });
    expect(client.getInstructions()).toBe('Use the tools.');
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.close();
    await server.close();
  });

  it('keeps normalised, frozen settings per server', () => {
    const onToolError = vi.fn();
    const server = createMcpServer('a', {
      workspaceRoot: `${root}/x/../ws/`,
      privateDataDir: `${root}//pd`,
      onToolError,
    });
    const settings = toolkitSettingsOf(server);
    expect(settings).toEqual({
      workspaceRoot: path.join(root, 'ws'),
      privateDataDir: path.join(root, 'pd'),
      onToolError,
    });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(toolkitSettingsOf(createMcpServer('b', dirs()))).not.toBe(settings);
  });

  it('logs unclassified tool errors to console.error by default', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const boom = new Error('boom');
    toolkitSettingsOf(createMcpServer('a', dirs())).onToolError(boom, 'search');
    expect(spy).toHaveBeenCalledExactlyOnceWith('[mcp-sections] tool "search" failed:', boom);
  });

  it('refuses a server made another way', () => {
    expect(refusal(() => toolkitSettingsOf(new McpServer({ name: 'x', version: '1' })))).toEqual([
      'server',
      'defineTool() needs a server made by createMcpServer(), which knows the workspace and private-data directories',
    ]);
  });

  it.each([
    ['', 'server name must be a non-empty string, got ""'],
    ['  ', 'server name must be a non-empty string, got "  "'],
    [undefined, 'server name must be a non-empty string, got undefined'],
  ])('refuses the name %j', (name, message) => {
    expect(refusal(() => createMcpServer(name as string, dirs()))).toEqual(['name', message]);
  });

  it('refuses relative or missing directories', () => {
    expect(refusal(() => createMcpServer('a', { ...dirs(), workspaceRoot: 'ws' }))).toEqual([
      'workspaceRoot',
      'workspaceRoot must be an absolute directory path, got "ws"',
    ]);
    expect(
      refusal(() =>
        createMcpServer('a', { ...dirs(), privateDataDir: undefined as unknown as string }),
      ),
    ).toEqual([
      'privateDataDir',
      'privateDataDir must be an absolute directory path, got undefined',
    ]);
  });

  it('refuses directories inside one another, or equal, but not siblings sharing a prefix', () => {
    const ws = path.join(root, 'ws');
    const message = (pd: string, w: string) =>
      `privateDataDir ${JSON.stringify(pd)} and workspaceRoot ${JSON.stringify(w)} ` +
      'must not contain one another: the agent could then edit its own private-data state';
    for (const pd of [path.join(ws, 'pd'), ws, root]) {
      expect(
        refusal(() => createMcpServer('a', { workspaceRoot: ws, privateDataDir: pd })),
      ).toEqual(['privateDataDir', message(pd, ws)]);
    }
    expect(() =>
      createMcpServer('a', { workspaceRoot: ws, privateDataDir: `${ws}-private` }),
    ).not.toThrow();
    expect(() =>
      createMcpServer('a', { workspaceRoot: ws, privateDataDir: path.join(root, '..pd') }),
    ).not.toThrow();
  });

  it('refuses an existing private-data directory reached through a symlink into the workspace', async () => {
    const ws = path.join(root, 'ws');
    await mkdir(path.join(ws, 'pd'), { recursive: true });
    await symlink(path.join(ws, 'pd'), path.join(root, 'link'));
    expect(
      refusal(() =>
        createMcpServer('a', { workspaceRoot: ws, privateDataDir: path.join(root, 'link') }),
      )[0],
    ).toBe('privateDataDir');
  });

  // The directory is created later (mkdir -p): a symlink above it must not hide where it will be.
  it('refuses a not-yet-created private-data directory under a symlink into the workspace', async () => {
    const ws = path.join(root, 'ws');
    await mkdir(ws, { recursive: true });
    await symlink(ws, path.join(root, 'link'));
    expect(() =>
      createMcpServer('a', { workspaceRoot: ws, privateDataDir: path.join(root, 'link', 'pd') }),
    ).toThrow(ServerOptionsError);
  });
});
