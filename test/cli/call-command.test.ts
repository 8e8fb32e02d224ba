/**
 * Pins how `callCommand` picks and explains: only the named server is
 * connected, a server or tool name that leads nowhere lists the candidates
 * one per line with a guess, a configured server that could not connect
 * says so with its reason, and JSON arguments with a typo are refused
 * before connecting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCommand } from '../../src/cli/commands.js';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { HttpHost, RawTool } from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';
import {
  captureIo,
  configDir,
  hostWithToken,
  startToolHost,
  type ConfigDir,
  commandContext,
  type SecretHost,
} from './mcp-host.js';

const text = (value: string) => () => ({ content: [{ type: 'text' as const, text: value }] });
const TOOLS: readonly RawTool[] = [
  { name: 'greet', description: 'Greets', inputSchema: { type: 'object' }, handler: text('hi') },
  {
    name: 'ping',
    description: 'Answers pong',
    inputSchema: { type: 'object' },
    handler: text('pong'),
  },
  { name: 'fail', description: 'Fails', inputSchema: { type: 'object' }, handler: text('x') },
];

describe('callCommand names', () => {
  const before = childPids();
  let host: HttpHost;
  let dir: ConfigDir;
  let config: string;
  let withDown: string;
  /** Why the server that listens nowhere is unavailable: fetch's failure and its cause. */
  let downReason: string;

  beforeAll(async () => {
    host = await startToolHost(TOOLS);
    dir = await configDir('cli-call');
    config = await dir.write('servers.json', { srv: { type: 'http', url: host.url('/mcp') } });
    const downPort = await freePort();
    downReason = `cannot connect: fetch failed: connect ECONNREFUSED 127.0.0.1:${downPort}`;
    withDown = await dir.write('two.json', {
      srv: { type: 'http', url: host.url('/mcp') },
      down: { type: 'http', url: `http://127.0.0.1:${downPort}/mcp` },
    });
  });

  afterAll(async () => {
    await host.close();
    await dir.remove();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('throws exit 4 for a name on a configured server that could not connect, with its reason', async () => {
    const io = captureIo();
    const ctx = commandContext(io);
    const error: unknown = await callCommand(withDown, 'down.x', undefined, ctx).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      exitCode: EXIT_CODES.connection,
      message: `server "down" is configured but unavailable: ${downReason}`,
    });
    // Only the named server was connected.
    expect(ctx.progress.calls).toEqual(['start: connecting to down (streamable-http)', 'stop']);
  });

  it.each([
    ['sr.greet', 'unknown server "sr" in "sr.greet"', ['did you mean srv?']],
    ['nope__greet', 'unknown server "nope" in "nope__greet"', []],
  ])(
    'throws exit 2 for %s before connecting anything, listing the configured servers one per line',
    async (name, message, guess) => {
      const io = captureIo();
      const ctx = commandContext(io);
      const error: unknown = await callCommand(withDown, name, undefined, ctx).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        exitCode: EXIT_CODES.usage,
        message,
        details: [...guess, 'configured servers:', '  srv', '  down'],
      });
      expect(ctx.progress.calls).toEqual([]);
    },
  );

  it('connects only the server a bridged name starts with', async () => {
    const io = captureIo();
    const ctx = commandContext(io);
    expect(await callCommand(withDown, 'srv_ping', undefined, ctx)).toBe(EXIT_CODES.ok);
    expect(ctx.progress.calls).toEqual(['start: connecting to srv (streamable-http)', 'stop']);
  });

  it('throws exit 2 for an unknown tool, with a guess and the tools of that server one per line', async () => {
    const error: unknown = await callCommand(
      config,
      'srv.gret',
      undefined,
      commandContext(captureIo()),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      exitCode: EXIT_CODES.usage,
      message: 'server "srv" has no tool "gret"',
      details: [
        'did you mean srv.greet?',
        'tools of srv:',
        '  srv.greet',
        '  srv.ping',
        '  srv.fail',
      ],
    });
  });

  it('for a bare name of no server, connects every server and lists every tool and the unavailable servers', async () => {
    const error: unknown = await callCommand(
      withDown,
      'pong',
      undefined,
      commandContext(captureIo()),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      exitCode: EXIT_CODES.connection,
      message: 'unknown tool "pong"',
      details: [
        'did you mean srv_ping?',
        'available tools:',
        '  srv_greet',
        '  srv_ping',
        '  srv_fail',
        'configured but unavailable:',
        `  down: ${downReason}`,
      ],
    });
  });

  it('throws exit 2 for JSON arguments with a syntax error, before connecting', async () => {
    const io = captureIo();
    const ctx = commandContext(io);
    const error: unknown = await callCommand(config, 'srv.greet', '{"name": Ann', ctx).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      exitCode: EXIT_CODES.usage,
      message:
        'invalid JSON arguments at line 1, column 10: expected a value, found a value without quotes (JSON strings take double quotes)',
      details: ['  {"name": …', '           ^'],
    });
    expect(ctx.progress.calls).toEqual([]);
  });
});

describe('callCommand output of a server with secrets', () => {
  const TOKEN = 'tok-CLIOUTPUT-0123456789';
  const echoing = (isError: boolean) => () => ({
    isError,
    content: [{ type: 'text' as const, text: `authenticated with ${TOKEN}` }],
  });
  const before = childPids();
  let secretHost: SecretHost;
  let config: string;

  beforeAll(async () => {
    secretHost = await hostWithToken(
      [
        { name: 'whoami', inputSchema: { type: 'object' }, handler: echoing(false) },
        { name: 'refuse', inputSchema: { type: 'object' }, handler: echoing(true) },
      ],
      'cli-call-secrets',
      TOKEN,
    );
    config = secretHost.config;
  });

  afterAll(async () => {
    await secretHost.close();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it.each([
    ['whoami', false],
    ['whoami', true],
    ['refuse', false],
    ['refuse', true],
  ])('masks the server’s secret in what %s prints (json: %s)', async (tool, json) => {
    const io = captureIo();
    await callCommand(config, `srv.${tool}`, undefined, commandContext(io, json));
    const printed = io.out() + io.err();
    expect(printed).toContain('authenticated with ***');
    expect(printed).not.toContain(TOKEN);
  });
});
