/**
 * Bounded work per schema and per result: a catastrophic pattern answers at
 * once, a schema whose $refs loop (or one far too large) takes its server
 * out with a clear reason while the others work, and a huge result is cut.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as WireTool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpIntegrationSection, Session, invokeTool } from '../../src/index.js';

function server(
  tools: readonly WireTool[],
  answer: () => unknown = () => ({ content: [] }),
): Server {
  const s = new Server({ name: 'bounded', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  s.setRequestHandler(CallToolRequestSchema, () => answer() as never);
  return s;
}

const annotations = { openWorldHint: false };
const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connect(
  servers: { name: string; server: Server; maxResultChars?: number }[],
  onConnectError: 'throw' | 'report' = 'throw',
) {
  const session = new Session();
  const section = new McpIntegrationSection({
    session,
    onConnectError,
    servers: servers.map(({ name, server: s, maxResultChars }) => ({
      name,
      transport: { type: 'in-memory' as const, server: s },
      ...(maxResultChars === undefined ? {} : { maxResultChars }),
    })),
  });
  sections.push(section);
  await section.connect();
  const call = (name: string, args: Record<string, unknown>) =>
    invokeTool(
      section.tools().find((tool) => tool.name === name)!,
      args,
      { session },
    );
  return { section, call };
}

describe('catastrophic patterns', () => {
  it.each([
    ['^(a+)+$', `${'a'.repeat(50)}!`, 'a'.repeat(50)],
    ['(x+x+)+y', 'x'.repeat(50), 'xxy'],
    ['^(\\w+\\s?)*$', `${'word '.repeat(20)}!`, 'two words'],
  ])('%s answers at once, with the right verdict', async (pattern, bad, good) => {
    const { call } = await connect([
      {
        name: 're',
        server: server([
          {
            name: 'check',
            inputSchema: { type: 'object', properties: { s: { type: 'string', pattern } } },
            annotations,
          },
        ]),
      },
    ]);
    const started = performance.now();
    const refused = await call('re_check', { s: bad });
    const elapsed = performance.now() - started;
    expect(refused.success).toBe(false);
    expect(refused.message).toContain('must match');
    expect((await call('re_check', { s: good })).success).toBe(true);
    // Measured, not asserted against a tight bound on this shared machine: a
    // backtracking engine takes seconds to minutes on these inputs.
    expect(elapsed).toBeLessThan(2_000);
  });
});

describe('schemas that cannot be checked in bounded work', () => {
  it('take only their own server out, with the reason, while the others work', async () => {
    const looping: WireTool = {
      name: 'loop',
      inputSchema: {
        type: 'object',
        properties: { a: { $ref: '#/$defs/x' } },
        $defs: { x: { $ref: '#/$defs/y' }, y: { allOf: [{ $ref: '#/$defs/x' }] } },
      },
      annotations,
    };
    const huge: WireTool = {
      name: 'huge',
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 3_000 }, (_, i) => [
            `p${String(i)}`,
            { type: 'string', description: 'x'.repeat(100) },
          ]),
        ),
      },
      annotations,
    };
    const { section, call } = await connect([
      { name: 'bad', server: server([looping]) },
      { name: 'big', server: server([huge]) },
      {
        name: 'good',
        server: server([{ name: 'echo', inputSchema: { type: 'object' }, annotations }], () => ({
          content: [{ type: 'text', text: 'fine' }],
        })),
      },
    ]);
    const reasons = Object.fromEntries(section.unavailableServers.map((s) => [s.name, s.reason]));
    expect(reasons['bad']).toMatch(/\$refs loop without any data in between/);
    expect(reasons['big']).toMatch(/characters of JSON, above the limit of 262144/);
    expect(section.tools().map((tool) => tool.name)).toEqual(['good_echo']);
    expect(await call('good_echo', {})).toMatchObject({ success: true, message: 'fine' });
  });
});

describe('patterns of many schemas together', () => {
  it('take their server out once they compile to more than a listing may, each schema under its own bound', async () => {
    // Nine patterns of about a thousand RE2 instructions each: under one schema's bound.
    const heavy = (tag: number): WireTool => ({
      name: `t${tag}`,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 9 }, (_, i) => [
            `p${i}`,
            { type: 'string', pattern: `^${tag}x{99${i}}$` },
          ]),
        ),
      },
      annotations,
    });
    const { section } = await connect(
      [
        { name: 'many', server: server(Array.from({ length: 25 }, (_, i) => heavy(i))) },
        { name: 'few', server: server(Array.from({ length: 3 }, (_, i) => heavy(i))) },
      ],
      'report',
    );
    expect(section.unavailableServers.map(({ name }) => name)).toEqual(['many']);
    expect(section.unavailableServers[0]?.reason).toContain(
      "the patterns of the server's schemas together compile to more than 200000 RE2 instructions",
    );
    expect(section.tools().map(({ name }) => name)).toEqual(['few_t0', 'few_t1', 'few_t2']);
  });
});

describe('in-process schemas that JSON cannot carry or that cannot be read', () => {
  it('take only their own server out, with the reason, instead of hanging or failing later', async () => {
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const schemaWith = (value: unknown): WireTool => ({
      name: 't',
      inputSchema: { type: 'object', properties: { a: { type: 'string', enum: value } } },
      annotations,
    });
    const throwing = {
      type: 'array',
      get items(): never {
        throw new Error('getter says no');
      },
    };
    const { section, call } = await connect([
      { name: 'bigint', server: server([schemaWith([10n])]) },
      { name: 'fn', server: server([schemaWith({ toJSON: () => ['a'] })]) },
      {
        name: 'getter',
        server: server([
          { name: 't', inputSchema: { type: 'object', properties: { a: throwing } }, annotations },
        ]),
      },
      { name: 'revoked', server: server([schemaWith(revoked)]) },
      {
        name: 'good',
        server: server([{ name: 'echo', inputSchema: { type: 'object' }, annotations }], () => ({
          content: [{ type: 'text', text: 'fine' }],
        })),
      },
    ]);
    const reasons = Object.fromEntries(section.unavailableServers.map((s) => [s.name, s.reason]));
    expect(reasons['bigint']).toMatch(/holds a bigint, which JSON cannot carry/);
    expect(reasons['fn']).toMatch(/holds a function, which JSON cannot carry/);
    expect(reasons['getter']).toMatch(/could not be read: "getter says no"/);
    expect(reasons['revoked']).toMatch(/could not be read/);
    expect(section.tools().map((tool) => tool.name)).toEqual(['good_echo']);
    expect(await call('good_echo', {})).toMatchObject({ success: true, message: 'fine' });
  });
});

describe('an in-process array of four billion holes', () => {
  it('is refused at once, as gigabytes of nulls past the bound on a whole listing', async () => {
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1; // a walk over the holes would take minutes
    const { section, call } = await connect(
      [
        {
          name: 'sparse',
          server: server([
            {
              name: 't',
              inputSchema: { type: 'object', properties: { a: { enum: sparse } } },
              annotations,
            },
          ]),
        },
        {
          name: 'good',
          server: server([{ name: 'echo', inputSchema: { type: 'object' }, annotations }], () => ({
            content: [{ type: 'text', text: 'fine' }],
          })),
        },
      ],
      'report',
    );
    const [unavailable] = section.unavailableServers;
    expect(unavailable?.name).toBe('sparse');
    expect(unavailable?.reason).toMatch(/tools\/list was larger than \d+/);
    expect(await call('good_echo', {})).toMatchObject({ success: true, message: 'fine' });
  });
});

describe('oversized results', () => {
  it('cuts a 100 MB result to the limit, with a note, keeping the heap bounded', async () => {
    const huge = 'x'.repeat(100 * 1024 * 1024);
    // Flattened now, so the measurement below sees the call's cost, not V8 building the string.
    expect(huge.charCodeAt(huge.length - 1)).toBe(120);
    const { call } = await connect([
      {
        name: 'big',
        server: server([{ name: 'dump', inputSchema: { type: 'object' }, annotations }], () => ({
          content: [
            { type: 'text', text: huge },
            { type: 'image', data: 'A'.repeat(2_000_000), mimeType: 'image/png' },
          ],
        })),
      },
    ]);
    const before = process.memoryUsage().heapUsed;
    const result = await call('big_dump', {});
    const after = process.memoryUsage().heapUsed;
    expect(result.success).toBe(true);
    expect(result.message.length).toBeLessThan(1_100_000);
    expect(result.message).toContain(`[result truncated: ${huge.length} characters, 1000000 kept`);
    // Its data and its MIME type ('image/png'): 2,000,000 + 9.
    expect(result.message).toContain('image block of 2000009 characters left out');
    // The server's string is shared, not copied: what the call adds stays far below it.
    expect(after - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('does not check structured content the limit leaves out against the output schema', async () => {
    // Every value a string: the numbers sent break it, and checking them all would cost what the limit saves.
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const outputSchema = { type: 'object' as const, additionalProperties: { type: 'string' } };
    const { call } = await connect([
      {
        name: 'wide',
        maxResultChars: 10_000,
        server: server(
          [{ name: 'rows', inputSchema: { type: 'object' }, outputSchema, annotations }],
          () => ({ content: [{ type: 'text', text: 'rows' }], structuredContent: wide }),
        ),
      },
      {
        name: 'narrow',
        server: server(
          [{ name: 'rows', inputSchema: { type: 'object' }, outputSchema, annotations }],
          () => ({ content: [{ type: 'text', text: 'rows' }], structuredContent: { k0: 0 } }),
        ),
      },
    ]);
    const left = await call('wide_rows', {});
    expect(left.success).toBe(true);
    expect(left.message).toContain('[structuredContent left out: larger than the result limit');
    // What is kept is checked as ever.
    const kept = await call('narrow_rows', {});
    expect(kept.success).toBe(false);
    expect(kept.message).toContain('does not match its outputSchema');
  });
});
