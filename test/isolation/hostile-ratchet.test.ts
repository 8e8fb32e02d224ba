import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as WireTool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FileSessionStore,
  invokeTool,
  McpIntegrationSection,
  PRIVATE_DATA_META_KEY,
  PrivateDataMarkerMalformed,
  Session,
  type McpServerConfig,
  type SessionStore,
  type Tool,
} from '../../src/index.js';
import { RedisSessionStore } from '../../src/redis.js';
import { startRedis, type TestRedis } from '../fixtures/sessions/redis.js';
import { collect } from '../fixtures/isolation/helpers.js';

/** Names that a plain object lookup would resolve to Object.prototype members. */
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty'];

interface Hostile {
  readonly server: Server;
  readonly calls: string[];
}

/**
 * A low-level server (the high-level one keeps tools in a plain object,
 * where `__proto__` cannot be registered) whose tools return `meta[name]`
 * as the result's `_meta`.
 */
function hostileServer(tools: readonly WireTool[], meta: Record<string, unknown> = {}): Hostile {
  const calls: string[] = [];
  const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const name = request.params.name;
    calls.push(name);
    return {
      content: [{ type: 'text', text: `${name} ran` }],
      ...(Object.hasOwn(meta, name) ? { _meta: meta[name] as Record<string, unknown> } : {}),
    };
  });
  return { server, calls };
}

function wireTool(name: string, annotations?: WireTool['annotations']): WireTool {
  return {
    name,
    inputSchema: { type: 'object' },
    ...(annotations === undefined ? {} : { annotations }),
  };
}

function byOriginal(section: McpIntegrationSection, original: string): Tool {
  const tool = section
    .tools()
    .find((t) => t.origin.kind === 'mcp' && t.origin.originalName === original);
  if (tool === undefined) throw new Error(`no bridged tool for "${original}"`);
  return tool;
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connected(
  session: Session,
  server: Server,
  extra: Partial<McpServerConfig> = {},
): Promise<McpIntegrationSection> {
  const section = new McpIntegrationSection({
    session,
    servers: [{ name: 'web', transport: { type: 'in-memory', server }, ...extra }],
  });
  sections.push(section);
  await section.connect();
  return section;
}

function run(section: McpIntegrationSection, session: Session, original: string) {
  return invokeTool(byOriginal(section, original), {}, { session });
}

describe('tools named after Object.prototype members', () => {
  it('look up sensitiveTools and permissions as own entries only', async () => {
    const session = new Session();
    const { server, calls } = hostileServer([
      wireTool('constructor'),
      wireTool('toString'),
      wireTool('__proto__'),
      wireTool('valueOf'),
      wireTool('hasOwnProperty', { openWorldHint: false }),
    ]);
    // JSON.parse makes "__proto__" an own key, as a config file would.
    const config = JSON.parse(
      '{"sensitiveTools":{"constructor":"secret"},"permissions":{"toString":["read"],"__proto__":["write","connect"]}}',
    ) as Partial<McpServerConfig>;
    const section = await connected(session, server, config);

    // Before any private data every tool runs; none picks up an inherited member.
    // `constructor` goes last: it is the one configured to raise the level.
    for (const name of [...PROTOTYPE_NAMES.filter((n) => n !== 'constructor'), 'constructor']) {
      const result = await run(section, session, name);
      expect(result, name).toMatchObject({ success: true, message: `${name} ran` });
    }
    // Only the configured tool raised the level.
    expect(session.privateData.sensitivity).toBe('secret');
    calls.length = 0;

    const outcome: Record<string, boolean> = Object.fromEntries(
      await Promise.all(
        PROTOTYPE_NAMES.map(
          async (name) => [name, (await run(section, session, name)).success] as const,
        ),
      ),
    );
    expect(outcome).toEqual(
      Object.fromEntries([
        ['constructor', false], // unannotated, server not isolated
        ['toString', true], // configured without connect
        ['__proto__', false], // configured connect
        ['valueOf', false], // unannotated
        ['hasOwnProperty', true], // openWorldHint: false
      ]),
    );
    expect(calls.sort()).toEqual(['hasOwnProperty', 'toString']);
  });
});

describe('malformed private-data markers', () => {
  const MALFORMED: readonly [string, unknown][] = [
    ['a string', 'secret'],
    ['an array', [{ dataset: 'x', sensitivity: 'secret' }]],
    ['a number', 42],
    ['null', null],
    ['an empty object', {}],
    ['an empty dataset', { dataset: '', sensitivity: 'secret' }],
    ['a blank dataset', { dataset: '   ' }],
    ['a numeric dataset', { dataset: 7, sensitivity: 'secret' }],
    ['an unknown level', { dataset: 'crm', sensitivity: 'top-secret' }],
    ['a level in capitals', { dataset: 'crm', sensitivity: 'SECRET' }],
  ];

  it.each(MALFORMED)(
    'raise the session to confidential for %s, with an event',
    async (_label, marker) => {
      const session = new Session();
      const events = collect(session, PrivateDataMarkerMalformed);
      const { server } = hostileServer([wireTool('read', { openWorldHint: false })], {
        read: { [PRIVATE_DATA_META_KEY]: marker },
      });
      const section = await connected(session, server);
      const result = await run(section, session, 'read');
      expect(result.success).toBe(true);
      expect(session.privateData.sensitivity).toBe('confidential');
      expect(session.privateData.hasPrivateData).toBe(true);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        serverName: 'web',
        originalName: 'read',
        sensitivity: 'confidential',
      });
      expect(events[0]!.reason.length).toBeGreaterThan(0);
    },
  );

  it('still honour a well-formed marker, and a marker-free result changes nothing', async () => {
    const session = new Session();
    const { server } = hostileServer(
      [wireTool('plain', { openWorldHint: false }), wireTool('flagged', { openWorldHint: false })],
      { flagged: { [PRIVATE_DATA_META_KEY]: { dataset: '__proto__', sensitivity: 'secret' } } },
    );
    const section = await connected(session, server);
    await run(section, session, 'plain');
    expect(session.privateData.sensitivity).toBe('public');
    await run(section, session, 'flagged');
    expect(session.privateData.sensitivity).toBe('secret');
    expect(session.privateData.datasets.get('__proto__')).toBe('secret');
  });
});

