/**
 * McpIntegrationSection: lifecycle, reporting unavailable servers, the
 * rendered inventory, tool lists that change or come in pages, and rollback
 * of session state changed during a failed call.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  McpConnectionError,
  McpIntegrationSection,
  McpServerUnavailable,
  McpToolProgress,
  McpToolsChanged,
  McpToolTimedOut,
  Prompt,
  PromptRenderError,
  PromptTemplate,
  Session,
  invokeTool,
  type Section,
} from '../../src/index.js';
import {
  onceServerPath,
  rawToolServer,
  recordEvents,
  tempDir,
  toolNamed,
  type RawExtra,
  type RawTool,
} from '../support/mcp-fixtures.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const EXITS_AT_ONCE = {
  type: 'stdio',
  command: process.execPath,
  args: ['-e', 'process.exit(3)'],
} as const;

function echoTool(description = 'Echoes a message'): RawTool {
  return {
    name: 'echo',
    description,
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  };
}

function render(sections: readonly Section<never>[], session: Session): string {
  const template = PromptTemplate.create({ ns: 'test', key: 'prompt', sections });
  return new Prompt(template).render({ session }).text;
}

/** Resolves after pending microtasks and one macrotask: unhandled rejections are reported by then. */
function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('McpIntegrationSection lifecycle', () => {
  it('tools() before connect() throws McpConnectionError; rendering throws PromptRenderError', () => {
    const session = new Session();
    const section = new McpIntegrationSection({
      servers: [
        { name: 'raw', transport: { type: 'in-memory', server: rawToolServer([]).server } },
      ],
      session,
    });
    expect(() => section.tools()).toThrow(McpConnectionError);
    expect(() => section.tools()).toThrow(/await section\.connect\(\)/);
    expect(() => render([section], session)).toThrow(PromptRenderError);
    expect(section.connected).toBe(false);
  });

  it('connected follows connect() and disconnect(); disconnect() is idempotent', async () => {
    const raw = rawToolServer([echoTool()]);
    const session = new Session();
    const section = new McpIntegrationSection({
      servers: [{ name: 'raw', transport: { type: 'in-memory', server: raw.server } }],
      session,
    });
    let closed = 0;
    raw.server.onclose = () => {
      closed += 1;
    };
    expect(section.connected).toBe(false);
    await section.connect();
    expect(section.connected).toBe(true);
    expect(section.tools().map((tool) => tool.name)).toEqual(['raw_echo']);
    await section.connect(); // already connected: nothing happens
    expect(section.connected).toBe(true);

    await section.disconnect();
    expect(section.connected).toBe(false);
    expect(closed).toBe(1);
    await expect(section.disconnect()).resolves.toBeUndefined();
    expect(closed).toBe(1);
    expect(() => section.tools()).toThrow(McpConnectionError);
  });

  it('await using stops the stdio child at the end of the block', async () => {
    const before = childPids();
    await using dir = await tempDir('mcp-section-using');
    let pid: number | null | undefined;
    {
      await using section = new McpIntegrationSection({
        servers: [
          {
            name: 'once',
            transport: { type: 'stdio', command: process.execPath, args: [onceServerPath] },
            env: { ONCE_MARKER: path.join(dir.path, 'marker') },
          },
        ],
        session: new Session(),
      });
      await section.connect();
      pid = section.routes[0]?.active.pid;
      expect(pid).toEqual(expect.any(Number));
      expect(isAlive(pid!)).toBe(true);
    }
    expect(isAlive(pid!)).toBe(false);
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('connectOnInit connects without connect()', async () => {
    const raw = rawToolServer([echoTool()]);
    await using section = new McpIntegrationSection({
      servers: [{ name: 'raw', transport: { type: 'in-memory', server: raw.server } }],
      session: new Session(),
      connectOnInit: true,
    });
    await waitFor(() => section.connected, {
      timeoutMs: 5_000,
      description: 'the section to connect',
    });
    expect(section.tools().map((tool) => tool.name)).toEqual(['raw_echo']);
    await section.connect(); // resolves at once
  });

  it('connectOnInit with a failing server: no unhandled rejection; connect() reports it', async () => {
    const before = childPids();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    onTestFinished(() => {
      process.off('unhandledRejection', onUnhandled);
    });

    const section = new McpIntegrationSection({
      servers: [{ name: 'broken', transport: EXITS_AT_ONCE }],
      session: new Session(),
      connectOnInit: true,
    });
    expect(section.routes).toHaveLength(1); // the connection started at construction
    await waitFor(() => section.routes.length === 0, {
      timeoutMs: 10_000,
      description: 'the connection started at construction to fail',
    });
    await nextMacrotask();
    await nextMacrotask();
    expect(unhandled).toEqual([]);

    await expect(section.connect()).rejects.toBeInstanceOf(McpConnectionError);
    expect(section.connected).toBe(false);
    await section.disconnect();
    expect(unhandled).toEqual([]);
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it("onConnectError 'throw' (the default) rejects connect() and closes the servers that did connect", async () => {
    const raw = rawToolServer([echoTool()]);
    let closed = false;
    raw.server.onclose = () => {
      closed = true;
    };
    const section = new McpIntegrationSection({
      servers: [
        { name: 'good', transport: { type: 'in-memory', server: raw.server } },
        { name: 'broken', transport: EXITS_AT_ONCE },
      ],
      session: new Session(),
    });
    const error = await section.connect().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(error).toMatchObject({ serverName: 'broken', transport: 'stdio' });
    expect(closed).toBe(true);
    expect(() => section.tools()).toThrow(McpConnectionError);
  });
});

describe("onConnectError: 'report'", () => {
  it('lists failed servers in the exact block, sorted, and the good server works', async () => {
    const before = childPids();
    const raw = rawToolServer([echoTool()]);
    const session = new Session();
    const events = recordEvents(session);
    const port = await freePort();
    await using section = new McpIntegrationSection({
      servers: [
        { name: 'zeta', transport: EXITS_AT_ONCE },
        { name: 'good', transport: { type: 'in-memory', server: raw.server } },
        {
          name: 'alpha',
          transport: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` },
        },
      ],
      session,
      onConnectError: 'report',
    });
    await section.connect();

    expect(section.connected).toBe(false);
    expect(section.unavailableServers.map((server) => server.name)).toEqual(['alpha', 'zeta']);
    const [alpha, zeta] = section.unavailableServers;
    // The block names the server already; the reason is the rest of the error.
    expect(alpha?.reason).toMatch(/^cannot connect: /);
    // Not only fetch's "fetch failed": what its cause says, the refused connection.
    expect(alpha?.reason).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
    expect(zeta?.reason).toMatch(/^cannot connect: /);
    expect(
      events.of(McpServerUnavailable).map((event) => [event.serverName, event.transport]),
    ).toEqual(
      expect.arrayContaining([
        ['alpha', 'streamable-http'],
        ['zeta', 'stdio'],
      ]),
    );

    expect(render([section], session)).toBe(
      [
        '## 1. MCP Integrations (mcp.integrations)',
        '',
        'The following external tools are available via MCP:',
        '',
        '### good',
        '',
        '- `good_echo` - Echoes a message',
        '',
        '## Unavailable MCP Servers',
        '',
        'The following servers failed to initialize and their tools are NOT available:',
        `- **alpha**: ${alpha?.reason}`,
        `- **zeta**: ${zeta?.reason}`,
        '',
        'Do not attempt to use tools from these servers.',
      ].join('\n'),
    );

    expect(section.tools().map((tool) => tool.name)).toEqual(['good_echo']);
    const result = await invokeTool(toolNamed(section, 'good_echo'), { message: 'x' }, { session });
    expect(result).toMatchObject({ success: true, message: 'called echo' });
    expect(raw.calls).toEqual([{ name: 'echo', arguments: { message: 'x' } }]);
    await section.disconnect();
    expect(await expectNoNewChildren(before)).toEqual([]);
  });
});

describe('rendering', () => {
  async function twoServers(
    options: { template?: string } = {},
  ): Promise<{ section: McpIntegrationSection; session: Session }> {
    const session = new Session();
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'github',
          transport: {
            type: 'in-memory',
            server: rawToolServer([
              {
                name: 'search',
                description: 'Searches code',
                inputSchema: { type: 'object' },
              },
              {
                name: 'open_issue',
                description: '  Opens   an\nissue ',
                inputSchema: { type: 'object' },
              },
            ]).server,
          },
        },
        {
          name: 'docs',
          toolPrefix: 'd',
          transport: {
            type: 'in-memory',
            server: rawToolServer([{ name: 'lookup', inputSchema: { type: 'object' } }]).server,
          },
        },
      ],
      session,
      ...options,
    });
    await section.connect();
    onTestFinished(() => section.disconnect());
    return { section, session };
  }

  it('renders the default inventory exactly', async () => {
    const { section, session } = await twoServers();
    expect(render([section], session)).toBe(
      [
        '## 1. MCP Integrations (mcp.integrations)',
        '',
        'The following external tools are available via MCP:',
        '',
        '### github',
        '',
        '- `github_search` - Searches code',
        '- `github_open_issue` - Opens an issue',
        '',
        '### docs',
        '',
        '- `d_lookup` - Tool "lookup" of MCP server "docs"',
      ].join('\n'),
    );
  });

  it('nests the sub-headings one level below the section heading', async () => {
    const { section, session } = await twoServers();
    const parent = new MarkdownSection({
      key: 'tools',
      title: 'Tools',
      template: 'Use the tools below.',
      children: [section],
    });
    const text = render([parent], session);
    expect(text).toContain(
      [
        '### 1.1. MCP Integrations (tools.mcp.integrations)',
        '',
        'The following external tools are available via MCP:',
        '',
        '#### github',
      ].join('\n'),
    );
    expect(text).toContain('#### docs\n\n- `d_lookup`');
  });

  it('fills a custom template with server_names, tool_count and tools_by_server', async () => {
    const { section, session } = await twoServers({
      template: `
        Servers: \${server_names}
        Tool count: \${tool_count}

        \${tools_by_server}
      `,
    });
    expect(render([section], session)).toBe(
      [
        '## 1. MCP Integrations (mcp.integrations)',
        '',
        'Servers: github, docs',
        'Tool count: 3',
        '',
        '### github',
        '',
        '- `github_search` - Searches code',
        '- `github_open_issue` - Opens an issue',
        '',
        '### docs',
        '',
        '- `d_lookup` - Tool "lookup" of MCP server "docs"',
      ].join('\n'),
    );
  });
});

describe('tool lists that change or come in pages', () => {
  it('notifications/tools/list_changed: tools() follows and McpToolsChanged is published', async () => {
    const server = new McpServer({ name: 'dynamic', version: '1.0.0' });
    server.registerTool(
      'first',
      { description: 'The first tool', inputSchema: { x: z.string() } },
      ({ x }) => ({ content: [{ type: 'text', text: `first ${x}` }] }),
    );
    const session = new Session();
    const events = recordEvents(session);
    await using section = new McpIntegrationSection({
      servers: [{ name: 'dyn', transport: { type: 'in-memory', server } }],
      session,
    });
    await section.connect();
    expect(section.tools().map((tool) => tool.name)).toEqual(['dyn_first']);
    const first = toolNamed(section, 'dyn_first');

    // Registering after connect makes the SDK send notifications/tools/list_changed.
    const second = server.registerTool(
      'second',
      { description: 'The second tool', inputSchema: { n: z.number() } },
      ({ n }) => ({ content: [{ type: 'text', text: `second ${n}` }] }),
    );
    await waitFor(() => events.of(McpToolsChanged).length >= 1, {
      timeoutMs: 5_000,
      description: 'McpToolsChanged',
    });
    expect(events.of(McpToolsChanged)[0]).toMatchObject({
      serverName: 'dyn',
      added: ['dyn_second'],
      removed: [],
      toolNames: ['dyn_first', 'dyn_second'],
    });
    expect(section.tools().map((tool) => tool.name)).toEqual(['dyn_first', 'dyn_second']);
    // The unchanged tool is the same object.
    expect(toolNamed(section, 'dyn_first')).toBe(first);
    const result = await invokeTool(toolNamed(section, 'dyn_second'), { n: 2 }, { session });
    expect(result).toMatchObject({ success: true, message: 'second 2' });
    expect(render([section], session)).toContain('- `dyn_second` - The second tool');

    second.remove();
    await waitFor(() => events.of(McpToolsChanged).length >= 2, {
      timeoutMs: 5_000,
      description: 'the second McpToolsChanged',
    });
    expect(events.of(McpToolsChanged)[1]).toMatchObject({
      added: [],
      removed: ['dyn_second'],
      toolNames: ['dyn_first'],
    });
    expect(section.tools().map((tool) => tool.name)).toEqual(['dyn_first']);
  });

  it('a prompt rendered again follows the tool list: the same text and definitions while it stands, the new ones after it changed', async () => {
    const server = new McpServer({ name: 'dynamic', version: '1.0.0' });
    server.registerTool(
      'first',
      { description: 'The first tool', inputSchema: { x: z.string() } },
      ({ x }) => ({ content: [{ type: 'text', text: `first ${x}` }] }),
    );
    const session = new Session();
    const events = recordEvents(session);
    await using section = new McpIntegrationSection({
      servers: [{ name: 'dyn', transport: { type: 'in-memory', server } }],
      session,
    });
    await section.connect();
    const prompt = new Prompt(
      PromptTemplate.create({ ns: 'test', key: 'prompt', sections: [section] }),
    );
    const before = prompt.render({ session });
    const again = prompt.render({ session });
    expect(again.text).toBe(before.text);
    expect(again.tools).toBe(before.tools);
    expect(again.toolDefinitions()).toBe(before.toolDefinitions());
    expect(before.toolDefinitions().map((definition) => definition.name)).toEqual(['dyn_first']);

    server.registerTool(
      'second',
      { description: 'The second tool', inputSchema: { n: z.number() } },
      ({ n }) => ({ content: [{ type: 'text', text: `second ${n}` }] }),
    );
    await waitFor(() => events.of(McpToolsChanged).length >= 1, {
      timeoutMs: 5_000,
      description: 'McpToolsChanged',
    });
    const after = prompt.render({ session });
    expect(after.text).toContain('- `dyn_second` - The second tool');
    expect(after.tools.map((tool) => tool.name)).toEqual(['dyn_first', 'dyn_second']);
    expect(after.toolDefinitions().map((definition) => definition.name)).toEqual([
      'dyn_first',
      'dyn_second',
    ]);
    // The unchanged tool keeps its definition object.
    expect(after.toolDefinitions()[0]).toBe(before.toolDefinitions()[0]);
  });

  it('follows nextCursor until every page is listed', async () => {
    const names = ['t1', 't2', 't3', 't4', 't5'];
    const raw = rawToolServer(
      names.map((name) => ({ name, inputSchema: { type: 'object' } })),
      { pageSize: 2 },
    );
    await using section = new McpIntegrationSection({
      servers: [{ name: 'paged', transport: { type: 'in-memory', server: raw.server } }],
      session: new Session(),
    });
    await section.connect();
    expect(raw.listCursors).toEqual([undefined, 'page-2', 'page-4']);
    expect(section.tools().map((tool) => tool.name)).toEqual(names.map((name) => `paged_${name}`));
  });
});

describe('session state changed during a call', () => {
  /** A tool that reports progress once, then fails, succeeds or hangs. */
  function progressTool(name: string, outcome: 'fail' | 'succeed' | 'hang'): RawTool {
    return {
      name,
      inputSchema: { type: 'object' },
      handler: async (_args, extra: RawExtra) => {
        const token = extra._meta?.progressToken;
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2 },
          });
        }
        if (outcome === 'hang') {
          await new Promise<void>((resolve) =>
            extra.signal.addEventListener('abort', () => resolve(), { once: true }),
          );
        }
        return outcome === 'fail'
          ? { isError: true, content: [{ type: 'text', text: 'it broke' }] }
          : { content: [{ type: 'text', text: 'done' }] };
      },
    };
  }

  async function setup(): Promise<{
    section: McpIntegrationSection;
    session: Session;
    ticks: () => number;
    seen: number[];
  }> {
    const raw = rawToolServer([
      progressTool('fails', 'fail'),
      progressTool('succeeds', 'succeed'),
      progressTool('hangs', 'hang'),
    ]);
    const session = new Session();
    const slice = session.slice('progress', { initial: { ticks: 0 } });
    slice.on(McpToolProgress, (draft) => {
      draft.ticks += 1;
    });
    const seen: number[] = [];
    session.bus.subscribe(McpToolProgress, () => seen.push(slice.get().ticks));
    const section = new McpIntegrationSection({
      servers: [
        { name: 'p', transport: { type: 'in-memory', server: raw.server }, timeoutMs: 200 },
      ],
      session,
    });
    await section.connect();
    onTestFinished(() => section.disconnect());
    return { section, session, ticks: () => slice.get().ticks, seen };
  }

  it('is kept when the call succeeds', async () => {
    const { section, session, ticks, seen } = await setup();
    const result = await invokeTool(toolNamed(section, 'p_succeeds'), {}, { session });
    expect(result.success).toBe(true);
    expect(seen).toEqual([1]);
    expect(ticks()).toBe(1);
  });

  it('is rolled back when the server reports an error', async () => {
    const { section, session, ticks, seen } = await setup();
    const result = await invokeTool(toolNamed(section, 'p_fails'), {}, { session });
    expect(result).toMatchObject({ success: false, message: 'it broke' });
    expect(seen).toEqual([1]);
    expect(ticks()).toBe(0);
  });

  it('is rolled back when the call times out', async () => {
    const { section, session, ticks, seen } = await setup();
    const events = recordEvents(session);
    const result = await invokeTool(toolNamed(section, 'p_hangs'), {}, { session });
    expect(result).toMatchObject({
      success: false,
      message: 'tool "hangs" of server "p" timed out after 200 ms',
    });
    expect(events.of(McpToolTimedOut)).toHaveLength(1);
    expect(seen).toEqual([1]);
    expect(ticks()).toBe(0);
  });
});

describe('descriptions and titles', () => {
  const long = `Reads a file. ${'Use this to read one text file at a time; '.repeat(10)}`.trim();

  async function sectionWith(options: { inventoryDescriptionLength?: number } = {}) {
    const server = new McpServer({ name: 'files', version: '1.0.0' });
    server.registerTool(
      'read',
      { title: 'Read a file', description: long, annotations: { openWorldHint: false } },
      () => ({ content: [{ type: 'text', text: 'ok' }] }),
    );
    const session = new Session();
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'fs', transport: { type: 'in-memory', server } }],
      ...options,
    });
    onTestFinished(() => section.disconnect());
    await section.connect();
    const template = PromptTemplate.create({
      ns: 'test',
      key: 'descriptions',
      sections: [section],
    });
    return new Prompt(template).render({ session });
  }

  it('gives the model the whole description and the title; only the inventory line is cut', async () => {
    const rendered = await sectionWith();
    expect(long.length).toBeGreaterThan(400);
    expect(rendered.toolDefinitions()).toEqual([
      expect.objectContaining({ name: 'fs_read', title: 'Read a file', description: long }),
    ]);
    const line = rendered.text.split('\n').find((text) => text.startsWith('- `fs_read`'));
    expect(line).toBe(`- \`fs_read\` - ${long.slice(0, 199).trimEnd()}…`);
  });

  it('cuts the inventory line where the section says', async () => {
    const rendered = await sectionWith({ inventoryDescriptionLength: 40 });
    const line = rendered.text.split('\n').find((text) => text.startsWith('- `fs_read`'));
    expect(line).toBe(`- \`fs_read\` - ${long.slice(0, 39).trimEnd()}…`);
    expect(rendered.toolDefinitions()[0]?.description).toBe(long);
  });

  it('refuses an inventory length that is not a whole number of at least 1', () => {
    expect(
      () =>
        new McpIntegrationSection({
          session: new Session(),
          servers: [],
          inventoryDescriptionLength: 0,
        }),
    ).toThrow(
      /inventoryDescriptionLength must be a whole number of characters of at least 1, received 0/,
    );
  });
});
