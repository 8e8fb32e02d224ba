/**
 * A summarized McpIntegrationSection: one line per server, no tools until
 * the model opens the section or one server; what was opened survives a
 * store round trip and is undone with a failed call; and disclosure never
 * lets a call past the allow and block lists or the ratchet.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FileSessionStore,
  MarkdownSection,
  McpIntegrationSection,
  McpToolsChanged,
  Prompt,
  PromptTemplate,
  PromptValidationError,
  Session,
  Tool,
  ToolResult,
  invokeFromOpenAI,
  invokeTool,
  type McpIntegrationSectionOptions,
  type RenderedPrompt,
  type SessionStore,
} from '../../src/index.js';
import { RedisSessionStore } from '../../src/redis.js';
import { startRedis, type TestRedis } from '../fixtures/sessions/redis.js';
import { rawToolServer, recordEvents, tempDir, type TempDir } from '../support/mcp-fixtures.js';
import { waitFor } from '../support/processes.js';

/** An in-process server whose tools answer `<tool>: <q>`; calls are counted per tool. */
function server(name: string, tools: readonly string[], calls: string[] = []): McpServer {
  const mcp = new McpServer({ name, version: '1.0.0' });
  for (const tool of tools) {
    mcp.registerTool(
      tool,
      {
        description: `${tool.replace('_', ' ')} on ${name}`,
        inputSchema: { q: z.string() },
        annotations: { openWorldHint: false },
      },
      ({ q }) => {
        calls.push(tool);
        return { content: [{ type: 'text', text: `${tool}: ${q}` }] };
      },
    );
  }
  return mcp;
}

const GITHUB_TOOLS = ['list_issues', 'create_issue', 'merge_pull'] as const;
const FILES_TOOLS = ['read_file', 'write_file'] as const;

function twoServers(
  session: Session,
  options: Partial<McpIntegrationSectionOptions> = {},
): McpIntegrationSection {
  return new McpIntegrationSection({
    servers: [
      { name: 'github', transport: { type: 'in-memory', server: server('github', GITHUB_TOOLS) } },
      { name: 'files', transport: { type: 'in-memory', server: server('files', FILES_TOOLS) } },
    ],
    session,
    visibility: 'summary',
    ...options,
  });
}

function promptOf(section: McpIntegrationSection): Prompt {
  return new Prompt(
    PromptTemplate.create({
      ns: 'agent',
      key: 'main',
      sections: [new MarkdownSection({ key: 'task', title: 'Task', template: 'Help.' }), section],
    }),
  );
}

function names(rendered: RenderedPrompt): string[] {
  return rendered.tools.map((tool) => tool.name);
}

/** The model asks to open `keys`, as an OpenAI tool call. */
function openCall(keys: readonly string[]) {
  return {
    id: `call_${randomUUID()}`,
    type: 'function' as const,
    function: {
      name: 'open_sections',
      arguments: JSON.stringify({ section_keys: keys, reason: 'I need these tools' }),
    },
  };
}

const HINT =
  '---\n[Summary only. Call `open_sections` with one of the keys listed above to show that one alone ' +
  'and offer its tools, or with key "mcp.integrations" to open everything.]';

