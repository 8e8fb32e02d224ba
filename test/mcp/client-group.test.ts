/**
 * McpClientGroup on its own, without a prompt: it connects, bridges and runs
 * tools by name, names itself in errors and events, and refuses servers
 * whose tools could share bridged names before connecting any.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClientGroup, McpConfigError, McpSectionIsolated, Session } from '../../src/index.js';
import { rawToolServer, recordEvents } from '../support/mcp-fixtures.js';

const echoSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};

const groups: McpClientGroup[] = [];
afterEach(async () => {
  await Promise.all(groups.splice(0).map((group) => group.disconnect()));
});

function group(
  session: Session,
  servers: { name: string; toolPrefix?: string; tools: string[] }[],
  extra: Partial<ConstructorParameters<typeof McpClientGroup>[0]> = {},
) {
  const raw = servers.map((server) =>
    rawToolServer(
      server.tools.map((name) => ({
        name,
        inputSchema: echoSchema,
        annotations: { openWorldHint: false },
      })),
    ),
  );
  const created = new McpClientGroup({
    key: 'worker',
    session,
    servers: servers.map((server, index) => ({
      name: server.name,
      ...(server.toolPrefix === undefined ? {} : { toolPrefix: server.toolPrefix }),
      transport: { type: 'in-memory', server: raw[index]!.server },
    })),
    ...extra,
  });
  groups.push(created);
  return { group: created, raw };
}

describe('McpClientGroup', () => {
  it('connects, lists and runs tools by the names agents use, with no prompt', async () => {
    const session = new Session();
    const { group: g, raw } = group(session, [{ name: 'files', tools: ['read', 'write'] }]);
    expect(await g.execute({ name: 'files.read', arguments: { text: 'a' } })).toMatchObject({
      success: false,
      message: 'group "worker" is not connected; await group.connect() first',
    });
    expect(() => g.tools()).toThrow('group "worker" is not connected');

    await g.connect();
    expect(g.ready).toBe(true);
    expect(g.tools().map((tool) => tool.name)).toEqual(['files_read', 'files_write']);
    expect(g.availableServers.map((server) => [server.name, server.prefix])).toEqual([
      ['files', 'files'],
    ]);
    const result = await g.execute({ name: 'files.read', arguments: { text: 'a' } });
    expect(result.success).toBe(true);
    expect(raw[0]?.callsTo('read')).toHaveLength(1);
    // Bad arguments never reach the server.
    const bad = await g.execute({ name: 'files__write', arguments: { text: 3 } });
    expect(bad.success).toBe(false);
    expect(raw[0]?.callsTo('write')).toHaveLength(0);
  });

  it('is refused at construction when two servers’ tools could share bridged names', () => {
    // One prefix the start of another's (`shared` and `shared_x`), or the same prefix twice.
    for (const [first, second] of [
      ['shared', 'shared'],
      ['shared', 'shared_x'],
    ] as const) {
      expect(() =>
        group(new Session(), [
          { name: 'alpha', toolPrefix: first, tools: ['echo'] },
          { name: 'beta', toolPrefix: second, tools: ['x_echo'] },
        ]),
      ).toThrow(McpConfigError);
    }
  });

  it('names itself in isolation events', async () => {
    const session = new Session();
    const events = recordEvents(session);
    const tools = [
      { name: 'read', inputSchema: echoSchema, annotations: { openWorldHint: false } },
    ];
    const g = new McpClientGroup({
      key: 'worker',
      session,
      servers: [
        {
          name: 'files',
          transport: { type: 'in-memory', server: rawToolServer(tools).server },
          isolation: { transport: { type: 'in-memory', server: rawToolServer(tools).server } },
        },
      ],
    });
    groups.push(g);
    await g.connect();
    session.privateData.add('records', 'confidential');
    expect(g.isolated).toBe(true);
    expect(g.isolatedServers).toEqual(['files']);
    expect(events.of(McpSectionIsolated)).toEqual([
      expect.objectContaining({ sectionKey: 'worker', serverName: 'files', mode: 'endpoint' }),
    ]);
  });
});
