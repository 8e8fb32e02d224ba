/**
 * An in-process server hands over its own objects, and may edit them in
 * place before it announces `tools/list_changed`. The listing keeps a
 * plain `properties` record and `required` array as sent, and deeper
 * objects were always the server's: read again, the old and new entries
 * agree, and the tool is kept. Its checks are made again from what the
 * schema holds now: a new required argument is required, and a new
 * write-only one masked where the server echoes it.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/index.js';
import { observedSection } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

function liveServer(properties: Record<string, unknown>, required: string[]) {
  const received: unknown[] = [];
  let listings = 0;
  const server = new Server(
    { name: 'live', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => {
    listings += 1;
    return {
      tools: [{ name: 't', inputSchema: { type: 'object' as const, properties, required } }],
    };
  });
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    received.push(request.params.arguments);
    const echo = `server got ${JSON.stringify(request.params.arguments)}`;
    return { content: [{ type: 'text' as const, text: echo }], isError: true };
  });
  return { server, received, listings: () => listings };
}

describe('a schema an in-process server edits in place, then announces', () => {
  it('is checked as it is now: a new required argument, a new write-only one masked', async () => {
    const properties: Record<string, unknown> = { q: { type: 'string' } };
    const required = ['q'];
    const live = liveServer(properties, required);
    const { section, session } = observedSection([
      { name: 'live', transport: { type: 'in-memory', server: live.server } },
    ]);
    try {
      await section.connect();
      const [before] = section.tools();
      await invokeTool(before!, { q: 'first' }, { session });
      expect(live.received).toEqual([{ q: 'first' }]);
      const copy = before!.withDescription('The same tool under another description');
      expect(copy.params.safeParse({ q: 'first' }).success).toBe(true);

      properties['pin'] = { type: 'string', writeOnly: true };
      required.push('pin');
      await live.server.sendToolListChanged();
      await waitFor(() => !before!.params.safeParse({ q: 'again' }).success, {
        timeoutMs: 10_000,
        description: 'the relisted schema checked',
      });
      expect(live.listings()).toBe(2);
      const [after] = section.tools();
      expect(after).toBe(before); // read again, the entry agrees with itself: the tool is kept
      // A copy (a prompt override's) reads its params through the tool: checked as it is now too.
      expect(copy.params.safeParse({ q: 'again' }).success).toBe(false);

      const missing = await invokeTool(after!, { q: 'again' }, { session });
      expect(missing.message).toMatch(/"pin" is required/);
      expect(live.received).toHaveLength(1); // refused before the server

      const given = await invokeTool(after!, { q: 'again', pin: 'hunter2-PIN' }, { session });
      expect(given.message).toBe('server got {"q":"again","pin":"***"}');
    } finally {
      await section.disconnect();
    }
  });

  it('checks structured output against its output schema as it is now', async () => {
    const input: Record<string, unknown> = { type: 'string' };
    const count: Record<string, unknown> = { type: 'number' };
    const server = new Server(
      { name: 'live', version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'o',
          inputSchema: { type: 'object' as const, properties: { q: input } },
          outputSchema: { type: 'object' as const, properties: { count } },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: 'text' as const, text: '{"count":"one"}' }],
      structuredContent: { count: 'one' },
    }));
    const { section, session } = observedSection([
      { name: 'live', transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      const [tool] = section.tools();
      const refused = await invokeTool(tool!, { q: 'abc' }, { session });
      expect(refused.message).toMatch(/does not match its outputSchema/);

      count['type'] = 'string';
      input['minLength'] = 3; // shows when the relist is read
      await server.sendToolListChanged();
      await waitFor(() => !tool!.params.safeParse({ q: 'ab' }).success, {
        timeoutMs: 10_000,
        description: 'the relisted schema checked',
      });
      const accepted = await invokeTool(tool!, { q: 'abc' }, { session });
      expect(accepted.success).toBe(true);
    } finally {
      await section.disconnect();
    }
  });

  it('masks an argument a deeper edit made write-only', async () => {
    const query: Record<string, unknown> = { type: 'string' };
    const live = liveServer({ q: query }, ['q']);
    const { section, session } = observedSection([
      { name: 'live', transport: { type: 'in-memory', server: live.server } },
    ]);
    try {
      await section.connect();
      const [tool] = section.tools();
      const plain = await invokeTool(tool!, { q: 'visible-value' }, { session });
      expect(plain.message).toBe('server got {"q":"visible-value"}');

      // In the same edit a bound the validator shows, to know when the relist is read.
      query['writeOnly'] = true;
      query['minLength'] = 3;
      await live.server.sendToolListChanged();
      await waitFor(() => !tool!.params.safeParse({ q: 'ab' }).success, {
        timeoutMs: 10_000,
        description: 'the relisted schema checked',
      });

      const masked = await invokeTool(section.tools()[0]!, { q: 'hidden-value' }, { session });
      expect(masked.message).toBe('server got {"q":"***"}');
    } finally {
      await section.disconnect();
    }
  });
});