describe('a summarized McpIntegrationSection', () => {
  it('lists servers and tool counts, offers only open_sections, and opens one server on request', async () => {
    const session = new Session();
    await using section = twoServers(session);
    await section.connect();
    const prompt = promptOf(section);

    const first = prompt.render({ session });
    expect(first.text).toBe(
      [
        '## 1. Task (task)',
        '',
        'Help.',
        '',
        '## 2. MCP Integrations (mcp.integrations)',
        '',
        'These MCP servers are connected; their tools are not loaded yet:',
        '',
        '- `mcp.integrations.github` - github: 3 tools',
        '- `mcp.integrations.files` - files: 2 tools',
        '',
        HINT,
      ].join('\n'),
    );
    expect(names(first)).toEqual(['open_sections']);

    const result = await invokeFromOpenAI(first, openCall(['mcp.integrations.files']), {
      session,
    });
    expect(result.success).toBe(true);

    const next = prompt.render({ session });
    expect(next.text).toBe(
      [
        '## 1. Task (task)',
        '',
        'Help.',
        '',
        '## 2. MCP Integrations (mcp.integrations)',
        '',
        'These MCP servers are connected; their tools are not loaded yet:',
        '',
        '- `mcp.integrations.github` - github: 3 tools',
        '',
        'The following external tools are available via MCP:',
        '',
        '### files',
        '',
        '- `files_read_file` - read file on files',
        '- `files_write_file` - write file on files',
        '',
        HINT,
      ].join('\n'),
    );
    // Exactly that server's tools, and open_sections while github stays summarized.
    expect(names(next)).toEqual(['files_read_file', 'files_write_file', 'open_sections']);
    expect(next.toolDefinitions().map((definition) => definition.name)).toEqual(names(next));
  });

  it('opens every server with the section key; nothing is summarized then', async () => {
    const session = new Session();
    await using section = twoServers(session);
    await section.connect();
    const prompt = promptOf(section);
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations']), {
      session,
    });
    const rendered = prompt.render({ session });
    expect(names(rendered)).toEqual([
      'github_list_issues',
      'github_create_issue',
      'github_merge_pull',
      'files_read_file',
      'files_write_file',
    ]);
    expect(rendered.text).toContain('The following external tools are available via MCP:');
    expect(rendered.text).not.toContain('Summary only');
  });

  it('offers no tool of a summarized server: a call by its name is refused before the server', async () => {
    const session = new Session();
    const calls: string[] = [];
    await using section = new McpIntegrationSection({
      servers: [
        {
          name: 'github',
          transport: { type: 'in-memory', server: server('github', GITHUB_TOOLS, calls) },
        },
        {
          name: 'files',
          transport: { type: 'in-memory', server: server('files', FILES_TOOLS, calls) },
        },
      ],
      session,
      visibility: 'summary',
    });
    await section.connect();
    const prompt = promptOf(section);
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations.files']), {
      session,
    });
    const rendered = prompt.render({ session });
    const refused = await invokeFromOpenAI(
      rendered,
      {
        id: 'c',
        type: 'function',
        function: { name: 'github_merge_pull', arguments: '{"q":"1"}' },
      },
      { session },
    );
    expect(refused.success).toBe(false);
    expect(refused.message).toMatch(/^unknown tool "github_merge_pull"; available tools: /);
    const allowed = await invokeFromOpenAI(
      rendered,
      { id: 'd', type: 'function', function: { name: 'files_read_file', arguments: '{"q":"a"}' } },
      { session },
    );
    expect(allowed).toMatchObject({ success: true, message: 'read_file: a' });
    expect(calls).toEqual(['read_file']);
  });

  it('refuses an unknown key, listing the keys that open something', async () => {
    const session = new Session();
    await using section = twoServers(session);
    await section.connect();
    const result = await invokeFromOpenAI(
      promptOf(section).render({ session }),
      openCall(['mcp.integrations.gitlab']),
      { session },
    );
    expect(result.message).toBe(
      'unknown section key "mcp.integrations.gitlab"; keys that can be opened: ' +
        '"mcp.integrations", "mcp.integrations.github", "mcp.integrations.files"',
    );
  });

  it('follows the server: a changed tool list changes the count, and an opened server offers the new tool', async () => {
    const dynamic = server('dyn', ['first']);
    const session = new Session();
    const events = recordEvents(session);
    await using section = new McpIntegrationSection({
      servers: [
        { name: 'dyn', transport: { type: 'in-memory', server: dynamic } },
        { name: 'files', transport: { type: 'in-memory', server: server('files', FILES_TOOLS) } },
      ],
      session,
      visibility: 'summary',
    });
    await section.connect();
    const prompt = promptOf(section);
    expect(prompt.render({ session }).text).toContain('- `mcp.integrations.dyn` - dyn: 1 tool\n');
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations.files']), {
      session,
    });
    dynamic.registerTool('second', { description: 'The second tool' }, () => ({
      content: [{ type: 'text', text: 'second' }],
    }));
    await waitFor(() => events.of(McpToolsChanged).length >= 1, {
      timeoutMs: 5_000,
      description: 'McpToolsChanged',
    });
    expect(prompt.render({ session }).text).toContain('- `mcp.integrations.dyn` - dyn: 2 tools\n');
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations.dyn']), {
      session,
    });
    expect(names(prompt.render({ session }))).toEqual([
      'dyn_first',
      'dyn_second',
      'files_read_file',
      'files_write_file',
    ]);
  });

  it('lists unavailable servers as ever, and cannot open them', async () => {
    const session = new Session();
    await using section = new McpIntegrationSection({
      servers: [
        { name: 'files', transport: { type: 'in-memory', server: server('files', FILES_TOOLS) } },
        {
          name: 'broken',
          transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        },
      ],
      session,
      visibility: 'summary',
      onConnectError: 'report',
    });
    await section.connect();
    const rendered = promptOf(section).render({ session });
    expect(rendered.text).toContain(
      '- `mcp.integrations.files` - files: 2 tools\n\n## Unavailable MCP Servers\n\n' +
        'The following servers failed to initialize and their tools are NOT available:\n- **broken**: ',
    );
    const result = await invokeFromOpenAI(rendered, openCall(['mcp.integrations.broken']), {
      session,
    });
    expect(result.message).toBe(
      'unknown section key "mcp.integrations.broken"; keys that can be opened: "mcp.integrations", "mcp.integrations.files"',
    );
  });

  it('keeps an opened server open by key: while unavailable it is only listed so, once back it is open', async () => {
    const session = new Session();
    {
      await using section = twoServers(session);
      await section.connect();
      const rendered = promptOf(section).render({ session });
      await invokeFromOpenAI(rendered, openCall(['mcp.integrations.files']), { session });
    }
    {
      await using section = new McpIntegrationSection({
        servers: [
          {
            name: 'github',
            transport: { type: 'in-memory', server: server('github', GITHUB_TOOLS) },
          },
          {
            name: 'files',
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: ['-e', 'process.exit(3)'],
            },
          },
        ],
        session,
        visibility: 'summary',
        onConnectError: 'report',
      });
      await section.connect();
      const rendered = promptOf(section).render({ session });
      expect(names(rendered)).toEqual(['open_sections']);
      expect(rendered.text).toContain(
        '- `mcp.integrations.github` - github: 3 tools\n\n## Unavailable MCP Servers',
      );
      expect(rendered.text).toContain('- **files**: ');
    }
    await using section = twoServers(session);
    await section.connect();
    expect(names(promptOf(section).render({ session }))).toEqual([
      'files_read_file',
      'files_write_file',
      'open_sections',
    ]);
  });

  it('fills a custom summary with the servers not opened', async () => {
    const session = new Session();
    await using section = twoServers(session, {
      summary: '${server_names} (${tool_count} tools) wait:\n\n${server_summaries}',
    });
    await section.connect();
    const prompt = promptOf(section);
    expect(prompt.render({ session }).text).toContain(
      'github, files (5 tools) wait:\n\n- `mcp.integrations.github` - github: 3 tools\n- `mcp.integrations.files` - files: 2 tools',
    );
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations.github']), {
      session,
    });
    expect(prompt.render({ session }).text).toContain(
      'files (2 tools) wait:\n\n- `mcp.integrations.files` - files: 2 tools\n\nThe following external tools',
    );
  });

  it('checks its summary and its children at construction', () => {
    const session = new Session();
    expect(() => twoServers(session, { summary: '${servers}' })).toThrow(PromptValidationError);
    expect(() => twoServers(session, { summary: '${servers}' })).toThrow(
      'section "mcp.integrations": summary placeholder "${servers}" is not one of server_names, tool_count, server_summaries',
    );
    expect(() =>
      twoServers(session, {
        children: [new MarkdownSection({ key: 'files', title: 'Files', template: 'x' })],
      }),
    ).toThrow(
      'section "mcp.integrations": child section key "files" is also a server name; a summarized section opens a server with the key "mcp.integrations.files", so rename one',
    );
  });
});

