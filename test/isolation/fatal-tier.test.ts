import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpFatalToolError,
  McpIntegrationSection,
  McpToolProgress,
  PRIVATE_DATA_META_KEY,
  Session,
  ToolInvoked,
  invokeTool,
  type Slice,
} from '../../src/index.js';
import { CallCounter } from '../fixtures/isolation/instance-server.js';
import { toolNamed } from '../fixtures/isolation/helpers.js';

/**
 * `query` reports progress (which changes session state through a reducer),
 * then answers with an error result whose text is `message`, optionally with
 * the private-data marker.
 */
function databaseServer(counter: CallCounter): McpServer {
  const server = new McpServer({ name: 'db-fixture', version: '1.0.0' });
  server.registerTool(
    'query',
    { inputSchema: { message: z.string(), marker: z.boolean().optional() } },
    async ({ message, marker }, extra) => {
      counter.record('query');
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: 1, total: 2 },
        });
      }
      return {
        content: [{ type: 'text', text: message }],
        isError: true,
        ...(marker === true
          ? { _meta: { [PRIVATE_DATA_META_KEY]: { dataset: 'orders', sensitivity: 'secret' } } }
          : {}),
      };
    },
  );
  return server;
}

describe('the fatal tier', () => {
  let session: Session;
  let section: McpIntegrationSection;
  let counter: CallCounter;
  let progressSeen: Slice<{ n: number }>;
  let invoked: ToolInvoked[];
  let progressEvents: McpToolProgress[];

  beforeEach(async () => {
    counter = new CallCounter();
    session = new Session();
    progressSeen = session.slice('progress', { initial: { n: 0 } });
    progressSeen.on(McpToolProgress, (draft) => {
      draft.n += 1;
    });
    invoked = [];
    progressEvents = [];
    session.bus.subscribe(McpToolProgress, (event) => progressEvents.push(event));
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event));
    section = new McpIntegrationSection({
      session,
      servers: [{ name: 'db', transport: { type: 'in-memory', server: databaseServer(counter) } }],
    });
    await section.connect();
  });

  afterEach(async () => {
    await section.disconnect();
  });

  const query = (message: string, marker?: boolean): ReturnType<typeof invokeTool> =>
    invokeTool(
      toolNamed(section, 'db_query'),
      { message, ...(marker === undefined ? {} : { marker }) },
      { session },
    );

  it('rolls back, publishes ToolInvoked, then throws McpFatalToolError without the prefix', async () => {
    // Observe the order: ToolInvoked must be out before the throw reaches us.
    let invokedBeforeThrow = -1;
    const outcome = await query('[FATAL] database unreachable').then(
      () => undefined,
      (error: unknown) => {
        invokedBeforeThrow = invoked.length;
        return error;
      },
    );

    expect(outcome).toBeInstanceOf(McpFatalToolError);
    const fatal = outcome as McpFatalToolError;
    expect(fatal.message).toBe('database unreachable');
    expect(fatal.code).toBe('mcp-fatal-tool');
    expect(fatal.toolName).toBe('db_query');
    expect(counter.count('query')).toBe(1);
    expect(invokedBeforeThrow).toBe(1);
    expect(invoked[0]).toMatchObject({
      toolName: 'db_query',
      source: 'mcp',
      mcpServer: 'db',
      originalName: 'query',
      result: { success: false, message: '[FATAL] database unreachable' },
    });
    // The progress reducer did run during the call; the rollback undid it.
    expect(progressEvents).toHaveLength(1);
    expect(progressSeen.get().n).toBe(0);
  });

  it.each(['database slow', '[FATAL]database unreachable', 'error: [FATAL] inside', '[fatal] x'])(
    'returns "%s" as an ordinary error result',
    async (message) => {
      const result = await query(message);
      expect(result).toMatchObject({ success: false, message });
      expect(invoked).toHaveLength(1);
      expect(progressEvents).toHaveLength(1);
      expect(progressSeen.get().n).toBe(0);
    },
  );

  it('keeps the escalation of a fatal result that carried the marker', async () => {
    await expect(query('[FATAL] replica lost', true)).rejects.toThrow(McpFatalToolError);
    expect(session.privateData.sensitivity).toBe('secret');
    expect([...session.privateData.datasets.keys()]).toEqual(['orders']);
  });
});
