/**
 * `parseToolListing` against the SDK's own `ListToolsResultSchema`, which it
 * replaces on the connect path: over generated listings, good and bad and
 * odd, it accepts exactly what the SDK's schema accepts and returns the same
 * tools (the same members, in the same order, copied where the SDK copies),
 * and its refusal names the member, what it held and what was expected.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { parseToolListing, ToolListingError } from '../../src/mcp/tool-listing.js';
import { Session } from '../../src/runtime/session.js';

/** Values that break most members: every JSON kind, and objects no JSON text makes. */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
  fc.constant(new Date(0)),
  fc.constant(new Map()),
  fc.constant(Object.create(null) as object),
  fc.constant(() => 1),
);

/** A member name, `__proto__` and the SDK's own names among them. */
const key = fc.oneof(
  fc.constantFrom('__proto__', 'type', 'properties', 'required', 'a', 'b', '$defs', 'extra'),
  fc.string({ maxLength: 4 }),
);

const sometimes = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: odd });

const objectSchema = fc
  .record(
    {
      type: sometimes(fc.constant('object')),
      properties: sometimes(
        fc.dictionary(key, sometimes(fc.record({ type: fc.constantFrom('string', 'integer') })), {
          maxKeys: 3,
        }),
      ),
      required: sometimes(fc.array(sometimes(fc.string({ maxLength: 3 })), { maxLength: 3 })),
      $defs: fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
      extra: odd,
    },
    { requiredKeys: ['type'] },
  )
  .chain((schema) =>
    fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }).map((more) => ({
      ...more,
      ...schema,
    })),
  );

const tool = fc.record(
  {
    name: sometimes(fc.string({ maxLength: 6 })),
    title: sometimes(fc.string({ maxLength: 4 })),
    description: sometimes(fc.string({ maxLength: 8 })),
    inputSchema: sometimes(objectSchema),
    outputSchema: sometimes(objectSchema),
    annotations: sometimes(
      fc.record(
        {
          title: sometimes(fc.string({ maxLength: 3 })),
          readOnlyHint: sometimes(fc.boolean()),
          destructiveHint: sometimes(fc.boolean()),
          idempotentHint: sometimes(fc.boolean()),
          openWorldHint: sometimes(fc.boolean()),
          unknownHint: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    ),
    execution: sometimes(
      fc.record(
        { taskSupport: sometimes(fc.constantFrom('required', 'optional', 'forbidden', 'maybe')) },
        { requiredKeys: [] },
      ),
    ),
    icons: sometimes(
      fc.array(
        sometimes(
          fc.record(
            {
              src: sometimes(fc.string({ maxLength: 3 })),
              mimeType: sometimes(fc.string({ maxLength: 3 })),
              sizes: sometimes(fc.array(sometimes(fc.string({ maxLength: 3 })), { maxLength: 2 })),
              theme: sometimes(fc.constantFrom('light', 'dark', 'sepia')),
              extra: odd,
            },
            { requiredKeys: ['src'] },
          ),
        ),
        { maxLength: 2 },
      ),
    ),
    _meta: sometimes(fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 })),
    extra: odd,
  },
  { requiredKeys: ['name', 'inputSchema'] },
);

const listing = fc
  .record(
    {
      tools: sometimes(fc.array(sometimes(tool), { maxLength: 3 })),
      nextCursor: sometimes(fc.string({ maxLength: 3 })),
    },
    { requiredKeys: ['tools'] },
  )
  // Half of the runs as a transport hands them over: parsed from JSON text,
  // where `__proto__` is an own member and nothing is undefined.
  .chain((result) =>
    fc.boolean().map((viaJson) => {
      if (!viaJson) return result;
      const text = JSON.stringify(result) as string | undefined;
      return text === undefined ? result : (JSON.parse(text) as unknown);
    }),
  );

