/**
 * A listed schema is walked once at connect: the survey made as the
 * listing was weighed is the one the refusal check reads, tool by tool,
 * whichever tools the config leaves out.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { observedSection } from '../support/mcp-fixtures.js';

/** How often each tool's nested `type` was read, by tool name. */
type Reads = Record<string, number>;

/** An input schema whose `properties.value.type` counts its reads in `reads[name]`. */
function countedSchema(name: string, reads: Reads): Record<string, unknown> {
  reads[name] = 0;
  const value = {};
  Object.defineProperty(value, 'type', {
    enumerable: true,
    get: () => {
      reads[name] = (reads[name] ?? 0) + 1;
      return 'string';
    },
  });
  return { type: 'object', properties: { value } };
}

/** `$ref`s that loop without data: refused at connect. */
const LOOPING = {
  type: 'object',
  $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
  $ref: '#/$defs/a',
};

function listingServer(tools: readonly Record<string, unknown>[]): Server {
  const server = new Server({ name: 'listed', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  return server;
}

describe("the check at connect reads the listing's survey of each schema", () => {
  it('walks each schema once, however many tools precede it', async () => {
    const reads: Reads = {};
    const tools = ['first', 'second', 'third'].map((name) => ({
      name,
      inputSchema: countedSchema(name, reads),
    }));
    const { section } = observedSection([
      { name: 'listed', transport: { type: 'in-memory', server: listingServer(tools) } },
    ]);
    try {
      await section.connect();
      expect(section.tools().map((tool) => tool.name)).toEqual([
        'listed_first',
        'listed_second',
        'listed_third',
      ]);
      expect(reads).toEqual({ first: 1, second: 1, third: 1 });
    } finally {
      await section.disconnect();
    }
  });

  it('refuses the tool whose own schema is bad, with a left-out tool before it', async () => {
    const reads: Reads = {};
    const tools = [
      { name: 'skipped', inputSchema: countedSchema('skipped', reads) },
      { name: 'fine', inputSchema: countedSchema('fine', reads) },
      { name: 'looping', inputSchema: LOOPING },
      { name: 'after', inputSchema: countedSchema('after', reads) },
    ];
    const { section } = observedSection([
      {
        name: 'listed',
        disabledTools: ['skipped'],
        transport: { type: 'in-memory', server: listingServer(tools) },
      },
    ]);
    try {
      await section.connect();
      const [unavailable] = section.unavailableServers;
      expect(unavailable?.name).toBe('listed');
      expect(unavailable?.reason).toMatch(/"looping".*loop without any data/s);
      expect(reads).toEqual({ skipped: 1, fine: 1, after: 1 });
    } finally {
      await section.disconnect();
    }
  });
});
