import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpIntegrationSection, Session, ToolInvoked } from '../../src/index.js';
import { connectRefusal, resolvePermissions } from '../../src/isolation/permissions.js';
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

  it('keeps read tools, and a configured list that overrides openWorldHint, working', async () => {
    const { session, section, counter } = await setup();
    session.privateData.add('crm-export');
    for (const tool of ['lookup', 'note']) {
      const result = await call(section, `web_${tool}`, ARGS[tool]);
      expect(result).toMatchObject({ success: true, message: `${tool} ran` });
      expect(counter.count(tool)).toBe(1);
    }
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

describe('resolvePermissions', () => {
  it('takes the configured list as it is', () => {
    expect(resolvePermissions(['read'], { openWorldHint: true })).toEqual(['read']);
    expect(resolvePermissions([], { openWorldHint: true })).toEqual([]);
  });

  it('infers connect from openWorldHint and read from readOnlyHint', () => {
    expect(resolvePermissions(undefined, { openWorldHint: true, readOnlyHint: true })).toEqual([
      'read',
      'connect',
    ]);
    expect(resolvePermissions(undefined, { openWorldHint: false })).toEqual([]);
    expect(resolvePermissions(undefined, undefined)).toEqual([]);
  });
});

describe('connectRefusal', () => {
  it('refuses only connect tools, and only with private data', () => {
    expect(connectRefusal('t', ['connect'], false)).toBeUndefined();
    expect(connectRefusal('t', ['read', 'write'], true)).toBeUndefined();
    expect(connectRefusal('t', ['read', 'connect'], true)).toMatch(/^tool "t" is blocked/);
  });
});
