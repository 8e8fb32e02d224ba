import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpIntegrationSection, Session, ToolInvoked } from '../../src/index.js';
import { callRefusal, resolveReach } from '../../src/isolation/permissions.js';
import { CallCounter } from '../fixtures/isolation/instance-server.js';
import { call, collect } from '../fixtures/isolation/helpers.js';

/**
 * Tools: `post` (declared `connect` in config), `fetch_url` (`openWorldHint:
 * true`, so `connect` is inferred), `lookup` (`openWorldHint: true` but
 * configured `read`), `note` (`readOnlyHint: true`).
 */
function permissionsServer(counter: CallCounter): McpServer {
  const server = new McpServer({ name: 'permissions-fixture', version: '1.0.0' });
  const ok = (tool: string) => () => {
    counter.record(tool);
    return { content: [{ type: 'text' as const, text: `${tool} ran` }] };
  };
  server.registerTool('post', { inputSchema: { body: z.string() } }, ok('post'));
  server.registerTool(
    'fetch_url',
    { inputSchema: { url: z.string() }, annotations: { openWorldHint: true } },
    ok('fetch_url'),
  );
  server.registerTool(
    'lookup',
    { annotations: { openWorldHint: true, readOnlyHint: true } },
    ok('lookup'),
  );
  server.registerTool('note', { annotations: { readOnlyHint: true } }, ok('note'));
  return server;
}

const ARGS: Readonly<Record<string, Record<string, unknown>>> = {
  post: { body: 'hello' },
  fetch_url: { url: 'https://example.invalid/' },
  lookup: {},
  note: {},
};

describe('connect permission', () => {
  const sections: McpIntegrationSection[] = [];
  afterEach(async () => {
    await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  });

  async function setup(): Promise<{
    session: Session;
    section: McpIntegrationSection;
    counter: CallCounter;
  }> {
    const counter = new CallCounter();
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [
        {
          name: 'web',
          transport: { type: 'in-memory', server: permissionsServer(counter) },
          permissions: { post: ['write', 'connect'], lookup: ['read'] },
        },
      ],
    });
    sections.push(section);
    await section.connect();
    return { session, section, counter };
  }

  it('lets every tool run while the session holds no private data', async () => {
    const { section, counter } = await setup();
    for (const tool of Object.keys(ARGS)) {
      const result = await call(section, `web_${tool}`, ARGS[tool]);
      expect(result).toMatchObject({ success: true, message: `${tool} ran` });
      expect(counter.count(tool)).toBe(1);
    }
  });

  it.each(['post', 'fetch_url'])(
    'refuses %s once private data is present, without calling the server',
    async (tool) => {
      const { session, section, counter } = await setup();
      const invoked = collect(session, ToolInvoked);
      // Below any isolation threshold: the permission check does not depend on one.
      session.privateData.add('crm-export', 'internal');

      const result = await call(section, `web_${tool}`, ARGS[tool]);

      expect(result.success).toBe(false);
      expect(result.message).toBe(
        `tool "web_${tool}" is blocked: it has the "connect" permission and the session holds private data, ` +
          'so it could send that data out of the network',
      );
      expect(counter.count(tool)).toBe(0);
      expect(invoked).toHaveLength(1);
      expect(invoked[0]).toMatchObject({
        toolName: `web_${tool}`,
        source: 'mcp',
        mcpServer: 'web',
        originalName: tool,
        result,
      });
    },
  );

  it('keeps a configured list without connect working, and refuses an unannotated tool on a server without isolation', async () => {
    const { session, section, counter } = await setup();
    session.privateData.add('crm-export');
    expect(await call(section, 'web_lookup', ARGS.lookup)).toMatchObject({
      success: true,
      message: 'lookup ran',
    });
    // readOnlyHint says nothing about the network; a missing openWorldHint means true.
    const note = await call(section, 'web_note', ARGS.note);
    expect(note.success).toBe(false);
    expect(note.message).toMatch(
      /^tool "web_note" is blocked: the session holds private data, its server has no isolation, and the tool is not declared closed-world/,
    );
    expect(counter.count('lookup')).toBe(1);
    expect(counter.count('note')).toBe(0);
  });

  it('blocks a connect tool again after a restore of a snapshot from before the data', async () => {
    const { session, section, counter } = await setup();
    const before = session.snapshot();
    session.privateData.add('crm-export');
    session.restore(before);
    expect((await call(section, 'web_post', ARGS.post)).success).toBe(false);
    expect(counter.count('post')).toBe(0);
  });
});

describe('resolveReach', () => {
  it('takes the configured list as it is, and declares by it', () => {
    expect(resolveReach(['read'], { openWorldHint: true })).toEqual({
      permissions: ['read'],
      declaredConnect: false,
      declaredClosedWorld: true,
    });
    expect(resolveReach(['connect'], { openWorldHint: false })).toEqual({
      permissions: ['connect'],
      declaredConnect: true,
      declaredClosedWorld: false,
    });
  });

  it('infers connect unless openWorldHint is false, and read from readOnlyHint', () => {
    expect(resolveReach(undefined, { openWorldHint: true, readOnlyHint: true })).toEqual({
      permissions: ['read', 'connect'],
      declaredConnect: true,
      declaredClosedWorld: false,
    });
    expect(resolveReach(undefined, { openWorldHint: false })).toEqual({
      permissions: [],
      declaredConnect: false,
      declaredClosedWorld: true,
    });
    expect(resolveReach(undefined, undefined)).toEqual({
      permissions: ['connect'],
      declaredConnect: false,
      declaredClosedWorld: false,
    });
  });
});

describe('callRefusal', () => {
  const open = resolveReach(undefined, undefined);
  const closed = resolveReach(undefined, { openWorldHint: false });
  const connect = resolveReach(['connect'], undefined);
  const isolated = { hasPrivateData: true, serverIsolated: true };
  const exposed = { hasPrivateData: true, serverIsolated: false };
  const clean = { hasPrivateData: false, serverIsolated: false };

  it('refuses nothing while the session holds no private data', () => {
    for (const reach of [open, closed, connect])
      expect(callRefusal('t', reach, clean)).toBeUndefined();
  });

  it('refuses declared connect tools everywhere once private data is present', () => {
    expect(callRefusal('t', connect, isolated)).toMatch(/"connect" permission/);
    expect(callRefusal('t', connect, exposed)).toMatch(/"connect" permission/);
  });

  it('lets an unannotated tool run on an isolated server only', () => {
    expect(callRefusal('t', open, isolated)).toBeUndefined();
    expect(callRefusal('t', open, exposed)).toMatch(/not declared closed-world/);
    expect(callRefusal('t', closed, exposed)).toBeUndefined();
  });
});
