/**
 * A listed schema is walked once at connect: the survey made as the
 * listing was read is the one the refusal check reads, tool by tool,
 * whichever tools the config leaves out; and a listing's checks let the
 * event loop turn.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { observedSection } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

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
  const server = new Server(
    { name: 'listed', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
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

describe('the checks of a listing, as it is read', () => {
  it('let the event loop turn between schemas that take long to check', async () => {
    // Each schema is near the size limit with 7,000 references to anchors: tens of
    // milliseconds of checks each. Checked in one turn, a listing of them blocked
    // every timer and socket of the process for seconds.
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    const turnsSeen = new Set<number>();
    const tools = Array.from({ length: 60 }, (_, index) => {
      const anchored: Record<string, unknown> = {};
      Object.defineProperty(anchored, '$id', {
        enumerable: true,
        get: () => {
          turnsSeen.add(turn);
          return `#${'%41'.repeat(40_000)}`;
        },
      });
      const references = Array.from({ length: 7_000 }, (_, ref) => ({ $ref: `#${ref}` }));
      return {
        name: `t${index}`,
        inputSchema: { type: 'object', anyOf: [anchored, ...references] },
      };
    });
    const { section } = observedSection([
      { name: 'listed', transport: { type: 'in-memory', server: listingServer(tools) } },
    ]);
    try {
      setImmediate(tick);
      await section.connect();
      expect(section.unavailableServers).toEqual([]);
      expect(section.tools()).toHaveLength(60);
      // One page, read in more than one turn: without the turns, every survey saw the same one.
      expect(turnsSeen.size).toBeGreaterThan(1);
    } finally {
      ticking = false;
      await section.disconnect();
    }
  }, 60_000);
});

describe('a tool listed again', () => {
  it('is compared with what it was within bounds: a getter that grows later costs no more', async () => {
    // The listing weighs `_meta` on each read; the comparison that decides whether
    // the bridged tool is reused reads it once more. Unbounded, 2 million holes
    // were each read and written as null.
    let holeReads = 0;
    const holes = new Proxy(new Array<unknown>(2_000_000), {
      get: (target, key, receiver) => {
        if (key !== 'length') holeReads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    let reads = 0;
    const data = {};
    Object.defineProperty(data, 'grows', {
      enumerable: true,
      get: () => (++reads > 2 ? holes : []),
    });
    const tools = [{ name: 'meta', inputSchema: { type: 'object' }, _meta: { data } }] as const;
    const server = listingServer(tools);
    const { section } = observedSection([
      { name: 'listed', transport: { type: 'in-memory', server } },
    ]);
    try {
      await section.connect();
      const [before] = section.tools();
      expect(before?.name).toBe('listed_meta');
      await server.sendToolListChanged();
      await waitFor(() => reads > 2, { timeoutMs: 10_000, description: 'the second listing' });
      await waitFor(() => section.tools()[0] !== before, {
        timeoutMs: 10_000,
        description: 'the tool bridged anew',
      });
      expect(section.tools().map((tool) => tool.name)).toEqual(['listed_meta']);
      expect(holeReads).toBe(0);
    } finally {
      await section.disconnect();
    }
  });
});
