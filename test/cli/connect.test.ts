/**
 * Pins how a CLI command opens its servers: `describeServer` and
 * `describeTransport` never show secrets, and `withSection` maps config and
 * connection failures to exit codes 3 and 4, shows progress, forwards
 * `io.env`, and disconnects on every path.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeServer, describeTransport, withSection } from '../../src/cli/connect.js';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { McpIntegrationSection } from '../../src/mcp/section.js';
import { McpConfigError } from '../../src/core/errors.js';
import type { ResolvedServerConfig } from '../../src/config/server-config.js';
import type { HttpHost } from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { captureIo, configDir, recordProgress, startToolHost, type ConfigDir } from './mcp-host.js';

describe('describeServer', () => {
  it('gives the name and the transport type only', () => {
    expect(
      describeServer({
        name: 'web',
        transport: {
          type: 'streamable-http',
          url: 'https://user:pw@example.test/mcp?key=s',
          headers: { Authorization: 'Bearer s' },
        },
      }),
    ).toBe('web (streamable-http)');
  });
});

describe('describeTransport', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ type: 'stdio', command: '/usr/local/bin/node', args: ['--secret=x'] }, 'stdio: node'],
    [{ type: 'stdio', command: 'npx' }, 'stdio: npx'],
    [
      { type: 'sse', url: 'https://user:pw@example.test:8443/v1/sse?token=abc#frag' },
      'sse: https://example.test:8443/v1/sse',
    ],
    [
      { type: 'streamable-http', url: 'http://127.0.0.1:3000/mcp?key=s' },
      'streamable-http: http://127.0.0.1:3000/mcp',
    ],
    [{ type: 'streamable-http', url: 'not a url' }, 'streamable-http'],
    [{ type: 'in-memory' }, 'in-memory'],
  ])('%j reads %s', (transport, text) => {
    expect(describeTransport({ name: 's', transport } as unknown as ResolvedServerConfig)).toBe(
      text,
    );
  });

  it("masks the server's secrets in a URL's path, where a token may sit", () => {
    const server = {
      name: 'zap',
      transport: { type: 'sse', url: 'https://mcp.example.test/api/sk-live-PATHTOKEN/sse' },
      secrets: ['sk-live-PATHTOKEN'],
    } as unknown as ResolvedServerConfig;
    expect(describeTransport(server)).toBe('sse: https://mcp.example.test/api/***/sse');
  });
});

describe('withSection', () => {
  let host: HttpHost;
  let dir: ConfigDir;
  let config: string;

  beforeAll(async () => {
    host = await startToolHost([
      { name: 'ping', description: 'Answers pong', inputSchema: { type: 'object' } },
    ]);
    dir = await configDir('cli-connect');
    config = await dir.write('servers.json', {
      srv: { type: 'http', url: `http://127.0.0.1:\${PORT}/mcp` },
    });
  });

  afterAll(async () => {
    await host.close();
    await dir.remove();
  });

  function options(onConnectError: 'throw' | 'report', signal = new AbortController().signal) {
    return {
      io: captureIo({ env: { PORT: String(host.port) } }),
      progress: recordProgress(),
      signal,
      onConnectError,
    };
  }

  it('connects with io.env expanded, runs use, returns its value and disconnects', async () => {
    const opts = options('throw');
    let seen: McpIntegrationSection | undefined;
    const value = await withSection(config, opts, ({ section, session, servers }) => {
      seen = section;
      expect(section.connected).toBe(true);
      expect(section.session).toBe(session);
      expect(servers.map((server) => [server.name, describeTransport(server)])).toEqual([
        ['srv', `streamable-http: ${host.url('/mcp')}`],
      ]);
      return Promise.resolve(section.tools().map((tool) => tool.name));
    });
    expect(value).toEqual(['srv_ping']);
    expect(seen?.connected).toBe(false);
    expect(opts.progress.calls).toEqual(['start: connecting to srv (streamable-http)', 'stop']);
  });

  it('disconnects when use throws, passing a plain error through unchanged', async () => {
    const bug = new Error('bug in use');
    let seen: McpIntegrationSection | undefined;
    const error: unknown = await withSection(config, options('throw'), ({ section }) => {
      seen = section;
      return Promise.reject(bug);
    }).catch((caught: unknown) => caught);
    expect(error).toBe(bug);
    expect(seen?.connected).toBe(false);
  });

  it('maps a config error thrown by use to exit 3', async () => {
    const error: unknown = await withSection(config, options('throw'), () =>
      Promise.reject(new McpConfigError('x', 'bad\nfield')),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ exitCode: EXIT_CODES.config, message: 'bad field' });
  });

  it('throws exit 3 for a config without servers or a missing file, never connecting', async () => {
    const empty = await dir.write('empty.json', {});
    const opts = options('throw');
    await expect(withSection(empty, opts, () => Promise.resolve(1))).rejects.toMatchObject({
      name: 'CliError',
      exitCode: EXIT_CODES.config,
      message: `${empty}: no servers are configured`,
    });
    const missing = path.join(dir.dir, 'missing.json');
    await expect(withSection(missing, opts, () => Promise.resolve(1))).rejects.toMatchObject({
      name: 'CliError',
      exitCode: EXIT_CODES.config,
    });
    expect(opts.progress.calls).toEqual([]);
  });

  it('throws exit 4 for an unreachable server with "throw", stopping progress and never running use', async () => {
    const down = await dir.write('down.json', {
      down: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
    });
    const opts = options('throw');
    let ran = false;
    const error: unknown = await withSection(down, opts, () => {
      ran = true;
      return Promise.resolve();
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT_CODES.connection);
    expect(ran).toBe(false);
    expect(opts.progress.calls).toEqual(['start: connecting to down (streamable-http)', 'stop']);
  });

  it('with "report", runs use with the unreachable server listed as unavailable', async () => {
    const mixed = await dir.write('mixed.json', {
      srv: { type: 'http', url: host.url('/mcp') },
      down: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` },
    });
    const unavailable = await withSection(mixed, options('report'), ({ section }) =>
      Promise.resolve(section.unavailableServers.map((server) => server.name)),
    );
    expect(unavailable).toEqual(['down']);
  });

  it('throws exit 130 when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('received SIGINT'));
    await expect(
      withSection(config, options('throw', controller.signal), () => Promise.resolve()),
    ).rejects.toMatchObject({
      name: 'CliError',
      exitCode: EXIT_CODES.interrupted,
      message: 'interrupted',
    });
  });

  it('throws exit 130 when aborted while use runs, after disconnecting', async () => {
    const controller = new AbortController();
    let seen: McpIntegrationSection | undefined;
    const error: unknown = await withSection(
      config,
      options('throw', controller.signal),
      ({ section }) => {
        seen = section;
        controller.abort(new Error('received SIGTERM'));
        return Promise.reject(new Error('cancelled'));
      },
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ exitCode: EXIT_CODES.interrupted });
    expect(seen?.connected).toBe(false);
  });
});
