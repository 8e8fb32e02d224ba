/**
 * A call made while its server is reconnecting waits for the connection
 * and then starts over: private data that entered the session meanwhile
 * refuses a network tool (or sends it to the isolated endpoint) exactly as
 * for a call made afterwards, and the caller's signal and deadline still
 * end the wait.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, McpIntegrationSection, Session } from '../../src/index.js';

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server whose one tool `fetch_page` (no annotations: open world) logs what reached it. */
function webServer(label: string, log: string[]): McpServer {
  const server = new McpServer({ name: label, version: '1.0.0' });
  server.registerTool('fetch_page', { inputSchema: { q: z.string() } }, ({ q }) => {
    log.push(`${label}:${q}`);
    return { content: [{ type: 'text', text: label }] };
  });
  return server;
}

describe('a call made while its server reconnects', () => {
  it('is refused, never sent, when private data entered the session during the wait', async () => {
    const log: string[] = [];
    const server = webServer('web', log);
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'web', transport: { type: 'in-memory', server } }],
    });
    sections.push(section);
    await section.connect();
    const tool = section.tools().find((t) => t.name === 'web_fetch_page')!;
    await server.close(); // lost: the connection reconnects after a backoff
    await pause(10);
    const pending = invokeTool(tool, { q: 'before' }, { session }); // public now: not refused yet
    await pause(20);
    session.privateData.add('patients', 'secret');
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/is blocked/);
    expect(log).toEqual([]);
  });

  it('goes to the isolated endpoint when the switch happened during the wait', async () => {
    const log: string[] = [];
    const normal = webServer('normal', log);
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'web',
          transport: { type: 'in-memory', server: normal },
          isolation: { transport: { type: 'in-memory', server: webServer('isolated', log) } },
        },
      ],
    });
    sections.push(section);
    await section.connect();
    const tool = section.tools().find((t) => t.name === 'web_fetch_page')!;
    await normal.close();
    await pause(10);
    const pending = invokeTool(tool, { q: 'before' }, { session });
    await pause(20);
    session.privateData.add('patients', 'secret');
    expect(await pending).toMatchObject({ success: true, message: 'isolated' });
    expect(log).toEqual(['isolated:before']);
  });

  it.each([
    ['the caller aborts', { abort: true, timeoutMs: 60_000 }, /cancelled: user stop/],
    [
      "the route's timeout passes",
      { abort: false, timeoutMs: 200 },
      /not connected again within 200 ms/,
    ],
  ])('ends when %s, without waiting for the reconnect to end', async (_, options, expected) => {
    const real = new McpServer({ name: 's', version: '1.0.0' });
    real.registerTool('echo', { annotations: { openWorldHint: false } }, () => ({
      content: [{ type: 'text', text: 'x' }],
    }));
    let connects = 0;
    // The first connect reaches the real server; later ones never answer initialize.
    const flaky = {
      connect: async (transport: Transport) => {
        connects += 1;
        if (connects === 1) return real.connect(transport);
        await transport.start();
        transport.onmessage = () => undefined;
      },
      close: () => real.close(),
    };
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 's',
          transport: { type: 'in-memory', server: flaky as never },
          timeoutMs: options.timeoutMs,
        },
      ],
    });
    sections.push(section);
    await section.connect();
    const tool = section.tools().find((t) => t.name === 's_echo')!;
    await real.close();
    await pause(5);
    const controller = new AbortController();
    const pending = invokeTool(tool, {}, { session, signal: controller.signal });
    if (options.abort) setTimeout(() => controller.abort(new Error('user stop')), 50);
    // Without the fix this waits for the whole reconnect cycle (tens of seconds).
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.message).toMatch(expected);
  });
});
