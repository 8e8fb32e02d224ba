/**
 * `inspect` shows a tool's description and its arguments' text cut to
 * `INSPECT_TEXT_LENGTH` characters: a server's text can be megabytes long,
 * and a person reads the listing on a terminal. `--json` keeps it whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSPECT_TEXT_LENGTH, inspectCommand } from '../../src/cli/commands.js';
import { EXIT_CODES } from '../../src/cli/exit-codes.js';
import type { HttpHost } from '../support/mcp-fixtures.js';
import { captureIo, configDir, startToolHost, type ConfigDir, commandContext } from './mcp-host.js';

const HUGE = 2_000_000;
/** Each argument text: the four of them stay under the limit of a tool's schema size. */
const LONG = 50_000;

describe('inspect and long server text', () => {
  let host: HttpHost;
  let dir: ConfigDir;
  let config: string;

  beforeAll(async () => {
    host = await startToolHost([
      {
        name: 'big',
        description: `D${'d'.repeat(HUGE)}`,
        inputSchema: {
          type: 'object',
          properties: {
            note: {
              type: 'string',
              description: `A${'a'.repeat(LONG)}`,
              default: 'x'.repeat(LONG),
            },
            [`k${'k'.repeat(LONG)}`]: { enum: ['e'.repeat(LONG)] },
          },
        },
      },
    ]);
    dir = await configDir('cli-inspect-caps');
    config = await dir.write('servers.json', { srv: { type: 'http', url: host.url('/mcp') } });
  });

  afterAll(async () => {
    await host.close();
    await dir.remove();
  });

  it('cuts each description, name, type and default to INSPECT_TEXT_LENGTH characters', async () => {
    const io = captureIo();
    const code = await inspectCommand(config, commandContext(io));
    expect(io.err()).toBe('');
    expect(code).toBe(EXIT_CODES.ok);
    const out = io.out();
    const tools = out.slice(out.indexOf('\nTools (1)\n'));
    const lines = tools.split('\n');
    const description = lines.find((line) => line.startsWith('    D'));
    expect(description).toBe(`    D${'d'.repeat(INSPECT_TEXT_LENGTH - 2)}…`);
    const note = lines.find((line) => line.startsWith('    - note:'));
    expect(note).toBe(
      `    - note: string, optional, default "${'x'.repeat(INSPECT_TEXT_LENGTH - 2)}…` +
        ` - A${'a'.repeat(INSPECT_TEXT_LENGTH - 2)}…`,
    );
    const key = lines.find((line) => line.startsWith('    - k'));
    expect(key?.length).toBeLessThan(3 * INSPECT_TEXT_LENGTH);
    expect(out.length).toBeLessThan(20 * INSPECT_TEXT_LENGTH);
  });

  it('keeps the whole text in the --json document', async () => {
    const io = captureIo();
    expect(await inspectCommand(config, commandContext(io, true))).toBe(EXIT_CODES.ok);
    const report = JSON.parse(io.out()) as { tools: { description: string }[] };
    expect(report.tools[0]?.description).toHaveLength(HUGE + 1);
  });
});
