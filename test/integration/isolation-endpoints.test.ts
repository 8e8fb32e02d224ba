/**
 * Two deployments of the same server on two 127.0.0.1 ports: calls go to the
 * normal one until the session's sensitivity reaches a server's threshold,
 * then to the isolated one, for good. A misconfigured isolated deployment
 * makes the server's calls fail closed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  McpIntegrationSection,
  McpIsolationFailed,
  McpSectionIsolated,
  SensitivityEscalated,
  Session,
  ToolInvoked,
  type McpServerConfig,
} from '../../src/index.js';
import { call, collect } from '../fixtures/isolation/helpers.js';
import {
  answeredBy,
  startInstance,
  type InstanceVariant,
  type RunningInstance,
} from '../fixtures/isolation/instance-server.js';
import { freePort } from '../support/ports.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

function endpointServer(
  name: string,
  normalUrl: string,
  isolatedUrl: string,
  extra: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name,
    transport: { type: 'streamable-http', url: normalUrl, sseFallback: false },
    isolation: {
      transport: { type: 'streamable-http', url: isolatedUrl, sseFallback: false },
      ...extra.isolation,
    },
    timeoutMs: 10_000,
  };
}

describe('isolated endpoint', () => {
  let before: number[];
  const started: RunningInstance[] = [];
  const sections: McpIntegrationSection[] = [];

  const start = async (name: string, variant?: InstanceVariant): Promise<RunningInstance> => {
    const instance = await startInstance(name, variant);
    started.push(instance);
    return instance;
  };
  const open = async (
    session: Session,
    key: string,
    server: McpServerConfig,
  ): Promise<McpIntegrationSection> => {
    const section = new McpIntegrationSection({ key, session, servers: [server] });
    sections.push(section);
    await section.connect();
    return section;
  };

  beforeEach(() => {
    before = childPids();
  });

  afterEach(async () => {
    // Clients first, then the servers they talk to.
    await Promise.all(sections.splice(0).map((section) => section.disconnect()));
    await Promise.all(started.splice(0).map((instance) => instance.close()));
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('switches on a private-data marker, per server threshold, and never switches back', async () => {
    const normal = await start('normal');
    const isolated = await start('isolated');
    const session = new Session({ sessionId: 'ratchet' });
    const escalations = collect(session, SensitivityEscalated);
    const switches = collect(session, McpSectionIsolated);
    const notes = session.slice('notes', { initial: { lines: [] as string[] } });
    const start0 = session.snapshot();

    const primary = await open(
      session,
      'mcp.primary',
      endpointServer('data', normal.url, isolated.url),
    );
    const vault = await open(
      session,
      'mcp.vault',
      endpointServer('vault', normal.url, isolated.url, { isolation: { at: 'secret' } }),
    );
    const who = async (
      section: McpIntegrationSection,
      tool: string,
    ): Promise<string | undefined> => {
      const result = await call(section, tool);
      expect(result.success).toBe(true);
      return answeredBy(result.message);
    };

    expect(await who(primary, 'data_whoami')).toBe('normal');
    expect(await who(vault, 'vault_whoami')).toBe('normal');
    notes.update((draft) => {
      draft.lines.push('before the marker');
    });

    // The call that brings the data in still ran on the normal instance.
    const load = await call(primary, 'data_load_dataset', {
      dataset: 'patients',
      sensitivity: 'confidential',
    });
    expect(load.success).toBe(true);
    expect(answeredBy(load.message)).toBe('normal');
    expect(session.privateData.sensitivity).toBe('confidential');
    expect(escalations.map((e) => [e.previous, e.sensitivity, e.dataset])).toEqual([
      ['public', 'confidential', 'patients'],
    ]);
    expect(switches).toHaveLength(1);
    expect(switches[0]).toMatchObject({
      sessionId: 'ratchet',
      sectionKey: 'mcp.primary',
      serverName: 'data',
      mode: 'endpoint',
      sensitivity: 'confidential',
    });
    expect(primary.isolated).toBe(true);
    expect(primary.isolatedServers).toEqual(['data']);
    expect(vault.isolated).toBe(false);
    expect(vault.isolatedServers).toEqual([]);

    expect(await who(primary, 'data_whoami')).toBe('isolated');
    // The vault switches at secret only.
    expect(await who(vault, 'vault_whoami')).toBe('normal');

    // Restoring a snapshot from before the marker restores state, not sensitivity.
    session.restore(start0);
    expect(notes.get().lines).toEqual([]);
    expect(session.privateData.sensitivity).toBe('confidential');
    expect(session.privateData.hasPrivateData).toBe(true);
    expect(primary.isolatedServers).toEqual(['data']);
    expect(await who(primary, 'data_whoami')).toBe('isolated');
    expect(await who(vault, 'vault_whoami')).toBe('normal');

    session.privateData.add('signing-keys', 'secret');
    expect(vault.isolatedServers).toEqual(['vault']);
    expect(await who(vault, 'vault_whoami')).toBe('isolated');
    expect(await who(primary, 'data_whoami')).toBe('isolated');

    session.restore(start0);
    expect(session.privateData.sensitivity).toBe('secret');
    expect(await who(primary, 'data_whoami')).toBe('isolated');
    expect(await who(vault, 'vault_whoami')).toBe('isolated');

    // One McpSectionIsolated per server, each at the level that switched it.
    expect(switches.map((e) => [e.sectionKey, e.serverName, e.sensitivity])).toEqual([
      ['mcp.primary', 'data', 'confidential'],
      ['mcp.vault', 'vault', 'secret'],
    ]);
    expect(escalations.map((e) => e.sensitivity)).toEqual(['confidential', 'secret']);

    // What each instance saw: the normal one only before each server's switch.
    expect(normal.calls.count('whoami')).toBe(4);
    expect(normal.calls.count('load_dataset')).toBe(1);
    expect(isolated.calls.count('whoami')).toBe(6);
    expect(isolated.calls.count('load_dataset')).toBe(0);
  });

  it('isolates before the first call when the session already holds private data', async () => {
    const normal = await start('normal');
    const isolated = await start('isolated');
    const session = new Session();
    session.privateData.add('preloaded', 'confidential');
    const switches = collect(session, McpSectionIsolated);

    const section = await open(
      session,
      'mcp.late',
      endpointServer('data', normal.url, isolated.url),
    );

    expect(switches.map((e) => e.serverName)).toEqual(['data']);
    const result = await call(section, 'data_whoami');
    expect(answeredBy(result.message)).toBe('isolated');
    expect(normal.calls.count()).toBe(0);
  });

  describe.each<{ variant: InstanceVariant | 'unreachable'; reason: RegExp }>([
    { variant: 'extra-tool', reason: /does not offer the same tools: extra export_all/ },
    {
      variant: 'changed-schema',
      reason: /does not offer the same tools: different input schema for whoami/,
    },
    { variant: 'unreachable', reason: /the isolated endpoint cannot be reached/ },
  ])('a misconfigured isolated endpoint ($variant)', ({ variant, reason }) => {
    it('fails closed once the threshold is reached, and nothing reaches it', async () => {
      const normal = await start('normal');
      const isolated = variant === 'unreachable' ? undefined : await start('isolated', variant);
      const isolatedUrl = isolated?.url ?? `http://127.0.0.1:${await freePort()}/mcp`;
      const session = new Session();
      const failures = collect(session, McpIsolationFailed);
      const switches = collect(session, McpSectionIsolated);
      const invoked = collect(session, ToolInvoked);
      const section = await open(
        session,
        'mcp.broken',
        endpointServer('data', normal.url, isolatedUrl),
      );

      // No private data yet: the normal deployment serves the calls.
      const first = await call(section, 'data_whoami');
      expect(first.success).toBe(true);
      expect(answeredBy(first.message)).toBe('normal');
      expect(failures).toEqual([]);
      const early = session.snapshot();

      session.privateData.add('patients');

      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ sectionKey: 'mcp.broken', serverName: 'data' });
      expect(failures[0]?.reason).toMatch(reason);
      for (const tool of ['data_whoami', 'data_fail']) {
        const refused = await call(section, tool);
        expect(refused.success).toBe(false);
        expect(refused.message).toContain('calls to server "data" are refused (fail closed)');
        expect(refused.message).toMatch(reason);
        expect(invoked.at(-1)).toMatchObject({ toolName: tool, result: refused });
      }
      expect(switches).toEqual([]);
      expect(section.isolatedServers).toEqual(['data']);
      expect(normal.calls.count()).toBe(1);
      expect(isolated?.calls.count() ?? 0).toBe(0);

      // Still closed after a restore and a further rise: it never goes back.
      session.restore(early);
      session.privateData.add('more', 'secret');
      expect((await call(section, 'data_whoami')).success).toBe(false);
      expect(failures).toHaveLength(1);
      expect(normal.calls.count()).toBe(1);
      expect(isolated?.calls.count() ?? 0).toBe(0);
    });
  });
});
