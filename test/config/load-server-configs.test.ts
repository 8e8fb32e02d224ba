/**
 * Pins `loadServerConfigs`: the loader is chosen by the file's extension
 * (case-insensitive), `.json` reads `mcpServers`, `.yaml`/`.yml` read
 * `mcp_servers`, `env` feeds `${VAR}` expansion, and any other extension is
 * an McpConfigError naming the extension and what would be right.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONFIG_YAML_EXTENSIONS,
  MCP_JSON_EXTENSIONS,
  loadServerConfigs,
} from '../../src/config/load-server-configs.js';
import { McpConfigError } from '../../src/core/errors.js';
import { tempDir, type TempDir } from '../support/mcp-fixtures.js';

const EXPECTED = [
  {
    name: 'files',
    transport: { type: 'stdio', command: 'npx', args: ['-y', 'pkg-from-env'] },
    // What expansion put into args may be a token: masked like an env value.
    secrets: ['pkg-from-env'],
  },
];
const JSON_TEXT = JSON.stringify({
  mcpServers: { files: { command: 'npx', args: ['-y', '${PKG}'] } },
});
const YAML_TEXT = 'mcp_servers:\n  files:\n    command: npx\n    args: ["-y", "${PKG}"]\n';

describe('loadServerConfigs', () => {
  let dir: TempDir;

  beforeAll(async () => {
    dir = await tempDir('load-server-configs');
  });

  afterAll(async () => {
    await dir[Symbol.asyncDispose]();
  });

  async function file(name: string, text: string): Promise<string> {
    const target = path.join(dir.path, name);
    await writeFile(target, text);
    return target;
  }

  it('exports the extensions it knows, frozen', () => {
    expect(MCP_JSON_EXTENSIONS).toEqual(['.json']);
    expect(CONFIG_YAML_EXTENSIONS).toEqual(['.yaml', '.yml']);
    expect(Object.isFrozen(MCP_JSON_EXTENSIONS)).toBe(true);
    expect(Object.isFrozen(CONFIG_YAML_EXTENSIONS)).toBe(true);
  });

  it.each([
    ['servers.json', JSON_TEXT],
    ['SERVERS.JSON', JSON_TEXT],
    ['config.yaml', YAML_TEXT],
    ['config.yml', YAML_TEXT],
    ['Config.YML', YAML_TEXT],
  ])('reads %s with the loader of its extension, expanding ${VAR} from env', async (name, text) => {
    const servers = await loadServerConfigs(await file(name, text), {
      env: { PKG: 'pkg-from-env' },
    });
    expect(servers).toEqual(EXPECTED);
  });

  it('does not read mcp_servers from a .json file or mcpServers from a .yaml file', async () => {
    const yamlShapedJson = await file('swapped.json', JSON.stringify({ mcp_servers: {} }));
    const fromJson: unknown = await loadServerConfigs(yamlShapedJson, { env: {} }).catch(
      (caught: unknown) => caught,
    );
    expect(fromJson).toBeInstanceOf(McpConfigError);
    expect(String(fromJson)).toContain('mcpServers');
    const jsonInYaml = await file('swapped.yaml', JSON_TEXT);
    await expect(loadServerConfigs(jsonInYaml, { env: { PKG: 'p' } })).rejects.toMatchObject({
      name: 'McpConfigError',
      field: 'mcp_servers',
      message: `${jsonInYaml}: missing the top-level mcp_servers key`,
    });
  });

  it.each([
    ['servers.ini', '".ini"'],
    ['servers.json.bak', '".bak"'],
    ['servers', '"(no extension)"'],
  ])('refuses %s, naming the extension and the formats it reads', async (name, shown) => {
    const target = path.join(dir.path, name);
    const error: unknown = await loadServerConfigs(target).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConfigError);
    expect(error).toMatchObject({
      field: '(file)',
      code: 'mcp-config',
      message:
        `${target}: unknown config format ${shown}; use .json (an "mcpServers" object, as in .mcp.json) ` +
        'or .yaml/.yml ("mcp_servers", as in config.yaml)',
    });
  });

  it('passes the signal to the loader: an aborted signal stops the read', async () => {
    const target = await file('abort.json', JSON_TEXT);
    const controller = new AbortController();
    controller.abort();
    await expect(
      loadServerConfigs(target, { env: { PKG: 'p' }, signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});
