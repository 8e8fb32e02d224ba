/**
 * A server's secret in the text of its own tool list — a tool's name, an
 * argument's name, description, title and default — never reaches what the
 * CLI prints or writes: `inspect` (text and JSON), the names `call` lists
 * for a name that leads nowhere, and the file `codegen -o` writes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCommand, codegenCommand, inspectCommand } from '../../src/cli/commands.js';
import { CliError, EXIT_CODES } from '../../src/cli/exit-codes.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';
import { captureIo, commandContext, hostWithToken, type SecretHost } from './mcp-host.js';

/** Lower-case letters and digits: it would fit in a bridged tool name unchanged. */
const TOKEN = 'ghpz9xq7kl2mn4pr8st1uv';
/** The bridged name of `tok_<TOKEN>`: from its masked form (tool-naming.ts). */
const BRIDGED = /^srv_tok_{5}[0-9a-f]{8}$/;

describe('CLI output of a server whose tool list holds its secret', () => {
  const before = childPids();
  let secretHost: SecretHost;
  let config: string;

  beforeAll(async () => {
    secretHost = await hostWithToken(
      [
        { name: `tok_${TOKEN}`, description: 'Innocent', inputSchema: { type: 'object' } },
        {
          name: 'schema_desc',
          description: 'Innocent',
          inputSchema: {
            type: 'object',
            properties: {
              q: { type: 'string', description: `use key ${TOKEN}`, default: TOKEN, title: TOKEN },
              [`k_${TOKEN}`]: { type: 'string' },
            },
          },
        },
        {
          name: 'described',
          description: 'Innocent',
          inputSchema: {
            type: 'object',
            properties: { q: { type: 'string', description: `use key ${TOKEN}` } },
          },
        },
      ],
      'cli-tool-text-secrets',
      TOKEN,
    );
    config = secretHost.config;
  });

  afterAll(async () => {
    await secretHost.close();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('masks it in the names, descriptions, defaults and argument names inspect prints', async () => {
    const io = captureIo();
    expect(await inspectCommand(config, commandContext(io))).toBe(EXIT_CODES.ok);
    expect(io.out() + io.err()).not.toContain(TOKEN);
    expect(io.out()).toMatch(/\n {2}srv_tok_{5}[0-9a-f]{8} {2}\(srv\.tok_\*\*\*\)\n/);
    expect(io.out()).toContain('    - q: string, optional, default "***" - use key ***\n');
    expect(io.out()).toContain('    - k_***: string, optional\n');
  });

  it('masks it everywhere in inspect --json, the input schema included', async () => {
    const io = captureIo();
    expect(await inspectCommand(config, commandContext(io, true))).toBe(EXIT_CODES.ok);
    expect(io.out()).not.toContain(TOKEN);
    const report = JSON.parse(io.out()) as {
      tools: { name: string; originalName: string; inputSchema: unknown }[];
    };
    expect(report.tools[0]?.name).toMatch(BRIDGED);
    expect(report.tools[0]?.originalName).toBe('tok_***');
    expect(report.tools[1]?.inputSchema).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'use key ***', default: '***', title: '***' },
        'k_***': { type: 'string' },
      },
    });
  });

  it.each([
    ['srv.nosuchtool', ['tools of srv:', '  srv.tok_***', '  srv.schema_desc', '  srv.described']],
    [
      'nosuchtool',
      [
        'available tools:',
        expect.stringMatching(/^ {2}srv_tok_{5}[0-9a-f]{8}$/),
        '  srv_schema_desc',
        '  srv_described',
      ],
    ],
  ])('masks it in the tools call lists for %s', async (name, details) => {
    const error: unknown = await callCommand(
      config,
      name,
      undefined,
      commandContext(captureIo()),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ exitCode: EXIT_CODES.usage, details });
    expect(JSON.stringify((error as CliError).details)).not.toContain(TOKEN);
  });

  it('shows nothing of it in the tool name call --json reports', async () => {
    const io = captureIo();
    const code = await callCommand(config, `srv.tok_${TOKEN}`, undefined, commandContext(io, true));
    expect(code).toBe(EXIT_CODES.ok);
    expect(io.out()).not.toContain(TOKEN);
    const report = JSON.parse(io.out()) as { tool: string; success: boolean };
    expect(report.tool).toMatch(BRIDGED);
    expect(report.success).toBe(true);
  });

  it('never writes it into the file codegen -o writes', async () => {
    const output = path.join(secretHost.dir.dir, 'tools.ts');
    const io = captureIo();
    expect(await codegenCommand(config, output, commandContext(io))).toBe(EXIT_CODES.ok);
    const source = await readFile(output, 'utf8');
    expect(source).not.toContain(TOKEN);
    // A description is masked and the binding stays exact...
    expect(source).toContain(
      'export const srvDescribedArgs = z.object({ "q": z.string().describe("use key ***").optional() });',
    );
    // ...a checked property name cannot be: the binding is loose.
    expect(source).toContain('export const srvSchemaDescArgs = z.record(z.string(), z.unknown());');
    // The tool whose name held it, by its bridged name and its masked original.
    expect(source).toMatch(/MCP server `srv`, tool `tok_\*\*\*`/);
    expect(io.err()).toContain(`wrote ${output}: 3 tools, 2 exact\n`);
    expect(io.err()).not.toContain(TOKEN);
  });
});
