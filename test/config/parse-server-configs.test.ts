/**
 * Server configs are checked before anything starts (McpConfigError names
 * the field), and secrets from `env`, headers and URLs never show up in
 * errors, their causes, events or the rendered prompt.
 */
import { describe, expect, it } from 'vitest';
import {
  McpConfigError,
  McpConnectionError,
  McpError,
  McpIntegrationSection,
  Prompt,
  PromptTemplate,
  Session,
  parseServerConfigs,
} from '../../src/index.js';
import { causeChain, everythingStdio, rawToolServer } from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const stdio = { type: 'stdio', command: 'node' };

/** [label, server config, field the error must name] */
const BAD_CONFIGS: readonly (readonly [string, unknown, string])[] = [
  ['a config that is not an object', 'github', 'servers[1]'],
  ['a name with capitals', { name: 'GitHub', transport: stdio }, 'servers[1].name'],
  ['a name starting with a digit', { name: '1password', transport: stdio }, 'servers[1].name'],
  ['a name of 33 characters', { name: `a${'b'.repeat(32)}`, transport: stdio }, 'servers[1].name'],
  ['a missing name', { transport: stdio }, 'servers[1].name'],
  ['a name used twice', { name: 'good', transport: stdio }, 'servers[1].name'],
  ['a missing transport', { name: 'x' }, 'servers[1].transport'],
  [
    'an unknown transport type',
    { name: 'x', transport: { type: 'ws' } },
    'servers[1].transport.type',
  ],
  [
    'an empty stdio command',
    { name: 'x', transport: { type: 'stdio', command: '' } },
    'servers[1].transport.command',
  ],
  [
    'stdio args that are not strings',
    { name: 'x', transport: { type: 'stdio', command: 'node', args: [1] } },
    'servers[1].transport.args[0]',
  ],
  [
    'a stdio cwd that is not a string',
    { name: 'x', transport: { type: 'stdio', command: 'node', cwd: 3 } },
    'servers[1].transport.cwd',
  ],
  [
    'a relative URL',
    { name: 'x', transport: { type: 'sse', url: '/mcp' } },
    'servers[1].transport.url',
  ],
  [
    'a URL that is not http(s)',
    { name: 'x', transport: { type: 'streamable-http', url: 'ftp://host/mcp' } },
    'servers[1].transport.url',
  ],
  [
    'headers that are not strings',
    {
      name: 'x',
      transport: { type: 'sse', url: 'http://127.0.0.1:1/sse', headers: { 'X-Retries': 3 } },
    },
    'servers[1].transport.headers.X-Retries',
  ],
  [
    'an in-memory server that is not a server',
    { name: 'x', transport: { type: 'in-memory', server: {} } },
    'servers[1].transport.server',
  ],
  [
    'an invalid toolPrefix',
    { name: 'x', transport: stdio, toolPrefix: 'My Prefix' },
    'servers[1].toolPrefix',
  ],
  [
    'enabledTools that is not a list',
    { name: 'x', transport: stdio, enabledTools: 'echo' },
    'servers[1].enabledTools',
  ],
  [
    'disabledTools with a number',
    { name: 'x', transport: stdio, disabledTools: ['echo', 2] },
    'servers[1].disabledTools[1]',
  ],
  ['a negative timeoutMs', { name: 'x', transport: stdio, timeoutMs: -1 }, 'servers[1].timeoutMs'],
  ['a timeoutMs of zero', { name: 'x', transport: stdio, timeoutMs: 0 }, 'servers[1].timeoutMs'],
  [
    'a NaN timeoutMs',
    { name: 'x', transport: stdio, timeoutMs: Number.NaN },
    'servers[1].timeoutMs',
  ],
  [
    'a timeoutMs given as text',
    { name: 'x', transport: stdio, timeoutMs: '30000' },
    'servers[1].timeoutMs',
  ],
  [
    'env with a number',
    { name: 'x', transport: stdio, env: { PORT: 8080 } },
    'servers[1].env.PORT',
  ],
  [
    'permissions that are not a map',
    { name: 'x', transport: stdio, permissions: ['read'] },
    'servers[1].permissions',
  ],
  [
    'an unknown permission',
    { name: 'x', transport: stdio, permissions: { echo: ['execute'] } },
    'servers[1].permissions.echo[0]',
  ],
  [
    'an unknown sensitivity',
    { name: 'x', transport: stdio, sensitiveTools: { read: 'top-secret' } },
    'servers[1].sensitiveTools.read',
  ],
  [
    'an isolation that is not an object',
    { name: 'x', transport: stdio, isolation: true },
    'servers[1].isolation',
  ],
  [
    'an unknown isolation level',
    { name: 'x', transport: stdio, isolation: { at: 'private' } },
    'servers[1].isolation.at',
  ],
  [
    'a bad isolation transport',
    { name: 'x', transport: stdio, isolation: { transport: { type: 'sse', url: 'nope' } } },
    'servers[1].isolation.transport.url',
  ],
];