describe('resume keeps level and block for every dataset name', () => {
  let redis: TestRedis;
  let directory: string;
  beforeAll(async () => {
    redis = await startRedis();
    directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-hostile-'));
  });
  afterAll(async () => {
    await redis.dispose();
    await rm(directory, { recursive: true, force: true });
  });

  const stores: readonly [string, () => SessionStore][] = [
    ['FileSessionStore', () => new FileSessionStore({ directory })],
    ['RedisSessionStore', () => new RedisSessionStore({ url: redis.url, keyPrefix: 'hostile:' })],
  ];

  describe.each(stores)('%s', (_name, makeStore) => {
    it.each([...PROTOTYPE_NAMES, 'ordinary'])('dataset %s at secret', async (dataset) => {
      const sessionId = `resume-${dataset.replace(/[^a-z]/gi, '')}-${String(Math.random()).slice(2)}`;
      const first = makeStore();
      const writer = await Session.open({ sessionId, store: first });
      writer.privateData.add(dataset, 'secret');
      await writer.flush();
      await first.close();

      const second = makeStore();
      try {
        const resumed = await Session.open({ sessionId, store: second });
        expect(resumed.privateData.sensitivity).toBe('secret');
        expect(resumed.privateData.hasPrivateData).toBe(true);
        expect(resumed.privateData.datasets.get(dataset)).toBe('secret');

        const { server, calls } = hostileServer([
          wireTool('send', { openWorldHint: true }),
          wireTool('unannotated'),
        ]);
        const section = await connected(resumed, server);
        expect((await run(section, resumed, 'send')).success).toBe(false);
        expect((await run(section, resumed, 'unannotated')).success).toBe(false);
        expect(calls).toEqual([]);
      } finally {
        await second.close();
      }
    });
  });
});
