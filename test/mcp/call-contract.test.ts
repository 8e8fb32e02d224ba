/**
 * What a call promises beyond its arguments: structured results that keep
 * the tool's declared outputSchema, and a timeout that progress reports
 * restart, up to a cap, when progress is asked for.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, McpToolProgress, Session, invokeTool } from '../../src/index.js';
import { rawToolServer } from '../support/mcp-fixtures.js';

const OUTPUT_SCHEMA = {
  type: 'object',
  properties: { total: { type: 'number' } },
  required: ['total'],
};

function contractServer(): Server {
  const server = new Server(
    { name: 'contract', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  const annotations = { openWorldHint: false };
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'good', inputSchema: { type: 'object' }, outputSchema: OUTPUT_SCHEMA, annotations },
      { name: 'bad', inputSchema: { type: 'object' }, outputSchema: OUTPUT_SCHEMA, annotations },
      {
        name: 'missing',
        inputSchema: { type: 'object' },
        outputSchema: OUTPUT_SCHEMA,
        annotations,
      },
      {
        name: 'working',
        inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
        annotations,
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    switch (request.params.name) {
      case 'good':
        return { content: [{ type: 'text', text: '3' }], structuredContent: { total: 3 } };
      case 'bad':
        return {
          content: [{ type: 'text', text: 'three' }],
          structuredContent: { total: 'three' },
        };
      case 'missing':
        return { content: [{ type: 'text', text: '3' }] };
      default: {
        // Reports progress every 50 ms for `ms` in all, then answers.
        const ms = Number(request.params.arguments?.['ms'] ?? 0);
        const token = request.params._meta?.progressToken;
        for (let done = 0; done < ms; done += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          if (token !== undefined) {
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: done + 50, total: ms },
            });
          }
        }
        return { content: [{ type: 'text', text: 'done' }] };
      }
    }
  });
  return server;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connected(extra: { timeoutMs?: number; maxTotalTimeoutMs?: number } = {}) {
  const session = new Session();
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'c', transport: { type: 'in-memory', server: contractServer() }, ...extra }],
  });
  sections.push(section);
  await section.connect();
  const call = (name: string, args: Record<string, unknown> = {}) =>
    invokeTool(
      section.tools().find((tool) => tool.name === `c_${name}`)!,
      args,
      { session },
    );
  return { call, session };
}

describe('structured output', () => {
  it('passes a result that keeps the outputSchema', async () => {
    const { call } = await connected();
    const result = await call('good');
    expect(result.success).toBe(true);
    expect(result.value).toMatchObject({ structuredContent: { total: 3 } });
  });

  it('fails a result that breaks it, naming the field', async () => {
    const { call } = await connected();
    const result = await call('bad');
    expect(result.success).toBe(false);
    expect(result.message).toMatch(
      /^tool "bad" of server "c" returned structuredContent that does not match its outputSchema: total: /,
    );
  });

  it('fails a result without structuredContent when an outputSchema is declared', async () => {
    const { call } = await connected();
    expect(await call('missing')).toMatchObject({
      success: false,
      message:
        'tool "missing" of server "c" declares an outputSchema but returned no structuredContent',
    });
  });
});

describe('progress and the timeout', () => {
  it('lets a call that keeps reporting progress run past its timeout when maxTotalTimeoutMs is set', async () => {
    const { call } = await connected({ timeoutMs: 300, maxTotalTimeoutMs: 5_000 });
    const result = await call('working', { ms: 700 });
    expect(result).toMatchObject({ success: true, message: 'done' });
  });

  it('does the same, up to 10 × timeoutMs, while something observes McpToolProgress', async () => {
    const { call, session } = await connected({ timeoutMs: 300 });
    const reports: number[] = [];
    session.bus.subscribe(McpToolProgress, (event) => reports.push(event.progress));
    const result = await call('working', { ms: 700 });
    expect(result).toMatchObject({ success: true, message: 'done' });
    expect(reports.length).toBeGreaterThan(5);
  });

  it('asks for no progress otherwise: timeoutMs holds, and the message says how to extend it', async () => {
    const { call } = await connected({ timeoutMs: 300 });
    const result = await call('working', { ms: 700 });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/timed out after 300 ms/);
    expect(result.message).toMatch(/set maxTotalTimeoutMs/);
  });

  it('still stops it at maxTotalTimeoutMs', async () => {
    const { call } = await connected({ timeoutMs: 300, maxTotalTimeoutMs: 500 });
    const result = await call('working', { ms: 1_500 });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/did not finish within maxTotalTimeoutMs \(500 ms\)/);
  });
});

describe('progress after the answer', () => {
  it('is not published once the call has returned, even when the answer names a task', async () => {
    let late: (() => Promise<void>) | undefined;
    const raw = rawToolServer([
      {
        name: 'work',
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
        handler: (_args, extra) => {
          const progressToken = extra._meta?.progressToken;
          if (progressToken === undefined) throw new Error('no progress token');
          late = () =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: 99, message: 'late' },
            });
          // A task-shaped answer: the SDK keeps the call's progress handler after it.
          return { content: [{ type: 'text', text: 'ok' }], task: { taskId: 't1' } } as never;
        },
      },
    ]);
    const session = new Session();
    const progress: string[] = [];
    session.bus.subscribe(McpToolProgress, (event) => progress.push(event.message ?? ''));
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 's', transport: { type: 'in-memory', server: raw.server } }],
    });
    try {
      await section.connect();
      const result = await invokeTool(section.tools()[0]!, {}, { session });
      expect(result.success).toBe(true);
      await late?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(progress).toEqual([]);
    } finally {
      await section.disconnect();
    }
  });
});
