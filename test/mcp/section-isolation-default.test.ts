import { describe, expect, it } from 'vitest';
import { McpConfigError, McpIntegrationSection, Session } from '../../src/index.js';

describe('a section-level isolation default', () => {
  it('applies to every stdio server without isolation of its own, and to no remote one', () => {
    const section = new McpIntegrationSection({
      session: new Session(),
      isolation: { at: 'internal' },
      servers: [
        { name: 'local', transport: { type: 'stdio', command: 'node' } },
        {
          name: 'own',
          transport: { type: 'stdio', command: 'node' },
          isolation: { at: 'secret' },
        },
        { name: 'remote', transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' } },
      ],
    });
    expect(section.servers.map((server) => [server.name, server.isolation])).toEqual([
      ['local', { at: 'internal' }],
      ['own', { at: 'secret' }],
      ['remote', undefined],
    ]);
  });

  it('cannot name a transport, and is checked like a server’s own', () => {
    const servers = [{ name: 'local', transport: { type: 'stdio' as const, command: 'node' } }];
    expect(
      () =>
        new McpIntegrationSection({
          session: new Session(),
          isolation: { transport: { type: 'stdio', command: 'x' } } as never,
          servers,
        }),
    ).toThrow(McpConfigError);
    expect(
      () =>
        new McpIntegrationSection({
          session: new Session(),
          isolation: { at: 'top-secret' as never },
          servers,
        }),
    ).toThrow(
      'servers[0].isolation.at "top-secret" must be public, internal, confidential or secret',
    );
  });
});
