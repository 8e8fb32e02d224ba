/**
 * A server's text of megabytes (a JSON-RPC error, an `isError` answer, a
 * log message, a tool description) is masked only as far as it is kept:
 * masking all of it held the event loop for seconds to show a few
 * thousand characters. Its secrets are still masked where it is kept.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MASK_MARGIN, MAX_QUOTED_CHARS } from '../../src/core/errors.js';
import { McpServerLog } from '../../src/mcp/events.js';
import { DEFAULT_MAX_RESULT_CHARS } from '../../src/mcp/result-limit.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { cappedLogText } from '../../src/mcp/server-log.js';
import { serverTextLine } from '../../src/mcp/server-text.js';
import { invokeTool } from '../../src/tools/invoke-tool.js';
import { observedSection, rawToolServer, toolNamed } from '../support/mcp-fixtures.js';

const SECRET = 'tok-Zq81-wW3e-Pp07';
const HUGE = 4_000_000;

afterEach(() => {
  vi.restoreAllMocks();
});

/** The longest text `SecretRedactor.redact` was given while `run` ran. */
async function longestRedacted(run: () => Promise<void> | void): Promise<number> {
  const redact = vi.spyOn(SecretRedactor.prototype, 'redact');
  await run();
  return Math.max(0, ...redact.mock.calls.map(([text]) => text.length));
}

describe('masking before a cut, of megabytes', () => {
  it("masks a bridged call's JSON-RPC error and isError answer only as far as it is kept", async () => {
    const tail = 'x'.repeat(HUGE);
    const raw = rawToolServer([
      {
        name: 'fails',
        inputSchema: { type: 'object' },
        handler: () => {
          throw new McpError(-32603, `failed with ${SECRET} ${tail}`);
        },
      },
      {
        name: 'errs',
        inputSchema: { type: 'object' },
        handler: () => ({ isError: true, content: [{ type: 'text', text: `${SECRET} ${tail}` }] }),
      },
    ]);
    const { session, section } = observedSection([
      { name: 'srv', transport: { type: 'in-memory', server: raw.server }, env: { K: SECRET } },
    ]);
    await section.connect();
    try {
      let failed = '';
      let erred = '';
      const longest = await longestRedacted(async () => {
        failed = (await invokeTool(toolNamed(section, 'srv_fails'), {}, { session })).message;
        erred = (await invokeTool(toolNamed(section, 'srv_errs'), {}, { session })).message;
      });
      expect(longest).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS + MASK_MARGIN + 100);
      expect(failed).toContain('failed with *** xxx');
      expect(failed).toMatch(/more characters\)/);
      expect(failed.length).toBeLessThan(MAX_QUOTED_CHARS + 200);
      expect(erred.startsWith('*** xxx')).toBe(true);
      expect(erred).not.toContain(SECRET);
    } finally {
      await section.disconnect();
    }
  });

  it('masks a log message and a line of server text only as far as they are kept', async () => {
    const redactor = new SecretRedactor([SECRET]);
    const text = `${SECRET} ${'y'.repeat(HUGE)}`;
    let logged = '';
    let line = '';
    const longest = await longestRedacted(() => {
      logged = cappedLogText({ text, whole: true }, (part) => redactor.redact(part));
      line = serverTextLine(text, 200, redactor);
    });
    expect(longest).toBeLessThanOrEqual(8_192 + MASK_MARGIN);
    expect(logged.startsWith('*** yyy')).toBe(true);
    expect(logged).toMatch(/… \(4000019 characters, cut\)$/);
    expect(line.startsWith('*** yyy')).toBe(true);
    expect(line).toMatch(/ … \(4000019 characters, cut\)$/);
    expect(line.length).toBeLessThanOrEqual(200);
  });

  it('publishes a server log of megabytes masked and capped', async () => {
    const server = new Server(
      { name: 'logger', version: '1.0.0' },
      { capabilities: { tools: {}, logging: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'logs', inputSchema: { type: 'object' as const } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async () => {
      await server.sendLoggingMessage({ level: 'error', data: `${SECRET} ${'z'.repeat(HUGE)}` });
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    const { session, section, events } = observedSection([
      { name: 'srv', transport: { type: 'in-memory', server }, env: { K: SECRET } },
    ]);
    await section.connect();
    try {
      const longest = await longestRedacted(async () => {
        await invokeTool(toolNamed(section, 'srv_logs'), {}, { session });
        await expect.poll(() => events.of(McpServerLog).length).toBe(1);
      });
      expect(longest).toBeLessThanOrEqual(8_192 + MASK_MARGIN);
      const [log] = events.of(McpServerLog);
      expect(log?.message.startsWith('*** zzz')).toBe(true);
      expect(log?.message.length).toBeLessThanOrEqual(8_192);
    } finally {
      await section.disconnect();
    }
  });
});
