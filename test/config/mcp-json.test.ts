import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConfigError } from '../../src/core/errors.js';
import { loadMcpConfig } from '../../src/config/config-yaml.js';
import { loadServerConfigs } from '../../src/config/load-server-configs.js';
import { loadMcpJson, normalizeServerName } from '../../src/config/mcp-json.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-json-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function loadError(
  source: object,
  env: Record<string, string> = {},
): Promise<McpConfigError> {
  const error = await loadMcpJson(source, { env }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpConfigError);
  return error as McpConfigError;
}

describe('loadMcpJson', () => {
  it('reads stdio and HTTP entries of an mcpServers file into McpServerConfig', async () => {
    const file = path.join(dir, '.mcp.json');
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: {
          everything: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-everything'],
            env: { API_KEY: '${KEY}', LEVEL: 3 },
            cwd: '/srv',
          },
          remote: {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer ${TOKEN}' },
          },
          legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
          untyped: { url: 'http://127.0.0.1:9/mcp', autoApprove: ['echo'], timeout: 60 },
          off: { command: 'nothing', disabled: true },
        },
      }),
    );
    const servers = await loadMcpJson(file, { env: { KEY: 'k-1', TOKEN: 't-2' } });
    expect(servers).toStrictEqual([
      {
        name: 'everything',
        transport: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-everything'],
          cwd: '/srv',
        },
        env: { API_KEY: 'k-1', LEVEL: '3' },
      },
      {
        name: 'remote',
        transport: {
          type: 'streamable-http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer t-2' },
        },
        // What expansion put into a header is a secret of its own (a part of a header value).
        secrets: ['t-2'],
      },
      { name: 'legacy', transport: { type: 'sse', url: 'http://127.0.0.1:9/sse' } },
      { name: 'untyped', transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' } },
    ]);
  });

  it('loads the same servers as config.yaml does, through loadServerConfigs', async () => {
    const env = { TOKEN: 'tok-9', SECRET: 's3' };
    const json = path.join(dir, 'servers.json');
    const yaml = path.join(dir, 'config.yaml');
    await writeFile(
      json,
      JSON.stringify({
        mcpServers: {
          files: {
            command: 'node',
            args: ['server.js', '--root', '/data'],
            env: { SECRET: '${SECRET}' },
            cwd: '/work',
          },
          template: {
            type: 'http',
            url: 'http://localhost:8000/mcp',
            headers: { Authorization: 'Bearer ${TOKEN}' },
          },
        },
      }),
    );
    await writeFile(
      yaml,
      [
        'mcp_servers:',
        '  files:',
        '    command: node',
        '    args: [server.js, --root, /data]',
        '    env: { SECRET: "${SECRET}" }',
        '    cwd: /work',
        '  template:',
        '    url: http://localhost:8000/mcp',
        '    headers: { Authorization: "Bearer ${TOKEN}" }',
        '',
      ].join('\n'),
    );
    const fromJson = await loadServerConfigs(json, { env });
    const fromYaml = await loadServerConfigs(yaml, { env });
    expect(fromJson).toStrictEqual(fromYaml);
    expect(fromYaml).toStrictEqual(await loadMcpConfig(yaml, { env, dotenv: false }));
    expect(fromJson.map((server) => server.name)).toEqual(['files', 'template']);
  });

  it('refuses other config extensions, naming the ones it reads', async () => {
    const error = await loadServerConfigs(path.join(dir, 'servers.toml')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as Error).message).toContain('use .json');
  });

  it("refuses a misspelt key, a disabled flag that is not a boolean, and the library's own keys", async () => {
    const entry = (extra: Record<string, unknown>) => ({
      mcpServers: { s: { command: 'x', ...extra } },
    });
    for (const [extra, field, text] of [
      [{ arg: ['a'] }, 'mcpServers.s.arg', 'is not a key of an entry; did you mean args?'],
      [{ evn: {} }, 'mcpServers.s.evn', 'did you mean env?'],
      [{ Headers: {} }, 'mcpServers.s.Headers', 'did you mean headers?'],
      [{ disabled: 'true' }, 'mcpServers.s.disabled', 'must be true or false; got "true"'],
      [{ isolation: {} }, 'mcpServers.s.isolation', 'is not read from an MCP client config'],
      [
        { timeoutMs: 5 },
        'mcpServers.s.timeoutMs',
        "give the server its timeoutMs in the library's own config",
      ],
    ] as const) {
      const error = await loadError(entry(extra));
      expect(error.field).toBe(field);
      expect(error.message).toContain(text);
    }
    // Other clients' keys pass, VS Code's `dev` (one letter from `env`) too.
    const servers = await loadMcpJson(
      entry({
        autoApprove: ['x'],
        timeout: 60,
        envFile: '.env',
        dev: { watch: '**' },
        disabled: false,
      }),
    );
    expect(servers.map((server) => server.name)).toEqual(['s']);
  });

  it('normalises server keys deterministically, or rejects them with names: strict', async () => {
    const servers = await loadMcpJson({
      mcpServers: {
        GitHub: { url: 'https://example.com/mcp' },
        'brave search': { command: 'brave' },
        '@acme/tools.v2': { command: 'acme' },
        ok_name: { command: 'ok' },
      },
    });
    expect(servers.map((server) => server.name)).toEqual([
      'github',
      'brave_search',
      'acme_tools_v2',
      'ok_name',
    ]);
    expect(normalizeServerName('Café Über')).toBe('cafe_uber');
    expect(normalizeServerName('x'.repeat(40))).toBe('x'.repeat(32));
    expect(normalizeServerName('42')).toBeUndefined();

    const strict = await loadMcpJson(
      { mcpServers: { GitHub: { command: 'gh' } } },
      { names: 'strict' },
    ).catch((e: unknown) => e);
    expect(strict).toBeInstanceOf(McpConfigError);
    expect((strict as McpConfigError).field).toBe('mcpServers.GitHub');
    expect((strict as Error).message).toContain('"GitHub" must match');
  });

  it("reads VS Code's servers object, with ${env:VAR}", async () => {
    const servers = await loadMcpJson(
      {
        inputs: [],
        servers: {
          files: { type: 'stdio', command: 'node', args: ['${env:ROOT}'], envFile: '.env' },
        },
      },
      { env: { ROOT: '/data' } },
    );
    expect(servers).toStrictEqual([
      {
        name: 'files',
        transport: { type: 'stdio', command: 'node', args: ['/data'] },
        secrets: ['/data'],
      },
    ]);
  });

  it('rejects two keys that normalise to one name, naming both', async () => {
    const error = await loadError({
      mcpServers: { GitHub: { command: 'a' }, github: { command: 'b' } },
    });
    expect(error.message).toContain(
      'mcpServers.github and mcpServers.GitHub both become server name "github"',
    );
  });

  it.each([
    [
      { mcpServers: { a: { args: [] } } },
      'mcpServers.a',
      'needs "command" (stdio) or "url" (HTTP)',
    ],
    [{ mcpServers: { a: { command: 'x', url: 'http://h/' } } }, 'mcpServers.a', 'has both'],
    [
      { mcpServers: { a: { type: 'websocket', url: 'ws://h' } } },
      'mcpServers.a.type',
      'must be one of stdio, http',
    ],
    [
      { mcpServers: { a: { type: 'sse', command: 'x' } } },
      'mcpServers.a.type',
      'has "command", not "url"',
    ],
    [
      { mcpServers: { a: { command: 'x', args: ['ok', 1] } } },
      'mcpServers.a.args[1]',
      'must be a string',
    ],
    [{ mcpServers: { a: { url: 'ftp://h/x' } } }, 'mcpServers.a.url', 'must use http: or https:'],
    [{ mcpServers: { a: { url: 'http://h/', env: {} } } }, 'mcpServers.a.env', 'stdio'],
    [
      { mcpServers: { a: { command: 'x', headers: {} } } },
      'mcpServers.a.headers',
      '"url" servers only',
    ],
    [{ mcpServers: { '1': { command: 'x' } } }, 'mcpServers.1', 'no letter to start with'],
    [{ other: {} }, 'mcpServers', 'missing the top-level "mcpServers"'],
  ])('rejects %j naming %s', async (source, field, message) => {
    const error = await loadError(source);
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });

  it('never quotes secret values in errors', async () => {
    const error = await loadError({
      mcpServers: {
        a: {
          url: 'http://user:pa55word@h/mcp',
          headers: { Authorization: 'Bearer tok-123', Bad: {} },
        },
      },
    });
    expect(error.field).toBe('mcpServers.a.headers.Bad');
    expect(error.message).not.toContain('tok-123');
    expect(error.message).not.toContain('pa55word');
    const unset = await loadError({
      mcpServers: { a: { command: 'x', env: { K: '${NOT_SET}' } } },
    });
    expect(unset.field).toBe('mcpServers.a.env.K');
    expect(unset.message).toContain('NOT_SET is not set');
  });

  it('reports unreadable files and bad JSON with the place, not the text', async () => {
    const missing = await loadMcpJson(path.join(dir, 'nope.json')).catch((e: unknown) => e);
    expect((missing as Error).message).toContain('not found');
    const file = path.join(dir, 'bad.json');
    await writeFile(
      file,
      '{\n  "mcpServers": {\n    "a": { "command": "x", "env": { "K": "s3cr3t-value" } ,, }\n  }\n}',
    );
    const bad = await loadMcpJson(file).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(McpConfigError);
    expect((bad as Error).message).toMatch(/invalid JSON at line 3, column \d+/);
    expect((bad as Error).message).not.toContain('s3cr3t');
  });
});