/** Lets a connection started at construction get as far as spawning its child. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('config validation', () => {
  it('(control) a valid config with connectOnInit has spawned its child by then', async () => {
    const before = childPids();
    const section = new McpIntegrationSection({
      servers: [{ name: 'good', transport: everythingStdio() }],
      session: new Session(),
      connectOnInit: true,
    });
    await settle();
    expect(childPids().filter((pid) => !before.includes(pid))).toHaveLength(1);
    await section.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it.each(BAD_CONFIGS)(
    '%s: McpConfigError naming %s, nothing started',
    async (_label, bad, field) => {
      const before = childPids();
      // The first server is a real stdio server: it must not be started.
      const servers = [{ name: 'good', transport: everythingStdio() }, bad];
      const error = catchError(
        () =>
          new McpIntegrationSection({
            servers: servers as never,
            session: new Session(),
            connectOnInit: true,
          }),
      );
      expect(error).toBeInstanceOf(McpConfigError);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: 'mcp-config', field });
      expect((error as Error).message.startsWith(`${field} `)).toBe(true);
      await settle();
      expect(childPids()).toEqual(before);
    },
  );

  it('says what the rule is, with the offending value', () => {
    const error = catchError(() =>
      parseServerConfigs([{ name: 'GitHub', transport: stdio }]),
    ) as McpConfigError;
    expect(error.message).toBe('servers[0].name "GitHub" must match ^[a-z][a-z0-9_-]{0,31}$');
  });

  it('rejects a servers value that is not an array', () => {
    expect(catchError(() => parseServerConfigs({ name: 'x' }))).toMatchObject({
      field: 'servers',
    });
  });

  it('accepts every transport kind and option', () => {
    const configs = [
      { name: 'a', transport: { type: 'stdio', command: 'node', args: ['x.js'], cwd: '/tmp' } },
      {
        name: 'b-2',
        transport: { type: 'sse', url: 'http://127.0.0.1:1/sse', headers: { A: 'b' } },
      },
      {
        name: 'c_3',
        transport: { type: 'streamable-http', url: 'https://example.com/mcp' },
        toolPrefix: 'c3',
        enabledTools: ['x'],
        disabledTools: [],
        timeoutMs: 1_000,
        env: { TOKEN: 'abc' },
        permissions: { x: ['read', 'connect'] },
        sensitiveTools: { x: 'secret' },
        isolation: { at: 'internal', transport: { type: 'stdio', command: 'node' } },
      },
      { name: 'd', transport: { type: 'in-memory', server: rawToolServer([]).server } },
    ];
    expect(parseServerConfigs(configs)).toEqual(configs);
  });

  it('never quotes env values or URL credentials in config errors', () => {
    const envError = catchError(() =>
      parseServerConfigs([
        { name: 'x', transport: stdio, env: { API_TOKEN: 'env-secret-value', RETRIES: 3 } },
      ]),
    ) as Error;
    expect(envError.message).not.toContain('env-secret-value');

    const urlError = catchError(() =>
      parseServerConfigs([
        {
          name: 'x',
          transport: {
            type: 'sse',
            url: 'http://admin:url-password@exa mple.com/sse?key=query-secret',
          },
        },
      ]),
    ) as Error;
    expect(urlError).toBeInstanceOf(McpConfigError);
    expect(urlError.message).not.toContain('url-password');
    expect(urlError.message).not.toContain('query-secret');
  });
});

describe('environment variable names', () => {
  it('refuses an empty name, or one with "=" or NUL, without quoting it', () => {
    for (const name of ['API_TOKEN=ghp_R3alT0ken', '', 'A\u0000B']) {
      const error = catchError(() =>
        parseServerConfigs([{ name: 'x', transport: stdio, env: { OK: 'v', [name]: 'value' } }]),
      ) as McpConfigError;
      expect(error).toBeInstanceOf(McpConfigError);
      expect(error.message).toContain(
        `variable name 2 (of ${String(name.length)} characters, not quoted) must be non-empty, without "=" or a NUL character`,
      );
      expect(error.message).not.toContain('R3alT0ken');
    }
  });
});

describe('secrets stay out of errors and events', () => {
  const SECRETS = [
    'url-password-123',
    'query-token-456',
    'bearer-token-789',
    'api-key-abcdef',
    'env-secret-ghijk',
  ];

  function expectNoSecret(text: string): void {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  }

  it('an unreachable HTTP server with credentials in URL and headers', async () => {
    const port = await freePort();
    const url = `http://user:url-password-123@127.0.0.1:${port}/mcp?token=query-token-456`;
    const headers = { Authorization: 'Bearer bearer-token-789', 'X-Api-Key': 'api-key-abcdef' };

    for (const type of ['streamable-http', 'sse'] as const) {
      const session = new Session();
      const events: object[] = [];
      session.bus.subscribeAll((event) => events.push(event));
      const throwing = new McpIntegrationSection({
        servers: [{ name: 'remote', transport: { type, url, headers } }],
        session,
      });
      const error = await throwing.connect().then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(McpConnectionError);
      expect((error as McpConnectionError).cause).toBeDefined();
      expectNoSecret(causeChain(error).join('\n'));

      const reporting = new McpIntegrationSection({
        servers: [{ name: 'remote', transport: { type, url, headers } }],
        session,
        onConnectError: 'report',
      });
      await reporting.connect();
      expect(reporting.unavailableServers).toHaveLength(1);
      const template = PromptTemplate.create({ ns: 'test', key: 'secrets', sections: [reporting] });
      const text = new Prompt(template).render({ session }).text;
      expect(text).toContain('- **remote**: ');
      expectNoSecret(text);
      expect(events.length).toBeGreaterThan(0);
      expectNoSecret(JSON.stringify(events));
      await reporting.disconnect();
    }
  });

  it('a stdio server that prints its env secret to stderr and exits', async () => {
    const before = childPids();
    const session = new Session();
    const events: object[] = [];
    session.bus.subscribeAll((event) => events.push(event));
    const transport = {
      type: 'stdio',
      command: process.execPath,
      args: [
        '-e',
        'console.error("starting with token " + process.env.API_TOKEN); process.exit(1)',
      ],
    } as const;
    const section = new McpIntegrationSection({
      servers: [{ name: 'leaky', transport, env: { API_TOKEN: 'env-secret-ghijk' } }],
      session,
    });
    const error = await section.connect().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpConnectionError);
    // The stderr tail is part of the message, with the secret masked.
    expect((error as Error).message).toContain('starting with token ***');
    expectNoSecret(causeChain(error).join('\n'));

    const reporting = new McpIntegrationSection({
      servers: [{ name: 'leaky', transport, env: { API_TOKEN: 'env-secret-ghijk' } }],
      session,
      onConnectError: 'report',
    });
    await reporting.connect();
    expect(reporting.unavailableServers[0]?.reason).toContain('starting with token ***');
    expectNoSecret(JSON.stringify(events));
    expect(events.length).toBeGreaterThan(0);
    await reporting.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});