describe('disclosure and the rules of every call', () => {
  it('an opened server offers only the tools its allow and block lists let through', async () => {
    const session = new Session();
    await using section = twoServers(session, {
      servers: [
        {
          name: 'github',
          transport: { type: 'in-memory', server: server('github', GITHUB_TOOLS) },
          disabledTools: ['merge_pull'],
        },
        {
          name: 'files',
          transport: { type: 'in-memory', server: server('files', FILES_TOOLS) },
          enabledTools: ['read_file'],
        },
      ],
    });
    await section.connect();
    const prompt = promptOf(section);
    expect(prompt.render({ session }).text).toContain(
      'github: 2 tools\n- `mcp.integrations.files` - files: 1 tool',
    );
    await invokeFromOpenAI(
      prompt.render({ session }),
      openCall(['mcp.integrations.github', 'mcp.integrations.files']),
      {
        session,
      },
    );
    expect(names(prompt.render({ session }))).toEqual([
      'github_list_issues',
      'github_create_issue',
      'files_read_file',
    ]);
  });

  it('an opened server still obeys the ratchet: with private data, an open-world tool is refused before the server', async () => {
    const raw = rawToolServer([
      { name: 'fetch_url', description: 'Fetches a URL', inputSchema: { type: 'object' } },
    ]);
    const session = new Session();
    await using section = new McpIntegrationSection({
      servers: [{ name: 'web', transport: { type: 'in-memory', server: raw.server } }],
      session,
      visibility: 'summary',
    });
    await section.connect();
    const prompt = promptOf(section);
    await invokeFromOpenAI(prompt.render({ session }), openCall(['mcp.integrations.web']), {
      session,
    });
    session.privateData.add('payroll', 'confidential');
    const fetch = prompt.render({ session }).tools.find((tool) => tool.name === 'web_fetch_url');
    expect(fetch).toBeDefined();
    const result = await invokeTool(fetch!, {}, { session });
    expect(result.success).toBe(false);
    expect(result.message).toMatch(
      /^tool "web_fetch_url" is blocked: the session holds private data/,
    );
    expect(raw.calls).toEqual([]);
  });
});

