/**
 * Bridged tool names and descriptions: prefixes, allow and block lists, the
 * deterministic mapping of invalid names (the wire keeps the original),
 * collisions, and descriptions kept whole (only the inventory line is capped).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_TOOL_DESCRIPTION_LENGTH,
  McpConfigError,
  McpConnectionError,
  McpConnectionPool,
  McpIntegrationSection,
  McpSchemaError,
  Prompt,
  PromptTemplate,
  Session,
  TOOL_NAME_PATTERN,
  ToolInvoked,
  invokeTool,
  requireApproval,
  type ApprovalRequest,
  type McpServerConfig,
} from '../../src/index.js';
import fc from 'fast-check';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { serverTextLine } from '../../src/mcp/server-text.js';
import { bridgedDescription, bridgedToolName, isToolSelected } from '../../src/mcp/tool-naming.js';
import { rawToolServer, recordEvents, toolNamed, type RawTool } from '../support/mcp-fixtures.js';

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

function objectTool(name: string, description?: string): RawTool {
  return {
    name,
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    ...(description === undefined ? {} : { description }),
  };
}

function config(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name: 'srv',
    transport: { type: 'stdio', command: 'node' },
    ...overrides,
  };
}

describe('bridgedToolName', () => {
  it('joins prefix and original with an underscore when that is a valid name', () => {
    expect(bridgedToolName('github', 'search_code')).toBe('github_search_code');
    expect(bridgedToolName('everything', 'get-sum')).toBe('everything_get-sum');
  });

  it('maps an invalid name deterministically to a valid one with a hash of the original', () => {
    const mapped = bridgedToolName('crm', 'Get User!');
    expect(mapped).toBe(`crm_get_user__${shortHash('Get User!')}`);
    expect(mapped).toMatch(TOOL_NAME_PATTERN);
    expect(bridgedToolName('crm', 'Get User!')).toBe(mapped);
  });

  it('keeps different originals apart even when they clean up to the same text', () => {
    const a = bridgedToolName('crm', 'Get User!');
    const b = bridgedToolName('crm', 'get user?');
    expect(a).not.toBe(b);
    expect(b).toMatch(TOOL_NAME_PATTERN);
  });

  it('cuts names that would be longer than 64 characters', () => {
    const original = 'a'.repeat(80);
    const mapped = bridgedToolName('prefix', original);
    expect(mapped).toHaveLength(64);
    expect(mapped).toMatch(TOOL_NAME_PATTERN);
    expect(mapped.endsWith(`_${shortHash(original)}`)).toBe(true);
    expect(bridgedToolName('prefix', 'x'.repeat(57))).toBe(`prefix_${'x'.repeat(57)}`);
  });

  it('maps non-ASCII names', () => {
    const mapped = bridgedToolName('i18n', 'übersetzen');
    expect(mapped).toMatch(TOOL_NAME_PATTERN);
    expect(mapped).toBe(`i18n__bersetzen_${shortHash('übersetzen')}`);
  });
});

describe('isToolSelected', () => {
  it('keeps everything without lists', () => {
    expect(isToolSelected(config(), 'anything')).toBe(true);
  });

  it('applies enabledTools first, then disabledTools', () => {
    const both = config({ enabledTools: ['a', 'b'], disabledTools: ['b', 'c'] });
    expect(['a', 'b', 'c', 'd'].filter((name) => isToolSelected(both, name))).toEqual(['a']);
    const blockOnly = config({ disabledTools: ['b'] });
    expect(['a', 'b', 'c'].filter((name) => isToolSelected(blockOnly, name))).toEqual(['a', 'c']);
    const none = config({ enabledTools: [] });
    expect(isToolSelected(none, 'a')).toBe(false);
  });
});

const NO_SECRETS = new SecretRedactor([]);

describe('bridgedDescription', () => {
  it('keeps a long description whole', () => {
    const long = `${'word '.repeat(100)}end`;
    expect(bridgedDescription('srv', 'tool', long, NO_SECRETS)).toBe(long);
    expect(bridgedDescription('srv', 'tool', `${long}\n\tmore`, NO_SECRETS)).toBe(`${long} more`);
  });

  it('collapses whitespace and names the tool when the server gives none', () => {
    expect(bridgedDescription('srv', 'tool', '  Reads\n\n  a   file ', NO_SECRETS)).toBe(
      'Reads a file',
    );
    expect(bridgedDescription('srv', 'tool', undefined, NO_SECRETS)).toBe(
      'Tool "tool" of MCP server "srv"',
    );
    expect(bridgedDescription('srv', 'tool', '   ', NO_SECRETS)).toBe(
      'Tool "tool" of MCP server "srv"',
    );
  });

  it('gives a clean line back as it is, and cleans anything else the way serverTextLine does', () => {
    const cleaned = (text: string): string => {
      const line = serverTextLine(text, Number.POSITIVE_INFINITY);
      return line.length === 0 ? 'Tool "tool" of MCP server "srv"' : line;
    };
    const text = fc.oneof(
      fc.string({
        unit: fc.constantFrom('a', 'b', ' ', '\t', '\n', '\u200b', 'é', '\u0085', '\u2028'),
      }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 220 }),
    );
    fc.assert(
      fc.property(text, (description) => {
        expect(bridgedDescription('srv', 'tool', description, NO_SECRETS)).toBe(
          cleaned(description),
        );
      }),
      { numRuns: 2_000 },
    );
    const clean = 'Reads a file, returns its text (UTF-8).';
    expect(bridgedDescription('srv', 'tool', clean, NO_SECRETS)).toBe(clean);
  });

  it('masks a secret that invisible characters split, once cleaning has joined it up', () => {
    const secret = 'sk-live-7Hq2ZpA9';
    const split = [...secret].join('\u200B');
    const redactor = new SecretRedactor([secret]);
    expect(bridgedDescription('srv', 'tool', `Uses ${split} and ${secret}`, redactor)).toBe(
      'Uses *** and ***',
    );
    // Without a description, the tool's name stands in: masked the same way.
    expect(bridgedDescription('srv', split, undefined, redactor)).toBe(
      'Tool "***" of MCP server "srv"',
    );
    // A clean line is masked too.
    expect(bridgedDescription('srv', 'tool', `Uses ${secret}`, redactor)).toBe('Uses ***');
  });
});

describe('names in a connected section', () => {
  it('applies enabledTools then disabledTools, and toolPrefix', async () => {
    const raw = rawToolServer(['alpha', 'beta', 'gamma', 'delta'].map((name) => objectTool(name)));
    await using section = new McpIntegrationSection({
      servers: [
        {
          name: 'srv',
          toolPrefix: 'x',
          enabledTools: ['alpha', 'beta', 'gamma'],
          disabledTools: ['beta', 'delta'],
          transport: { type: 'in-memory', server: raw.server },
        },
      ],
      session: new Session(),
    });
    await section.connect();
    expect(section.tools().map((tool) => tool.name)).toEqual(['x_alpha', 'x_gamma']);
  });

  it('maps an invalid server name to a valid one and calls the server by the original', async () => {
    const raw = rawToolServer([objectTool('Get User!', 'Finds a user'), objectTool('list')]);
    const session = new Session();
    await using section = new McpIntegrationSection({
      servers: [{ name: 'crm', transport: { type: 'in-memory', server: raw.server } }],
      session,
    });
    await section.connect();
    const mapped = `crm_get_user__${shortHash('Get User!')}`;
    expect(section.tools().map((tool) => tool.name)).toEqual([mapped, 'crm_list']);
    const tool = toolNamed(section, mapped);
    expect(tool.origin).toEqual({ kind: 'mcp', server: 'crm', originalName: 'Get User!' });

    const result = await invokeTool(tool, { id: '42' }, { session });
    expect(result).toMatchObject({ success: true, message: 'called Get User!' });
    expect(raw.calls).toEqual([{ name: 'Get User!', arguments: { id: '42' } }]);

    // The same mapping on another connection: deterministic.
    const again = rawToolServer([objectTool('Get User!')]);
    await using other = new McpIntegrationSection({
      servers: [{ name: 'crm', transport: { type: 'in-memory', server: again.server } }],
      session: new Session(),
    });
    await other.connect();
    expect(other.tools().map((candidate) => candidate.name)).toEqual([mapped]);
  });

  it("maps a name that holds its server's secret from its masked form, and calls the server by the original", async () => {
    const secret = 'tok9Q2xLm7vZ';
    const original = `lookup_${secret}`;
    const raw = rawToolServer([objectTool(original, 'Looks up')]);
    const session = new Session();
    const events = recordEvents(session);
    const config = {
      name: 'crm',
      transport: { type: 'in-memory', server: raw.server } as const,
      env: { CRM_TOKEN: secret },
    };
    await using section = new McpIntegrationSection({ servers: [config], session });
    await section.connect();
    const [tool] = section.tools();
    // The masked name, cleaned, and a suffix keyed with the secrets: nothing of the secret.
    expect(tool?.name).toMatch(/^crm_lookup_{5}[0-9a-f]{8}$/);
    expect(tool?.name).toMatch(TOOL_NAME_PATTERN);
    const result = await invokeTool(tool!, { id: '1' }, { session });
    expect(result).toMatchObject({ success: true, message: `called ${original}` });
    expect(raw.calls).toEqual([{ name: original, arguments: { id: '1' } }]);
    const template = PromptTemplate.create({ ns: 't', key: 't', sections: [section] });
    const rendered = new Prompt(template).render({ session });
    for (const text of [rendered.text, JSON.stringify(rendered.toolDefinitions())]) {
      expect(text).toContain(tool!.name);
      expect(text).not.toContain(secret);
    }
    expect(events.of(ToolInvoked).map((event) => event.toolName)).toEqual([tool!.name]);
    // Events and the hints execute gives show the original masked; the wire and configs keep it.
    expect(tool?.origin).toEqual({
      kind: 'mcp',
      server: 'crm',
      originalName: original,
      shownName: 'lookup_***',
    });
    const hint = await section.execute({ name: 'crm.nosuch', arguments: {} });
    expect(hint.message).toContain('available tools: crm.lookup_***');
    expect((await section.execute({ name: tool!.name, arguments: { id: '2' } })).success).toBe(
      true,
    );
    // A policy names the tool as the server does; the request it makes shows the name masked.
    const asked: ApprovalRequest[] = [];
    const denied = await invokeTool(
      tool!,
      { id: '3' },
      {
        session,
        policies: [requireApproval({ tools: [original] })],
        approval: (request) => {
          asked.push(request);
          return { deny: 'no' };
        },
      },
    );
    expect(denied.success).toBe(false);
    expect(asked.map((request) => request.originalName)).toEqual(['lookup_***']);
    const pooled = await session.resources
      .get(McpConnectionPool)!
      .callTool('crm', `nosuch_${secret}`, {}, { session });
    expect(JSON.stringify(pooled.content)).toContain(
      'has no tool \\"nosuch_***\\"; its tools: lookup_***',
    );
    expect(JSON.stringify(events.all)).not.toContain(secret);
    // The same name on another connection of this process.
    const again = rawToolServer([objectTool(original)]);
    await using other = new McpIntegrationSection({
      servers: [{ ...config, transport: { type: 'in-memory', server: again.server } }],
      session: new Session(),
    });
    await other.connect();
    expect(other.tools()[0]?.name).toBe(tool!.name);
    // Its suffix is keyed: no digest of the original alone, which would let a guess be tested.
    expect(tool!.name.endsWith(shortHash(original))).toBe(false);
    expect(bridgedToolName('crm', original, new SecretRedactor([secret]))).toBe(tool!.name);
  });

  it('gives the tool and its definition the whole description; the inventory line is cut', async () => {
    const long = `Finds things. ${'More detail. '.repeat(30)}`;
    const raw = rawToolServer([objectTool('find', long)]);
    const session = new Session();
    await using section = new McpIntegrationSection({
      servers: [{ name: 'srv', transport: { type: 'in-memory', server: raw.server } }],
      session,
    });
    await section.connect();
    const tool = toolNamed(section, 'srv_find');
    expect(tool.description).toBe(long.trim());
    const template = PromptTemplate.create({ ns: 'test', key: 'names', sections: [section] });
    const rendered = new Prompt(template).render({ session });
    expect(rendered.toolDefinitions()[0]?.description).toBe(long.trim());
    const line = rendered.text.split('\n').find((text) => text.startsWith('- `srv_find`'));
    expect(line).toBe(
      `- \`srv_find\` - ${long.slice(0, MAX_TOOL_DESCRIPTION_LENGTH - 1).trimEnd()}…`,
    );
  });

  it('two tools of one server mapping to the same name: McpSchemaError at connect', async () => {
    const mappedOriginal = 'Foo';
    const clash = `foo_${shortHash(mappedOriginal)}`;
    const raw = rawToolServer([objectTool(mappedOriginal), objectTool(clash)]);
    const section = new McpIntegrationSection({
      servers: [{ name: 'srv', transport: { type: 'in-memory', server: raw.server } }],
      session: new Session(),
    });
    const error = await section.connect().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpSchemaError);
    expect(error).toMatchObject({ serverName: 'srv', toolName: clash });
    expect((error as McpSchemaError).reason).toContain(`"srv_${clash}"`);
    expect((error as McpSchemaError).reason).toContain(`"${mappedOriginal}"`);
    expect(section.connected).toBe(false);
    expect(() => section.tools()).toThrow(McpConnectionError);
    await section.disconnect();
  });

  it('two servers with the same prefix: refused by the config, before anything connects', () => {
    const first = rawToolServer([objectTool('search')]);
    const second = rawToolServer([objectTool('search')]);
    expect(
      () =>
        new McpIntegrationSection({
          servers: [
            {
              name: 'one',
              toolPrefix: 'shared',
              transport: { type: 'in-memory', server: first.server },
            },
            {
              name: 'two',
              toolPrefix: 'shared',
              transport: { type: 'in-memory', server: second.server },
            },
          ],
          session: new Session(),
        }),
    ).toThrow(McpConfigError);
  });

  it('two servers with prefixes apart bridge the same tool name twice', async () => {
    // A different prefix for one of them resolves it.
    const third = rawToolServer([objectTool('search')]);
    const fourth = rawToolServer([objectTool('search')]);
    await using fixed = new McpIntegrationSection({
      servers: [
        {
          name: 'one',
          toolPrefix: 'shared',
          transport: { type: 'in-memory', server: third.server },
        },
        { name: 'two', transport: { type: 'in-memory', server: fourth.server } },
      ],
      session: new Session(),
    });
    await fixed.connect();
    expect(fixed.tools().map((tool) => tool.name)).toEqual(['shared_search', 'two_search']);
  });
});
