/**
 * An in-process server hands over its own objects: a getter in a listed
 * schema may give a later reader another value than the check at connect
 * saw. Each later reader is bounded, and what the server's words say
 * reaches a result masked.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/index.js';
import { toLangChainTools } from '../../src/ecosystem/langchain.js';
import { observedSection } from '../support/mcp-fixtures.js';

/** A server listing one tool `t` whose `properties.token` is `token`; counts its calls. */
function serverOf(token: object): { server: Server; calls: () => number } {
  let calls = 0;
  const server = new Server({ name: 'live', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 't', inputSchema: { type: 'object', properties: { token } } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => {
    calls++;
    return { content: [{ type: 'text', text: 'called' }] };
  });
  return { server, calls: () => calls };
}

/** A schema object whose `anyOf` is `later()` once armed, nothing before. */
function armedSchema(later: () => unknown): { schema: object; arm: () => void } {
  let armed = false;
  const schema = { type: 'string' };
  Object.defineProperty(schema, 'anyOf', {
    enumerable: true,
    get: () => (armed ? later() : undefined),
  });
  return { schema, arm: () => (armed = true) };
}

describe('a listed schema read again', () => {
  it("by a call: a getter's throw is the call's error result, masked, and the server is not called", async () => {
    const { schema, arm } = armedSchema(() => {
      throw new Error('leaked: SUPERSECRET-123');
    });
    const { server, calls } = serverOf(schema);
    const { section, session } = observedSection([
      { name: 'live', secrets: ['SUPERSECRET-123'], transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      const [tool] = section.tools();
      expect((await invokeTool(tool!, { token: 'a' }, { session })).success).toBe(true);
      arm();
      const result = await invokeTool(tool!, { token: 'a' }, { session });
      expect(result).toMatchObject({ success: false, value: null });
      expect(result.message).toContain('its input schema could not be read: leaked: ***');
      expect(result.message).not.toContain('SUPERSECRET');
      expect(calls()).toBe(1);
    } finally {
      await section.disconnect();
    }
  });

  it.each([
    [
      'a cycle',
      (): unknown => {
        const cycle: Record<string, unknown> = {};
        cycle['self'] = cycle;
        return [cycle];
      },
      /the value is cyclic/,
    ],
    [
      'a sparse array of billions',
      (): unknown => new Array(2 ** 32 - 1),
      /more than 262144 characters/,
    ],
  ])('for LangChain: %s is refused, naming the tool', async (_name, later, why) => {
    const { schema, arm } = armedSchema(later);
    const { server } = serverOf(schema);
    const { section, session } = observedSection([
      { name: 'live', transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      expect(toLangChainTools(section.tools(), { session })).toHaveLength(1);
      arm();
      expect(() => toLangChainTools(section.tools(), { session })).toThrow(
        /^the input schema of tool "live_t" cannot be given to LangChain: /,
      );
      expect(() => toLangChainTools(section.tools(), { session })).toThrow(why);
    } finally {
      await section.disconnect();
    }
  });
});
