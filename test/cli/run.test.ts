import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { CliIo } from '../../src/cli/io.js';
import { HELP, runCli } from '../../src/cli/run.js';
import { everythingServerPath } from '../support/everything.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';
import { repo } from './helpers.js';

interface Captured extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

function capture(stdin?: string): Captured {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }),
    env: {},
    out: () => out,
    err: () => err,
  };
}

/** stderr is exactly one `error: ...` line. */
function expectOneErrorLine(stderr: string): string {
  const lines = stderr.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^error: /);
  return lines[0]!;
}

describe('runCli', () => {
  const dir = path.join(repo, '.tmp', `cli-run-${randomUUID()}`);
  const before = childPids();

  beforeAll(async () => {
    await mkdir(dir, { recursive: true });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  async function file(name: string, content: string): Promise<string> {
    const target = path.join(dir, name);
    await writeFile(target, content);
    return target;
  }

  it('prints help and the version with exit 0', async () => {
    const io = capture();
    expect(await runCli(['--help'], io)).toBe(EXIT_CODES.ok);
    expect(io.out()).toBe(HELP);
    expect(HELP).toContain('Exit codes:');
    const version = capture();
    expect(await runCli(['-V'], version)).toBe(EXIT_CODES.ok);
    expect(version.out()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [[], 'missing command'],
    [['frobnicate'], 'unknown command "frobnicate"'],
    [['inspect'], 'inspect takes one config file'],
    [['call', 'x.json'], 'call takes a config file and a tool name'],
    [['inspect', 'x.json', '--bogus'], "Unknown option '--bogus'"],
    [['inspect', 'x.json', '-o', 'out.ts'], '-o/--output does not apply to inspect'],
    [['inspect', 'x.json', '--dir', 'o'], '--dir does not apply to inspect'],
    [['debug', 't.jsonl', '--force'], '--force does not apply to debug'],
    [
      ['overrides', 'seed', 'm.js', '--dir', 'o', '--port', '1'],
      '--port does not apply to overrides',
    ],
  ])('refuses %j with exit 2', async (argv, message) => {
    const io = capture();
    expect(await runCli(argv, io)).toBe(EXIT_CODES.usage);
    expect(expectOneErrorLine(io.err())).toContain(message);
    expect(io.out()).toBe('');
  });

  it.each([
    [['codegen', 'x.json', '--json'], '--json does not apply to codegen'],
    [['call', '--json', 'x.json'], 'call takes a config file and a tool name'],
    [['inspect', '--json', 'x.json', '--bogus'], "Unknown option '--bogus'"],
  ])(
    'with --json, refuses %j with exit 2 and one JSON document on stdout',
    async (argv, message) => {
      const io = capture();
      expect(await runCli(argv, io)).toBe(EXIT_CODES.usage);
      const line = expectOneErrorLine(io.err());
      expect(line).toContain(message);
      expect(JSON.parse(io.out())).toEqual({
        exitCode: EXIT_CODES.usage,
        error: { message: line.slice('error: '.length) },
      });
    },
  );

  it('with --json after --, prints no JSON document (it is an operand, not the option)', async () => {
    const io = capture();
    expect(await runCli(['call', 'x.json', '--', '--json'], io)).toBe(EXIT_CODES.config);
    expect(io.out()).toBe('');
  });

  it('exits 3 for a config file that cannot be read or is invalid', async () => {
    const missing = capture();
    expect(await runCli(['inspect', path.join(dir, 'nope.json')], missing)).toBe(EXIT_CODES.config);
    expect(expectOneErrorLine(missing.err())).toContain('not found');

    const badJson = capture();
    const broken = await file('broken.json', '{"mcpServers": {');
    expect(await runCli(['inspect', broken], badJson)).toBe(EXIT_CODES.config);
    expect(expectOneErrorLine(badJson.err())).toContain('invalid JSON');

    const badYaml = capture();
    const yaml = await file(
      'config.yaml',
      'mcp_servers:\n  s:\n    command: x\n    timeout_ms: soon\n',
    );
    expect(await runCli(['call', yaml, 's.tool'], badYaml)).toBe(EXIT_CODES.config);
    expect(expectOneErrorLine(badYaml.err())).toContain('mcp_servers.s.timeout_ms');

    const unknown = capture();
    expect(await runCli(['inspect', await file('servers.ini', '')], unknown)).toBe(
      EXIT_CODES.config,
    );

    const empty = capture();
    expect(await runCli(['inspect', await file('empty.json', '{"mcpServers": {}}')], empty)).toBe(
      EXIT_CODES.config,
    );
    expect(expectOneErrorLine(empty.err())).toContain('no servers are configured');
  });

  it('exits 4 when a server cannot be connected, never printing its secrets', async () => {
    const port = await freePort();
    const config = await file(
      'refused.json',
      JSON.stringify({
        mcpServers: {
          down: {
            url: `http://127.0.0.1:${port}/mcp?key=qs-secret-1`,
            headers: { 'X-Api-Key': 'hdr-secret-2' },
          },
        },
      }),
    );
    for (const argv of [
      ['inspect', config],
      ['codegen', config],
      ['call', config, 'down.echo'],
    ]) {
      const io = capture();
      expect(await runCli(argv, io), argv.join(' ')).toBe(EXIT_CODES.connection);
      expect(io.err()).toContain('error: ');
      expect(io.err() + io.out()).not.toMatch(/qs-secret-1|hdr-secret-2/);
    }
  });

  describe('with server-everything over stdio', () => {
    let config: string;
    beforeAll(async () => {
      config = await file(
        'everything.json',
        JSON.stringify({
          mcpServers: {
            everything: { command: process.execPath, args: [everythingServerPath, 'stdio'] },
          },
        }),
      );
    });

    it('exits 2 for a tool that does not exist, listing what does one per line', async () => {
      const io = capture();
      expect(await runCli(['call', '-q', config, 'everything.ecko'], io)).toBe(EXIT_CODES.usage);
      const lines = io.err().split('\n');
      expect(lines.slice(0, 4)).toEqual([
        'error: server "everything" has no tool "ecko"',
        'did you mean everything.echo?',
        'tools of everything:',
        '  everything.echo',
      ]);
      expect(lines).toHaveLength(3 + 13 + 1);
      expect(lines.slice(3, -1).every((line) => /^ {2}everything\.[a-z-]+$/.test(line))).toBe(true);
    });

    it('reads arguments from stdin with -', async () => {
      const io = capture('{"message": "from stdin"}');
      expect(await runCli(['call', '-q', config, 'everything_echo', '-'], io)).toBe(EXIT_CODES.ok);
      expect(io.out()).toBe('Echo: from stdin\n');
    });

    it('exits 130 when interrupted, after disconnecting', async () => {
      const controller = new AbortController();
      const io = capture();
      const running = runCli(
        ['call', '-q', config, 'everything.trigger-long-running-operation', 'duration: 30'],
        io,
        {
          signal: controller.signal,
        },
      );
      controller.abort(new Error('received SIGINT'));
      expect(await running).toBe(EXIT_CODES.interrupted);
      expectOneErrorLine(io.err());
    });
  });
});
