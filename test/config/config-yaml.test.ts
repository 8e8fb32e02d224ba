import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfig, McpConfigError } from '../../src/server/index.js';
import { parseDotenv } from '../../src/config/dotenv.js';
import { makeTempDirs, type TempDirs } from '../server/helpers.js';

let dirs: TempDirs;
let configPath: string;
beforeEach(async () => {
  dirs = await makeTempDirs();
  configPath = path.join(dirs.base, 'config.yaml');
});
afterEach(async () => {
  await dirs.remove();
});

async function load(yaml: string, env: Record<string, string> = {}, dotenv?: string) {
  await writeFile(configPath, yaml);
  if (dotenv !== undefined) await writeFile(path.join(dirs.base, '.env'), dotenv);
  return loadMcpConfig(configPath, { env });
}

async function loadError(yaml: string, env: Record<string, string> = {}): Promise<McpConfigError> {
  const error = await load(yaml, env).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpConfigError);
  return error as McpConfigError;
}

describe('loadMcpConfig', () => {
  it('maps url, url_isolated and the other keys to McpServerConfig', async () => {
    const servers = await load(
      `
app_name: ignored
mcp_servers:
  template:
    type: client
    url: http://localhost:8000/mcp
    url_isolated: http://localhost:8001/mcp
    headers: { Authorization: "Bearer \${TEMPLATE_TOKEN}" }
    tool_prefix: tpl
    enabled_tools: [read_file, fetch_url]
    disabled_tools: [fetch_url]
    timeout_ms: 60000
    permissions: { fetch_url: [connect], write_file: [read, write] }
    sensitive_tools: { load_sensitive_dataset: secret }
    isolation_at: internal
`,
      { TEMPLATE_TOKEN: 'tok' },
    );
    expect(servers).toEqual([
      {
        name: 'template',
        transport: {
          type: 'streamable-http',
          url: 'http://localhost:8000/mcp',
          headers: { Authorization: 'Bearer tok' },
        },
        isolation: {
          transport: {
            type: 'streamable-http',
            url: 'http://localhost:8001/mcp',
            headers: { Authorization: 'Bearer tok' },
          },
          at: 'internal',
        },
        toolPrefix: 'tpl',
        enabledTools: ['read_file', 'fetch_url'],
        disabledTools: ['fetch_url'],
        timeoutMs: 60000,
        permissions: { fetch_url: ['connect'], write_file: ['read', 'write'] },
        sensitiveTools: { load_sensitive_dataset: 'secret' },
        secrets: ['tok'],
      },
    ]);
  });

  it('maps command, args and env to a stdio transport, expanding inside lists and maps', async () => {
    const servers = await load(
      `
mcp_servers:
  files:
    command: \${NODE_BIN}
    args: ["\${SERVER_DIR}/index.js", --root, "\${ROOT}", 8080]
    env: { API_KEY: "\${API_KEY}", MODE: "prod-\${REGION:-eu}" }
    timeout_ms: \${TIMEOUT}
`,
      { NODE_BIN: 'node', SERVER_DIR: '/srv', ROOT: '/data', API_KEY: 'k', TIMEOUT: '1500' },
    );
    expect(servers).toEqual([
      {
        name: 'files',
        transport: {
          type: 'stdio',
          command: 'node',
          args: ['/srv/index.js', '--root', '/data', '8080'],
        },
        env: { API_KEY: 'k', MODE: 'prod-eu' },
        secrets: ['/srv', '/data'],
        timeoutMs: 1500,
      },
    ]);
  });

  it('reads .env beside the file without overriding the real environment', async () => {
    const servers = await load(
      `
mcp_servers:
  a:
    url: \${BASE_URL}/mcp
    headers: { X-Region: "\${REGION}" }
`,
      { REGION: 'from-env' },
      '# main variables\nBASE_URL="http://localhost:9000"\nexport REGION=from-dotenv\n',
    );
    expect(servers[0]?.transport).toEqual({
      type: 'streamable-http',
      url: 'http://localhost:9000/mcp',
      headers: { 'X-Region': 'from-env' },
    });
  });

  it('names an unset variable and where it is used, also inside a list', async () => {
    const error = await loadError(`
mcp_servers:
  files:
    command: node
    args: [server.js, "--token=\${MISSING_TOKEN}"]
`);
    expect(error.field).toBe('mcp_servers.files.args[1]');
    expect(error.message).toContain('environment variable MISSING_TOKEN is not set');
    expect(error.message).toContain('mcp_servers.files.args[1]');
  });

  it('supports $$ for a literal dollar and refuses malformed references', async () => {
    const servers = await load(`
mcp_servers:
  a:
    command: echo
    args: ["$$HOME", "cost: 5$"]
`);
    expect(servers[0]?.transport).toEqual({
      type: 'stdio',
      command: 'echo',
      args: ['$HOME', 'cost: 5$'],
    });
    const error = await loadError(`
mcp_servers:
  a:
    command: "\${not a name}"
`);
    expect(error.message).toContain('is not a variable reference');
  });

  it('leaves variables of other sections alone', async () => {
    await expect(
      load(`
database: { url: "\${UNSET_ELSEWHERE}" }
mcp_servers:
  a: { url: "http://h/mcp" }
`),
    ).resolves.toHaveLength(1);
  });

  it.each([
    [
      'an unknown key',
      'a: { url: "http://h/mcp", timeout: 60 }',
      'mcp_servers.a.timeout',
      /not a known key; did you mean read_timeout \(seconds\) or timeout_ms\?/,
    ],
    [
      'a misspelt key',
      'a: { url: "http://h/mcp", tool_prefx: x }',
      'mcp_servers.a.tool_prefx',
      /not a known key; did you mean tool_prefix\?/,
    ],
    [
      'a bad timeout',
      'a: { url: "http://h/mcp", timeout_ms: -5 }',
      'mcp_servers.a.timeout_ms',
      /-5 must be a positive number of milliseconds/,
    ],
    [
      'a bad permission',
      'a: { url: "http://h/mcp", permissions: { t: [read, exec] } }',
      'mcp_servers.a.permissions.t[1]',
      /"exec" must be "read", "write" or "connect"/,
    ],
    [
      'a bad level',
      'a: { url: "http://h/mcp", sensitive_tools: { t: high } }',
      'mcp_servers.a.sensitive_tools.t',
      /"high" must be public, internal, confidential or secret/,
    ],
    ['a bad name', 'GitHub: { url: "http://h/mcp" }', 'mcp_servers.GitHub', /"GitHub" must match/],
    [
      'neither url nor command',
      'a: { tool_prefix: x }',
      'mcp_servers.a',
      /needs url .*, command .* or a transport block/,
    ],
    [
      'both url and command',
      'a: { url: "http://h/mcp", command: node }',
      'mcp_servers.a',
      /has both url and command/,
    ],
    [
      'a non-http url',
      'a: { url: "ftp://h/mcp" }',
      'mcp_servers.a.url',
      /must use http: or https:, got "ftp:"/,
    ],
    [
      'url_isolated on stdio',
      'a: { command: node, url_isolated: "http://h/mcp" }',
      'mcp_servers.a.url_isolated',
      /needs url/,
    ],
  ])('names the key for %s', async (_label, entry, field, message) => {
    const error = await loadError(`mcp_servers:\n  ${entry}\n`);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('never quotes url or header values (they may hold secrets)', async () => {
    const error = await loadError('mcp_servers:\n  a: { url: "not a url ${SECRET_TOKEN}" }\n', {
      SECRET_TOKEN: 'sk-live-123',
    });
    expect(error.field).toBe('mcp_servers.a.url');
    expect(error.message).not.toContain('sk-live-123');
  });

  it('never quotes what a malformed ${...} holds (it may be the secret itself)', async () => {
    const header = await loadError(
      'mcp_servers:\n  a:\n    url: http://h/mcp\n' +
        '    headers: { Authorization: "Bearer ${ghp_S3cr3tT0ken-value}" }\n',
    );
    expect(header.field).toBe('mcp_servers.a.headers.Authorization');
    expect(header.message).toContain('character 8 (24 characters) is not a variable reference');
    expect(header.message).not.toContain('S3cr3t');
    const env = await loadError(
      'mcp_servers:\n  a:\n    command: node\n    env: { DB_PASSWORD: "p@${hunter2 is my password}" }\n',
    );
    expect(env.field).toBe('mcp_servers.a.env.DB_PASSWORD');
    expect(env.message).not.toContain('hunter2');
  });

  it('reports an alias bomb as an McpConfigError, and ignores one outside mcp_servers', async () => {
    let bomb = 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let i = 1; i < 9; i++) {
      bomb += `a${i}: &a${i} [${Array<string>(10)
        .fill(`*a${i - 1}`)
        .join(',')}]\n`;
    }
    const inside = await loadError(bomb + 'mcp_servers:\n  a:\n    command: node\n    args: *a8\n');
    expect(inside.field).toBe('mcp_servers');
    expect(inside.message).toContain(configPath);
    expect(inside.message).toContain('aliases expand too much');
    // Other sections belong to the application: not converted, not refused.
    const servers = await load(bomb + 'mcp_servers:\n  a:\n    command: node\n');
    expect(servers.map((s) => s.name)).toEqual(['a']);
    // A reasonable alias into mcp_servers still works.
    const aliased = await load(
      'base: &args [--flag]\nmcp_servers:\n  a:\n    command: node\n    args: *args\n',
    );
    expect(aliased[0]?.transport).toEqual({ type: 'stdio', command: 'node', args: ['--flag'] });
  });

  it('masks a value taken from the environment in errors of fields that hold no secret', async () => {
    const env = {
      TOK: 'ghp_R3alT0kenInTheWrongVariable',
      // Longer than a quote keeps (93 characters), and one JSON escapes.
      PAT: `github_pat_11ABCDEFG0${'R3alT0ken'.repeat(8)}`.slice(0, 93),
      QUOTED: 'Tok"en\\WithQuoteR3alSecret',
    };
    for (const setting of [
      "permissions: {t: ['${TOK}']}",
      "sensitive_tools: {t: '${TOK}'}",
      "tool_prefix: '${TOK}!'",
      "tool_prefix: '${PAT}'",
      "permissions: {t: ['${PAT}']}",
      "tool_prefix: '${QUOTED}'",
    ]) {
      const error = await loadError(`mcp_servers:\n  a:\n    command: x\n    ${setting}\n`, env);
      expect(error.message, setting).not.toContain('R3alT0ken');
      expect(error.message, setting).toContain('***');
    }
  });

  it('refuses a merge of a scalar and an !!omap env as McpConfigErrors naming the field', async () => {
    const merge = await loadError('%YAML 1.1\n---\nmcp_servers:\n  a:\n    <<: 5\n');
    expect(merge).toBeInstanceOf(McpConfigError);
    expect(merge.field).toBe('mcp_servers');
    expect(merge.message).toContain('a merge key `<<` of something other than a map');
    // An env written as an ordered map was read as an empty one: the server ran without it.
    const omap = await loadError(
      '%YAML 1.1\n---\nmcp_servers:\n  a:\n    command: node\n    env: !!omap [ {TOKEN: abc} ]\n',
    );
    expect(omap.field).toBe('mcp_servers.a.env');
    expect(omap.message).toContain('must map variable names to string values');
    expect(omap.message).not.toContain('abc');
  });

  it('reports a missing file, bad YAML and a missing mcp_servers key', async () => {
    await expect(loadMcpConfig(path.join(dirs.base, 'nope.yaml'), { env: {} })).rejects.toThrow(
      /not found/,
    );
    expect((await loadError('mcp_servers: [unclosed\n')).message).toMatch(/invalid YAML at line/);
    expect((await loadError('other: 1\n')).field).toBe('mcp_servers');
    expect(
      (await loadError('mcp_servers:\n  a: { url: "http://h" }\n  a: { url: "http://i" }\n'))
        .message,
    ).toMatch(/DUPLICATE_KEY/);
  });
});

describe('parseDotenv', () => {
  it('reads quotes, escapes, comments and export', () => {
    expect(
      parseDotenv(
        `# comment\nA=plain value # trailing\nB="line\\nbreak"\nC='raw \\n'\nexport D=4\n\nE=`,
        '.env',
      ),
    ).toEqual({ A: 'plain value', B: 'line\nbreak', C: 'raw \\n', D: '4', E: '' });
  });

  it('names the line of a bad entry, never its content', () => {
    expect(() => parseDotenv('OK=1\nTOKEN="sk-live-123\n', '.env')).toThrow(
      /\.env line 2: expected KEY=value/,
    );
    expect(() => parseDotenv('OK=1\nTOKEN="sk-live-123\n', '.env')).not.toThrow(/sk-live/);
  });
});
