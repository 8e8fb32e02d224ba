/**
 * Pins the CLI commands in process against an in-process streamable-HTTP
 * server on 127.0.0.1: the exact `inspect` text and JSON, `call`'s output,
 * JSON document and exit codes (1 tool error, 2 refused, 4 unavailable),
 * stdin decoding, and `codegen`'s output, warnings and summary line.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCommand, codegenCommand, inspectCommand } from '../../src/cli/commands.js';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { HttpHost, RawTool } from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';
import { captureIo, configDir, startToolHost, type ConfigDir, commandContext } from './mcp-host.js';

const TOOLS: readonly RawTool[] = [
  {
    name: 'greet',
    description: 'Greets someone',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Who to greet' },
        times: { type: 'integer', default: 1 },
      },
      required: ['name'],
    },
    handler: (args) => ({ content: [{ type: 'text', text: `Hello, ${String(args?.['name'])}!` }] }),
  },
  {
    name: 'ping',
    description: 'Answers pong',
    inputSchema: { type: 'object' },
    handler: () => ({ content: [{ type: 'text', text: 'pong\n' }] }),
  },
  {
    name: 'fail',
    description: 'Always fails',
    inputSchema: { type: 'object', properties: {} },
    handler: () => ({ isError: true, content: [{ type: 'text', text: 'it\nbroke' }] }),
  },
];
const COND_TOOL: RawTool = {
  name: 'cond',
  description: 'Conditional',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'string' } },
    if: { required: ['a'] },
    then: { required: ['a'] },
    not: { required: ['b'] },
  },
};

const PROMPT_LINES = [
  '## 1. MCP Integrations (mcp.integrations)',
  '',
  'The following external tools are available via MCP:',
  '',
  '### srv',
  '',
  '- `srv_greet` - Greets someone',
  '- `srv_ping` - Answers pong',
  '- `srv_fail` - Always fails',
];

describe('CLI commands in process', () => {
  const before = childPids();
  let host: HttpHost;
  let condHost: HttpHost;
  let dir: ConfigDir;
  let config: string;
  let withDown: string;
  let downUrl: string;

  beforeAll(async () => {
    host = await startToolHost(TOOLS);
    condHost = await startToolHost([COND_TOOL]);
    dir = await configDir('cli-commands');
    config = await dir.write('servers.json', { srv: { type: 'http', url: host.url('/mcp') } });
    downUrl = `http://127.0.0.1:${await freePort()}/mcp`;
    withDown = await dir.write('two.json', {
      srv: { type: 'http', url: host.url('/mcp') },
      down: { type: 'http', url: downUrl },
    });
  });

  afterAll(async () => {
    await host.close();
    await condHost.close();
    await dir.remove();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  describe('inspectCommand', () => {
    it('prints servers, the prompt section and every tool with its arguments', async () => {
      const io = captureIo();
      expect(await inspectCommand(config, commandContext(io))).toBe(EXIT_CODES.ok);
      expect(io.out()).toBe(
        [
          'Servers',
          `  srv  streamable-http: ${host.url('/mcp')}  connected, 3 tools`,
          '',
          'Prompt section',
          ...PROMPT_LINES.map((line) => (line === '' ? '' : `  ${line}`)),
          '',
          'Tools (3)',
          '  srv_greet  (srv.greet)',
          '    Greets someone',
          '    - name: string, required - Who to greet',
          '    - times: integer, optional, default 1',
          '  srv_ping  (srv.ping)',
          '    Answers pong',
          '    (no arguments)',
          '  srv_fail  (srv.fail)',
          '    Always fails',
          '    (no arguments)',
          '',
        ].join('\n'),
      );
      expect(io.err()).toBe('');
    });

    it('--json prints the report document', async () => {
      const io = captureIo();
      expect(await inspectCommand(config, commandContext(io, true))).toBe(EXIT_CODES.ok);
      expect(io.out().endsWith('}\n')).toBe(true);
      const report: unknown = JSON.parse(io.out());
      expect(report).toEqual({
        servers: [
          {
            name: 'srv',
            transport: `streamable-http: ${host.url('/mcp')}`,
            status: 'connected',
            toolCount: 3,
          },
        ],
        prompt: PROMPT_LINES.join('\n'),
        tools: [
          {
            name: 'srv_greet',
            server: 'srv',
            originalName: 'greet',
            description: 'Greets someone',
            arguments: [
              { name: 'name', type: 'string', required: true, description: 'Who to greet' },
              { name: 'times', type: 'integer', required: false, default: '1' },
            ],
            inputSchema: TOOLS[0]?.inputSchema,
            annotations: {},
          },
          {
            name: 'srv_ping',
            server: 'srv',
            originalName: 'ping',
            description: 'Answers pong',
            arguments: [],
            inputSchema: { type: 'object' },
            annotations: {},
          },
          {
            name: 'srv_fail',
            server: 'srv',
            originalName: 'fail',
            description: 'Always fails',
            arguments: [],
            inputSchema: { type: 'object', properties: {} },
            annotations: {},
          },
        ],
      });
    });

    /** Why the server that listens nowhere is unavailable: fetch's failure and its cause. */
    const downReason = (): string =>
      `cannot connect: fetch failed: connect ECONNREFUSED 127.0.0.1:${new URL(downUrl).port}`;

    it('reports an unavailable server in the list and on stderr, and exits 4', async () => {
      const io = captureIo();
      expect(await inspectCommand(withDown, commandContext(io))).toBe(EXIT_CODES.connection);
      expect(io.out().split('\n').slice(0, 3)).toEqual([
        'Servers',
        `  srv   streamable-http: ${host.url('/mcp')}  connected, 3 tools`,
        `  down  streamable-http: ${downUrl}  unavailable: ${downReason()}`,
      ]);
      expect(io.err()).toBe(`error: server "down" is unavailable: ${downReason()}\n`);

      const json = captureIo();
      expect(await inspectCommand(withDown, commandContext(json, true))).toBe(
        EXIT_CODES.connection,
      );
      const report = JSON.parse(json.out()) as { servers: unknown[] };
      expect(report.servers[1]).toEqual({
        name: 'down',
        transport: `streamable-http: ${downUrl}`,
        status: 'unavailable',
        reason: downReason(),
        toolCount: 0,
      });
    });
  });

  describe('callCommand', () => {
    it('prints a success message, adding a final newline only when missing', async () => {
      const io = captureIo();
      expect(await callCommand(config, 'srv.greet', 'name: Ann', commandContext(io))).toBe(
        EXIT_CODES.ok,
      );
      expect(io.out()).toBe('Hello, Ann!\n');
      const ping = captureIo();
      expect(await callCommand(config, 'srv__ping', undefined, commandContext(ping))).toBe(
        EXIT_CODES.ok,
      );
      expect(ping.out()).toBe('pong\n');
      expect(ping.err()).toBe('');
    });

    it('--json prints the document with the bridged tool name', async () => {
      const io = captureIo();
      expect(
        await callCommand(config, 'srv.greet', '{"name":"Bo"}', commandContext(io, true)),
      ).toBe(EXIT_CODES.ok);
      expect(JSON.parse(io.out())).toEqual({
        tool: 'srv_greet',
        success: true,
        message: 'Hello, Bo!',
        value: { content: [{ type: 'text', text: 'Hello, Bo!' }] },
        exitCode: EXIT_CODES.ok,
      });
    });

    it('exits 1 for a tool error, with its message on one stderr line and nothing on stdout', async () => {
      const io = captureIo();
      expect(await callCommand(config, 'srv_fail', undefined, commandContext(io))).toBe(
        EXIT_CODES.toolError,
      );
      expect(io.out()).toBe('');
      expect(io.err()).toBe('error: it broke\n');
    });

    it('exits 2 when the validator refuses the arguments, still printing the --json document', async () => {
      const io = captureIo();
      expect(await callCommand(config, 'srv.greet', '{"times":2}', commandContext(io, true))).toBe(
        EXIT_CODES.usage,
      );
      const document = JSON.parse(io.out()) as { tool: string; success: boolean; message: string };
      expect(document).toMatchObject({
        tool: 'srv_greet',
        success: false,
        exitCode: EXIT_CODES.usage,
      });
      expect(io.err()).toBe(`error: ${document.message}\n`);
    });

    it('reads arguments from stdin, decoding UTF-8 split across chunks', async () => {
      const bytes = new TextEncoder().encode('{"name":"Zoë"}');
      const split = bytes.indexOf(0xc3) + 1; // between the two bytes of "ë"
      const chunks = [bytes.slice(0, split), bytes.slice(split)];
      const io = captureIo({ stdin: Readable.from(chunks) });
      expect(await callCommand(config, 'srv.greet', '-', commandContext(io))).toBe(EXIT_CODES.ok);
      expect(io.out()).toBe('Hello, Zoë!\n');
    });

    it('throws exit 2 for "-" with no stdin, before connecting', async () => {
      const io = captureIo();
      const ctx = commandContext(io);
      const error: unknown = await callCommand(config, 'srv.greet', '-', ctx).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        name: 'CliError',
        exitCode: EXIT_CODES.usage,
        message: 'no stdin to read arguments from',
      });
      expect(ctx.progress.calls).toEqual([]);
    });
  });

  describe('codegenCommand', () => {
    it('writes the bindings to stdout for no output or "-", with the config named in the header', async () => {
      for (const output of [undefined, '-']) {
        const io = captureIo();
        expect(await codegenCommand(config, output, commandContext(io))).toBe(EXIT_CODES.ok);
        expect(io.out()).toContain('// Source: servers.json (servers: srv).\n');
        expect(io.out()).toContain(
          'export const srvGreetArgs = z.object({ "name": z.string().describe("Who to greet"), "times": z.number().refine(Number.isInteger, "Invalid input: expected an integer").optional() });',
        );
        expect(io.err()).toBe('');
      }
    });

    it('writes a file, creating its directory, and says how many tools are exact', async () => {
      const output = path.join(dir.dir, 'nested', 'deeper', 'tools.ts');
      const io = captureIo();
      expect(await codegenCommand(config, output, commandContext(io))).toBe(EXIT_CODES.ok);
      expect(io.out()).toBe('');
      expect(io.err()).toBe(`wrote ${output}: 3 tools, 3 exact\n`);
      const source = await readFile(output, 'utf8');
      expect(source).toContain('export const srvPingArgs');
      expect(source).toContain('export const srvFailArgs');
    });

    it('warns for each tool it cannot type exactly, with its first issue and how many more', async () => {
      const cond = await dir.write('cond.json', { c: { type: 'http', url: condHost.url('/mcp') } });
      const output = path.join(dir.dir, 'cond.ts');
      const io = captureIo();
      expect(await codegenCommand(cond, output, commandContext(io))).toBe(EXIT_CODES.ok);
      expect(io.err()).toBe(
        'warning: c_cond: typed as Record<string, unknown>: #: "if" is not converted exactly (and 2 more)\n' +
          `wrote ${output}: 1 tool, 0 exact\n`,
      );
    });

    it('throws exit 4 when a server cannot be connected', async () => {
      const io = captureIo();
      const error: unknown = await codegenCommand(withDown, undefined, commandContext(io)).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT_CODES.connection);
      expect(io.out()).toBe('');
    });
  });
});
