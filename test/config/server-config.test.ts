/**
 * The one config schema: every field documented, unknown keys refused with
 * the key that was probably meant, `transport.env` read as the server's
 * `env`, and names that come from outside kept as own keys. Then the
 * seeds' `config.yaml` entry, loaded and run as the seed describes it, and
 * TARSy's `transport:` block.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  loadMcpConfig,
  McpConfigError,
  McpIntegrationSection,
  parseServerConfigs,
  serverConfigSchema,
  Session,
} from '../../src/index.js';
import { call } from '../fixtures/isolation/helpers.js';
import {
  answeredBy,
  startInstance,
  type RunningInstance,
} from '../fixtures/isolation/instance-server.js';
import { makeTempDirs, type TempDirs } from '../server/helpers.js';

const stdio = { type: 'stdio', command: 'node' } as const;

function configError(servers: unknown): McpConfigError {
  try {
    parseServerConfigs(servers);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected an McpConfigError');
}

function fieldsOf(object: z.ZodObject): [string, z.ZodType][] {
  return Object.entries(object.shape).filter(
    (entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType,
  );
}

/** Every object schema under `schema`, with its path, unwrapping optional/readonly/pipes. */
function objectSchemas(schema: z.ZodType, at = 'server'): [string, z.ZodObject][] {
  const def = schema._zod.def as {
    type: string;
    innerType?: z.ZodType;
    in?: z.ZodType;
    options?: z.ZodType[];
  };
  if (def.innerType !== undefined) return objectSchemas(def.innerType, at);
  if (def.type === 'pipe' && def.in !== undefined) return objectSchemas(def.in, at);
  if (def.type === 'union' && def.options !== undefined) {
    return def.options.flatMap((option) => objectSchemas(option, at));
  }
  if (!(schema instanceof z.ZodObject)) return [];
  const found: [string, z.ZodObject][] = [[at, schema]];
  const fields = fieldsOf(schema);
  for (const [key, field] of fields) {
    found.push(...objectSchemas(field, `${at}.${key}`));
  }
  return found;
}