interface StoreKind {
  readonly name: string;
  setUp(): Promise<void>;
  tearDown(): Promise<void>;
  /** A new client of the same store, as another process would open. */
  client(): SessionStore & { close(): Promise<void> };
}

let dir: TempDir | undefined;
let redis: TestRedis | undefined;
const redisPrefix = `t-${randomUUID()}`;

const STORES: readonly StoreKind[] = [
  {
    name: 'FileSessionStore',
    setUp: async () => {
      dir = await tempDir('section-summary');
    },
    tearDown: async () => {
      await dir?.[Symbol.asyncDispose]();
    },
    client: () => new FileSessionStore({ directory: dir!.path }),
  },
  {
    name: 'RedisSessionStore',
    setUp: async () => {
      redis = await startRedis();
    },
    tearDown: async () => {
      await redis?.dispose();
    },
    client: () => new RedisSessionStore({ url: redis!.url, keyPrefix: redisPrefix }),
  },
];

describe.each(STORES)('what was opened, in a $name', (kind) => {
  beforeAll(() => kind.setUp());
  afterAll(() => kind.tearDown());

  it('survives Session.open in another process; a failed call that opened a server leaves no trace', async () => {
    const sessionId = `conv-${randomUUID()}`;
    const firstStore = kind.client();
    const first = await Session.open({ sessionId, store: firstStore });
    {
      await using section = twoServers(first);
      await section.connect();
      const prompt = promptOf(section);
      const rendered = prompt.render({ session: first });
      expect(
        (await invokeFromOpenAI(rendered, openCall(['mcp.integrations.files']), { session: first }))
          .success,
      ).toBe(true);

      // A tool that opens github on its way, then fails: the opening is undone with it.
      let openedInside: boolean | undefined;
      const scout = Tool.create({
        name: 'scout',
        description: 'Opens github, then fails',
        params: z.object({}),
        handler: async (_params, context) => {
          const inner = await invokeFromOpenAI(rendered, openCall(['mcp.integrations.github']), {
            session: context.session,
          });
          openedInside =
            inner.success &&
            names(prompt.render({ session: context.session })).includes('github_list_issues');
          return ToolResult.error('scouting failed');
        },
      });
      expect((await invokeTool(scout, {}, { session: first })).success).toBe(false);
      expect(openedInside).toBe(true);
      expect(names(prompt.render({ session: first }))).toEqual([
        'files_read_file',
        'files_write_file',
        'open_sections',
      ]);
      await first.flush();
    }
    await firstStore.close();

    // Another process: its own store client, session, servers, section and prompt.
    const secondStore = kind.client();
    const second = await Session.open({ sessionId, store: secondStore });
    await using section = twoServers(second);
    await section.connect();
    const rendered = promptOf(section).render({ session: second });
    expect(names(rendered)).toEqual(['files_read_file', 'files_write_file', 'open_sections']);
    expect(rendered.text).toContain(
      '- `mcp.integrations.github` - github: 3 tools\n\nThe following external tools',
    );
    await secondStore.close();
  });
});
