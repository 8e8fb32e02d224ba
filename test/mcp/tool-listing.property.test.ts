/**
 * `parseToolListing` against the SDK's own `ListToolsResultSchema`, which it
 * replaces on the connect path: over generated listings, good and bad and
 * odd, it accepts exactly what the SDK's schema accepts and returns the same
 * tools (the same members, in the same order, copied where the SDK copies),
 * and its refusal names the member, what it held and what was expected.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  IconSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  ToolAnnotationsSchema,
  ToolExecutionSchema,
  ToolSchema,
} from '@modelcontextprotocol/sdk/types.js';
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

  it('copies every object the SDK copies but a plain properties record and required array, so a server that edits those later changes nothing', () => {
    const sent = {
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      annotations: { readOnlyHint: true },
      execution: { taskSupport: 'optional' },
      icons: [{ src: 'a.png', sizes: ['16x16'] }],
      _meta: { a: 1 },
    };
    const before = structuredClone(sent);
    const [copy] = parseToolListing({ tools: [sent] }).tools;
    sent.inputSchema.properties = {} as typeof sent.inputSchema.properties;
    sent.inputSchema.required = [...sent.inputSchema.required, 'x'];
    sent.annotations.readOnlyHint = false;
    sent.execution.taskSupport = 'required';
    sent.icons[0]!.sizes.push('x');
    sent._meta.a = 2;
    expect(copy).toEqual(before);
  });

  it('keeps a plain required array as it stands, and copies an array of another kind', () => {
    class Names extends Array<string> {}
    const plain = ['q'];
    const subclassed = Names.from(['q']);
    const [kept, copied] = parseToolListing({
      tools: [plain, subclassed].map((required, index) => ({
        name: `t${index}`,
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required },
      })),
    }).tools;
    expect(kept!.inputSchema.required).toBe(plain);
    expect(copied!.inputSchema.required).not.toBe(subclassed);
    expect(Object.getPrototypeOf(copied!.inputSchema.required)).toBe(Array.prototype);
  });

  it('keeps a plain properties record as it stands, and copies one the SDK would read otherwise', () => {
    const plain = { q: { type: 'string' } };
    const withSymbol = { q: { type: 'string' }, [Symbol('s')]: undefined };
    Object.defineProperty(withSymbol, Object.getOwnPropertySymbols(withSymbol)[0]!, {
      enumerable: false,
    });
    const inherited = Object.assign(Object.create({ inherited: { type: 'number' } }) as object, {
      q: { type: 'string' },
    });
    const [kept, copiedForSymbol, copiedForPrototype] = parseToolListing({
      tools: [plain, withSymbol, inherited].map((properties, index) => ({
        name: `t${index}`,
        inputSchema: { type: 'object', properties },
      })),
    }).tools;
    expect(kept!.inputSchema.properties).toBe(plain);
    expect(copiedForSymbol!.inputSchema.properties).not.toBe(withSymbol);
    expect(Object.getOwnPropertySymbols(copiedForSymbol!.inputSchema.properties)).toEqual([]);
    expect(copiedForPrototype!.inputSchema.properties).not.toBe(inherited);
    expect(Object.getPrototypeOf(copiedForPrototype!.inputSchema.properties)).toBe(
      Object.prototype,
    );
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

describe('the SDK schema parseToolListing follows', () => {
  it('has the members it was written for: a new SDK member fails here, not silently in a listing', () => {
    expect(Object.keys(ListToolsResultSchema.shape)).toEqual(['_meta', 'nextCursor', 'tools']);
    expect(Object.keys(ToolSchema.shape)).toEqual([
      'name',
      'title',
      'icons',
      'description',
      'inputSchema',
      'outputSchema',
      'annotations',
      'execution',
      '_meta',
    ]);
    expect(Object.keys(ToolAnnotationsSchema.shape)).toEqual([
      'title',
      'readOnlyHint',
      'destructiveHint',
      'idempotentHint',
      'openWorldHint',
    ]);
    expect(Object.keys(ToolExecutionSchema.shape)).toEqual(['taskSupport']);
    expect(Object.keys(IconSchema.shape)).toEqual(['src', 'mimeType', 'sizes', 'theme']);
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
      'tools/list sent tools[0].inputSchema = an array; expected a JSON Schema object with type "object"',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 'x'.repeat(61) } }] },
      'tools/list sent tools[0] ("find").inputSchema.type = a string of 61 characters; expected "object"',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 'a"b' } }] },
      'tools/list sent tools[0] ("find").inputSchema.type = a string of 3 characters; expected "object"',
    ],
    [
      { tools: [{ name: 'find\u202e', inputSchema: { type: -0 } }] },
      'tools/list sent tools[0].inputSchema.type = -0; expected "object"',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 10n ** 3000n } }] },
      'tools/list sent tools[0] ("find").inputSchema.type = a bigint; expected "object"',
    ],
    [
      {
        tools: [
          { name: 'find', inputSchema: { type: 'object' }, icons: [{ src: 'a', sizes: ['1', 2] }] },
        ],
      },
      'tools/list sent tools[0] ("find").icons[0].sizes[1] = 2; expected a string',
    ],
    [
      { tools: [{ name: 'find', inputSchema: { type: 'object', properties: { ['k\n']: 1 } } }] },
      'tools/list sent tools[0] ("find").inputSchema.properties[…] = 1; expected an object',
    ],
  ])('names the member, its value and what was expected (%#)', (result, message) => {
    expect(() => parseToolListing(result)).toThrow(new ToolListingError(message));
  });
});

describe('what an in-process server can hand over that JSON cannot', () => {
  /** The SDK schema's verdict and ours, and the tools when both accept. */
  function both(result: unknown): { sdk: boolean; ours: boolean; same: boolean } {
    const sdk = ListToolsResultSchema.safeParse(result);
    let ours: ReturnType<typeof parseToolListing> | undefined;
    try {
      ours = parseToolListing(result);
    } catch (error) {
      expect(error).toBeInstanceOf(ToolListingError);
    }
    const same =
      sdk.success && ours !== undefined
        ? JSON.stringify(shape(ours.tools)) === JSON.stringify(shape(sdk.data.tools))
        : sdk.success === (ours !== undefined);
    return { sdk: sdk.success, ours: ours !== undefined, same };
  }
  const schema = { type: 'object' };
  const withTool = (tool: Record<string, unknown>): unknown => ({
    tools: [{ name: 't', inputSchema: schema, ...tool }],
  });
  const overridden = <T extends unknown[]>(items: T, method: string, value: unknown): T =>
    Object.defineProperty(items, method, { value, enumerable: false });
  let reads = 0;
  const changing = {
    get src(): unknown {
      reads += 1;
      return reads === 1 ? 'a.png' : { not: 'a string' };
    },
  };
  class Icons extends Array<unknown> {}
  /** `items` with a hole at `index`, as only an in-process array can have. */
  const holed = (items: unknown[], index: number): unknown[] => {
    const copy = [...items];
    // eslint-disable-next-line @typescript-eslint/no-array-delete
    delete copy[index];
    return copy;
  };

  it.each<[string, () => unknown]>([
    ...['title', 'description', 'icons', 'outputSchema', 'annotations', 'execution', '_meta'].map(
      (member): [string, () => unknown] => [
        `${member} present but undefined`,
        () => withTool({ [member]: undefined }),
      ],
    ),
    ...['properties', 'required'].map((member): [string, () => unknown] => [
      `inputSchema.${member} present but undefined`,
      () => withTool({ inputSchema: { type: 'object', [member]: undefined } }),
    ]),
    [
      'icon sizes present but undefined',
      () => withTool({ icons: [{ src: 'a', sizes: undefined }] }),
    ],
    ['a hole in icons', () => withTool({ icons: holed([{}, { src: 'a' }], 0) })],
    ['a hole in sizes', () => withTool({ icons: [{ src: 'a', sizes: holed(['1', '', '2'], 1) }] })],
    [
      'a hole in required',
      () => withTool({ inputSchema: { type: 'object', required: holed(['a', '', 'b'], 1) } }),
    ],
    [
      'an own every() on sizes',
      () => withTool({ icons: [{ src: 'a', sizes: overridden([5, {}], 'every', () => true) }] }),
    ],
    [
      'an own map() on icons',
      () => withTool({ icons: overridden([{ src: 'a' }], 'map', () => [{ src: 1, evil: true }]) }),
    ],
    [
      'an own iterator on required',
      () =>
        withTool({
          inputSchema: {
            type: 'object',
            required: overridden(['a'], Symbol.iterator as unknown as string, function* () {
              yield 42;
            }),
          },
        }),
    ],
    ['an Array subclass of icons', () => withTool({ icons: Icons.from([{ src: 'a' }]) })],
    [
      'a symbol key in properties',
      () => withTool({ inputSchema: { type: 'object', properties: { [Symbol('s')]: {} } } }),
    ],
    ['a symbol key in _meta', () => withTool({ _meta: { [Symbol('s')]: 1 } })],
    [
      'a constructor function in properties',
      () =>
        withTool({ inputSchema: { type: 'object', properties: { constructor: function f() {} } } }),
    ],
    ['a class as _meta.constructor', () => withTool({ _meta: { constructor: class {} } })],
    [
      'a prototype without a prototype',
      () => withTool({ _meta: Object.create(Object.create(null) as object) }),
    ],
    [
      'a non-enumerable member of properties',
      () =>
        withTool({
          inputSchema: {
            type: 'object',
            properties: Object.defineProperty({}, 'hidden', { value: 3, enumerable: false }),
          },
        }),
    ],
  ])('%s: the same verdict and the same tools as the SDK schema', (_name, make) => {
    expect(both(make()).same).toBe(true);
  });

  it('never copies a symbol key, even one a getter makes enumerable while the record is read', () => {
    const late = Symbol('late');
    const properties: Record<string | symbol, unknown> = {};
    Object.defineProperty(properties, 'a', {
      enumerable: true,
      get() {
        Object.defineProperty(properties, late, { enumerable: true });
        return {};
      },
    });
    Object.defineProperty(properties, late, { value: 5, enumerable: false, configurable: true });
    const [tool] = parseToolListing(
      withTool({ inputSchema: { type: 'object', properties } }),
    ).tools;
    expect(Object.getOwnPropertySymbols(tool?.inputSchema.properties)).toEqual([]);
    expect(tool?.inputSchema.properties).toEqual({ a: {} });
  });

  it('an item read once: a getter that changes cannot pass the check and then change', () => {
    reads = 0;
    const [tool] = parseToolListing(withTool({ icons: [changing] })).tools;
    expect(tool?.icons).toEqual([{ src: 'a.png' }]);
    expect(reads).toBe(1);
  });

  it('a throwing getter fails the listing with a message that says so', async () => {
    const server = new Server({ name: 'odd', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 't',
          get inputSchema(): never {
            throw Object.create(null) as Error;
          },
        },
      ],
    }));
    const section = new McpIntegrationSection({
      servers: [{ name: 'odd', transport: { type: 'in-memory', server } }],
      session: new Session(),
      onConnectError: 'report',
    });
    try {
      await section.connect();
      expect(section.unavailableServers.map(({ reason }) => reason)).toEqual([
        'cannot connect: tools/list could not be read: a thrown value that cannot be written as text',
      ]);
    } finally {
      await section.disconnect();
    }
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