describe('the server config schema', () => {
  it('documents every field with .describe()', () => {
    const undocumented: string[] = [];
    for (const [at, object] of objectSchemas(serverConfigSchema)) {
      const fields = fieldsOf(object);
      for (const [key, field] of fields) {
        if (key === 'type') continue; // the discriminator documents itself
        if ((field.description ?? '').length < 10) undocumented.push(`${at}.${key}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it.each([
    [
      { name: 'x', transport: stdio, alsoBogus: 1 },
      'servers[0].alsoBogus',
      /not a known key\. Expected one of: name, transport/,
    ],
    [
      { name: 'x', transport: { ...stdio, bogus: true } },
      'servers[0].transport.bogus',
      /Expected one of: type, command, args, cwd/,
    ],
    [
      { name: 'x', transport: stdio, toolprefix: 'x' },
      'servers[0].toolprefix',
      /did you mean toolPrefix\?/,
    ],
    [
      { name: 'x', transport: stdio, timeout: 60 },
      'servers[0].timeout',
      /did you mean timeoutMs \(milliseconds\)\?/,
    ],
    [
      { name: 'x', transport: stdio, sensitive_tools: {} },
      'servers[0].sensitive_tools',
      /did you mean sensitiveTools\?/,
    ],
    [
      { name: 'x', transport: stdio, isolation: { unshare_fallback: true } },
      'servers[0].isolation.unshare_fallback',
      /did you mean unshareFallback\?/,
    ],
    [
      {
        name: 'x',
        transport: { type: 'sse', url: 'http://127.0.0.1:1/sse', header: {} },
        isolation: {},
      },
      'servers[0].transport.header',
      /did you mean headers\?/,
    ],
  ])('refuses the unknown key in %j', (server, field, message) => {
    const error = configError([server]);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('refuses prefixes of which one, followed by _, begins another: a server could take the other’s tool names', () => {
    const nested = configError([
      { name: 'slack', transport: stdio },
      { name: 'slack_admin', transport: stdio },
    ]);
    expect(nested.field).toBe('servers[1].name');
    expect(nested.message).toBe(
      'servers[1].name: tools of server "slack_admin" are named "slack_admin_…", which begins with the prefix "slack_" of server "slack": a tool of one could take the name of a tool of the other; give one of them another toolPrefix',
    );
    // Whichever comes first, and a toolPrefix equal to another's.
    expect(
      configError([
        { name: 'b', transport: stdio, toolPrefix: 'git-hub_x' },
        { name: 'a', transport: stdio, toolPrefix: 'git-hub' },
        { name: 'c', transport: stdio, toolPrefix: 'github' },
      ]).field,
    ).toBe('servers[0].toolPrefix');
    expect(
      configError([
        { name: 'a', transport: stdio, toolPrefix: 'x' },
        { name: 'b', transport: stdio, toolPrefix: 'x' },
      ]).message,
    ).toContain('tools of server "b" are named "x_…", which is the prefix "x_" of server "a"');
    // One server's name as another's prefix: `beta.echo` would name either.
    const crossed = configError([
      { name: 'alpha', transport: stdio, toolPrefix: 'beta' },
      { name: 'beta', transport: stdio, toolPrefix: 'gamma' },
    ]);
    expect(crossed.field).toBe('servers[0].toolPrefix');
    expect(crossed.message).toContain(
      '"beta" is the name of server "beta" and the prefix of server "alpha"',
    );
    // Apart: a shared start without the `_` boundary, or a toolPrefix that sets them apart.
    expect(
      parseServerConfigs([
        { name: 'slack', transport: stdio },
        { name: 'slackadmin', transport: stdio },
        { name: 'slack_admin', transport: stdio, toolPrefix: 'slackops' },
      ]),
    ).toHaveLength(3);
  });

  it('refuses an isolated transport that reaches the same deployment as the normal one', () => {
    const http = (url: string) => ({ type: 'streamable-http', url, sseFallback: false }) as const;
    for (const [normal, isolated] of [
      [http('http://127.0.0.1:8080/mcp'), http('http://127.0.0.1:8080/mcp')],
      [http('http://127.0.0.1:8080/mcp'), http('http://localhost:8080/mcp/')],
      [http('https://a.example/mcp?k=1'), http('https://user:pw@a.example:443/mcp#x')],
      [stdio, { ...stdio }],
    ] as const) {
      const error = configError([
        { name: 'x', transport: normal, isolation: { transport: isolated } },
      ]);
      expect(error.field).toBe('servers[0].isolation.transport');
      expect(error.message).toContain('reaches the same deployment as transport');
    }
    expect(
      parseServerConfigs([
        {
          name: 'x',
          transport: http('http://127.0.0.1:8080/mcp'),
          isolation: { transport: http('http://127.0.0.1:8081/mcp') },
        },
        {
          name: 'y',
          transport: stdio,
          isolation: { transport: { ...stdio, args: ['--isolated'] } },
        },
      ]),
    ).toHaveLength(2);
  });

  it('refuses an isolated transport that may speak SSE on the normal one’s origin: its server names where to post', () => {
    const normal = { type: 'streamable-http', url: 'http://gw:8080/normal/mcp' } as const;
    for (const isolated of [
      { type: 'sse', url: 'http://gw:8080/isolated/sse' },
      { type: 'streamable-http', url: 'http://gw:8080/isolated/mcp' },
    ] as const) {
      const error = configError([
        { name: 'x', transport: normal, isolation: { transport: isolated } },
      ]);
      expect(error.field).toBe('servers[0].isolation.transport');
      expect(error.message).toContain('may speak SSE on the origin of transport');
    }
    // Every name this machine answers to is one origin: the SSE server could name the normal path.
    for (const [normalUrl, isolatedUrl] of [
      ['http://127.0.0.1:8080/mcp', 'http://localhost:8080/sse'],
      ['http://localhost:8080/mcp', 'http://[::1]:8080/sse'],
      ['http://127.0.0.1:8080/mcp', 'http://127.0.0.2:8080/sse'],
      ['http://127.0.0.1:8080/mcp', 'http://[::ffff:127.0.0.1]:8080/sse'],
      ['http://127.0.0.1:8080/mcp', 'http://0.0.0.0:8080/sse'],
      ['http://127.0.0.1:8080/mcp', 'http://LOCALHOST.:8080/sse'],
      ['http://127.0.0.1:8080/mcp', 'http://api.localhost:8080/sse'],
      ['http://127.1:80/mcp', 'http://localhost/sse'],
    ] as const) {
      const error = configError([
        {
          name: 'x',
          transport: { type: 'streamable-http', url: normalUrl },
          isolation: { transport: { type: 'sse', url: isolatedUrl } },
        },
      ]);
      expect(error.message, isolatedUrl).toContain('may speak SSE on the origin of transport');
    }
    expect(
      parseServerConfigs([
        {
          name: 'z',
          transport: { type: 'streamable-http', url: 'http://127.0.0.1:8080/mcp' },
          isolation: { transport: { type: 'sse', url: 'http://localhost:8081/sse' } },
        },
      ]),
    ).toHaveLength(1);
    expect(
      parseServerConfigs([
        {
          name: 'x',
          transport: normal,
          isolation: {
            transport: {
              type: 'streamable-http',
              url: 'http://gw:8080/isolated/mcp',
              sseFallback: false,
            },
          },
        },
        {
          name: 'y',
          transport: normal,
          isolation: { transport: { type: 'sse', url: 'http://isolated-gw:8080/sse' } },
        },
      ]),
    ).toHaveLength(2);
  });

  it('reads transport.env as the server env, where the SDK puts it', () => {
    const [server] = parseServerConfigs([
      { name: 'brave', transport: { ...stdio, env: { BRAVE_API_KEY: 'k-1' } } },
    ]);
    expect(server?.env).toEqual({ BRAVE_API_KEY: 'k-1' });
    expect(server?.transport).toEqual(stdio);
  });

  it('refuses env in both places, and names transport.env for a bad value there', () => {
    const both = configError([
      { name: 'x', transport: { ...stdio, env: { A: '1' } }, env: { B: '2' } },
    ]);
    expect(both.field).toBe('servers[0].transport.env');
    expect(both.message).toContain('give them in one place');
    const bad = configError([{ name: 'x', transport: { ...stdio, env: { PORT: 8080 } } }]);
    expect(bad.field).toBe('servers[0].transport.env.PORT');
    expect(bad.message).not.toContain('8080');
  });

  it('keeps tool and variable names from outside as own keys, __proto__ included', () => {
    const written = JSON.parse(
      '{"name":"x","transport":{"type":"stdio","command":"node"},' +
        '"sensitiveTools":{"__proto__":"secret","constructor":"confidential"},' +
        '"permissions":{"__proto__":["connect"]},"env":{"__proto__":"v"}}',
    ) as unknown;
    const [server] = parseServerConfigs([written]);
    expect(Object.getOwnPropertyDescriptor(server?.sensitiveTools, '__proto__')?.value).toBe(
      'secret',
    );
    expect(Object.getOwnPropertyDescriptor(server?.sensitiveTools, 'constructor')?.value).toBe(
      'confidential',
    );
    expect(Object.getOwnPropertyDescriptor(server?.permissions, '__proto__')?.value).toEqual([
      'connect',
    ]);
    expect(Object.getOwnPropertyDescriptor(server?.env, '__proto__')?.value).toBe('v');
    expect(Object.getPrototypeOf(server?.sensitiveTools)).toBe(Object.prototype);
  });

  it('never quotes a URL, which may hold a token in its path', () => {
    const error = configError([
      { name: 'x', transport: { type: 'sse', url: 'not a url /tok-secret-1' }, isolation: {} },
    ]);
    expect(error.field).toBe('servers[0].transport.url');
    expect(error.message).not.toContain('tok-secret-1');
  });

  it('returns frozen configs', () => {
    const [server] = parseServerConfigs([{ name: 'x', transport: { ...stdio, args: ['a'] } }]);
    expect(Object.isFrozen(server)).toBe(true);
    expect(Object.isFrozen(server?.transport)).toBe(true);
  });
});

describe('config.yaml in the shapes of the seeds and of TARSy', () => {
  let dirs: TempDirs;
  const started: RunningInstance[] = [];
  const sections: McpIntegrationSection[] = [];

  beforeEach(async () => {
    dirs = await makeTempDirs();
  });
  afterEach(async () => {
    await Promise.all(sections.splice(0).map((section) => section.disconnect()));
    await Promise.all(started.splice(0).map((instance) => instance.close()));
    await dirs.remove();
  });

  async function load(yaml: string, env: Record<string, string> = {}) {
    const file = path.join(dirs.base, 'config.yaml');
    await writeFile(file, yaml, 'utf8');
    return loadMcpConfig(file, { env, dotenv: false });
  }

  it('loads the seed entry (type client, url_isolated, read_timeout in seconds) and switches as the seed says', async () => {
    const normal = await startInstance('normal');
    const isolated = await startInstance('isolated');
    started.push(normal, isolated);
    const servers = await load(`
mcp_servers:
  data_tools:
    type: client
    url: "${normal.url}"
    url_isolated: "${isolated.url}"
    read_timeout: 60
`);
    expect(servers).toEqual([
      {
        name: 'data_tools',
        transport: { type: 'streamable-http', url: normal.url },
        timeoutMs: 60_000,
        isolation: { transport: { type: 'streamable-http', url: isolated.url } },
      },
    ]);

    const session = new Session();
    const section = new McpIntegrationSection({ session, servers });
    sections.push(section);
    await section.connect();
    expect(answeredBy((await call(section, 'data_tools_whoami')).message)).toBe('normal');
    session.privateData.add('customer-records', 'confidential');
    expect(answeredBy((await call(section, 'data_tools_whoami')).message)).toBe('isolated');
    expect(section.isolatedServers).toEqual(['data_tools']);
  });

  it("reads TARSy's transport block: stdio with env, http with a bearer token and a timeout in seconds", async () => {
    const servers = await load(
      `
mcp_servers:
  kubernetes:
    transport:
      type: stdio
      command: npx
      args: [-y, kubernetes-mcp-server]
      env: { KUBECONFIG: "\${KUBECONFIG}" }
  github:
    transport:
      type: http
      url: https://api.example.com/mcp
      bearer_token: "\${GITHUB_TOKEN}"
      timeout: 90
`,
      { KUBECONFIG: '/etc/kube', GITHUB_TOKEN: 'ghp-secret' },
    );
    expect(servers).toEqual([
      {
        name: 'kubernetes',
        transport: { type: 'stdio', command: 'npx', args: ['-y', 'kubernetes-mcp-server'] },
        env: { KUBECONFIG: '/etc/kube' },
      },
      {
        name: 'github',
        transport: {
          type: 'streamable-http',
          url: 'https://api.example.com/mcp',
          headers: { Authorization: 'Bearer ghp-secret' },
        },
        secrets: ['ghp-secret'],
        timeoutMs: 90_000,
      },
    ]);
  });

  it('names the file key of a bad value inside a transport block, without the secret', async () => {
    const error = await load(
      `
mcp_servers:
  github:
    transport: { type: http, url: "not a url \${TOKEN}" }
`,
      { TOKEN: 'tok-123' },
    ).catch((caught: unknown) => caught as McpConfigError);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).field).toBe('mcp_servers.github.transport.url');
    expect((error as Error).message).not.toContain('tok-123');
  });

  it('reads the isolation map in snake_case', async () => {
    const servers = await load(`
mcp_servers:
  files:
    command: node
    args: [server.js]
    isolation: { at: secret, unshare_fallback: true, read_only_paths: [/opt/data], network: { allow: [api.example.com] } }
`);
    expect(servers[0]?.isolation).toEqual({
      at: 'secret',
      unshareFallback: true,
      readOnlyPaths: ['/opt/data'],
      network: { allow: ['api.example.com'] },
    });
  });
});