/** Every member name, in order, at every depth: key order reaches the model through the schemas. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value !== 'object' || value === null) return value;
  return Object.keys(value).map((name) => [name, shape((value as Record<string, unknown>)[name])]);
}

describe('parseToolListing against the SDK schema', () => {
  it('accepts what the SDK accepts, refuses what it refuses, and returns the same tools', () => {
    fc.assert(
      fc.property(listing, (result) => {
        const sdk = ListToolsResultSchema.safeParse(result);
        let ours: ReturnType<typeof parseToolListing>;
        try {
          ours = parseToolListing(result);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolListingError);
          expect(sdk.success).toBe(false);
          return;
        }
        expect(sdk.success).toBe(true);
        if (!sdk.success) return;
        expect(ours.tools).toStrictEqual(sdk.data.tools);
        expect(shape(ours.tools)).toEqual(shape(sdk.data.tools));
        expect(ours.nextCursor).toBe(sdk.data.nextCursor);
      }),
      { numRuns: 3_000 },
    );
  });

  it('copies every object the SDK copies, so a server that edits its own objects later changes nothing', () => {
    const sent = {
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      annotations: { readOnlyHint: true },
      execution: { taskSupport: 'optional' },
      icons: [{ src: 'a.png', sizes: ['16x16'] }],
      _meta: { a: 1 },
    };
    const [copy] = parseToolListing({ tools: [sent] }).tools;
    sent.inputSchema.properties = {} as typeof sent.inputSchema.properties;
    sent.inputSchema.required.push('x');
    sent.annotations.readOnlyHint = false;
    sent.execution.taskSupport = 'required';
    sent.icons[0]!.sizes.push('x');
    sent._meta.a = 2;
    expect(copy).toEqual({
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      annotations: { readOnlyHint: true },
      execution: { taskSupport: 'optional' },
      icons: [{ src: 'a.png', sizes: ['16x16'] }],
      _meta: { a: 1 },
    });
  });

  it('never lets a __proto__ member set a prototype', () => {
    const [copy] = parseToolListing(
      JSON.parse(
        '{"tools":[{"name":"t","_meta":{"__proto__":{"polluted":1}},"inputSchema":{"type":"object","__proto__":{"polluted":1},"properties":{"__proto__":{"type":"string"}}}}]}',
      ),
    ).tools;
    expect(Object.getPrototypeOf(copy!.inputSchema)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(copy!.inputSchema.properties)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(copy!._meta)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(
      '{"name":"t","inputSchema":{"type":"object","properties":{}},"_meta":{}}',
    );
  });
});

describe('parseToolListing refusals', () => {
  it.each([
    [{ tools: 'x' }, 'tools/list sent tools = "x"; expected an array'],
    [{ tools: [], nextCursor: 7 }, 'tools/list sent nextCursor = 7; expected a string'],
    [{ tools: [null] }, 'tools/list sent tools[0] = null; expected an object'],
    [
      { tools: [{ inputSchema: { type: 'object' } }] },
      'tools/list sent tools[0].name = nothing; expected a string',
    ],
    [
      {
        tools: [
          { name: 'ok', inputSchema: { type: 'object' } },
          { name: 'find', inputSchema: { type: 'string' } },
        ],
      },
      'tools/list sent tools[1] ("find").inputSchema.type = "string"; expected "object"',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 'object', properties: { q: 3 } } }] },
      'tools/list sent tools[0] ("find").inputSchema.properties["q"] = 3; expected an object',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 'object', required: ['a', 1] } }] },
      'tools/list sent tools[0] ("find").inputSchema.required[1] = 1; expected a string',
    ],
    [
      {
        tools: [
          { name: 'find', inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'yes' } },
        ],
      },
      'tools/list sent tools[0] ("find").annotations.readOnlyHint = "yes"; expected a boolean',
    ],
    [
      {
        tools: [
          { name: 'find', inputSchema: { type: 'object' }, execution: { taskSupport: 'maybe' } },
        ],
      },
      'tools/list sent tools[0] ("find").execution.taskSupport = "maybe"; expected one of "required", "optional", "forbidden"',
    ],
    [
      {
        tools: [
          { name: 'find', inputSchema: { type: 'object' }, icons: [{ src: 'a', theme: 'sepia' }] },
        ],
      },
      'tools/list sent tools[0] ("find").icons[0].theme = "sepia"; expected one of "light", "dark"',
    ],
    [
      { tools: [{ name: 'x'.repeat(500), inputSchema: [] }] },
      `tools/list sent tools[0] ("${'x'.repeat(60)}…").inputSchema = an array of 0; expected a JSON Schema object with type "object"`,
    ],
  ])('names the member, its value and what was expected (%#)', (result, message) => {
    expect(() => parseToolListing(result)).toThrow(new ToolListingError(message));
  });
});

describe('a server that lists 150,000 tools', () => {
  it('is bridged whole (spreads of its list would overflow the stack)', async () => {
    const schema = { type: 'object' as const };
    const tools = Array.from({ length: 150_000 }, (_, i) => ({
      name: `t${i}`,
      inputSchema: schema,
    }));
    const server = new Server({ name: 'wide', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    const section = new McpIntegrationSection({
      servers: [{ name: 'wide', transport: { type: 'in-memory', server } }],
      session: new Session(),
    });
    try {
      await section.connect();
      expect(section.tools()).toHaveLength(150_000);
      expect(section.tools().at(-1)?.name).toBe('wide_t149999');
    } finally {
      await section.disconnect();
    }
  });
});

describe('a server whose listing breaks the MCP schema', () => {
  const sections: McpIntegrationSection[] = [];
  afterEach(async () => {
    await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  });

  function listingServer(tools: unknown[]): Server {
    const server = new Server({ name: 'odd', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    return server;
  }

  it('is listed as unavailable with the reason, and the other servers work', async () => {
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'odd',
          transport: {
            type: 'in-memory',
            server: listingServer([
              { name: 'find', inputSchema: { type: 'object', required: 'q' } },
            ]),
          },
        },
        {
          name: 'fine',
          transport: {
            type: 'in-memory',
            server: listingServer([{ name: 'ok', inputSchema: { type: 'object' } }]),
          },
        },
      ],
      session: new Session(),
      onConnectError: 'report',
    });
    sections.push(section);
    await section.connect();
    expect(section.tools().map((tool) => tool.name)).toEqual(['fine_ok']);
    expect(section.unavailableServers.map(({ name, reason }) => [name, reason])).toEqual([
      [
        'odd',
        'cannot connect: tools/list sent tools[0] ("find").inputSchema.required = "q"; expected an array of strings',
      ],
    ]);
  });
});
