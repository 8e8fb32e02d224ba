import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  McpConfigError,
  McpIntegrationSection,
  PRIVATE_DATA_META_KEY,
  SensitivityEscalated,
  Session,
  type McpServerConfig,
} from '../../src/index.js';
import { call, collect } from '../fixtures/isolation/helpers.js';

/**
 * `lookup` succeeds or fails on request and never carries a marker;
 * `load` carries the private-data marker and fails on request.
 */
function crmServer(): McpServer {
  const server = new McpServer({ name: 'crm-fixture', version: '1.0.0' });
  server.registerTool('lookup', { inputSchema: { fail: z.boolean() } }, ({ fail }) => ({
    content: [{ type: 'text', text: fail ? 'customer not found' : 'customer 42' }],
    ...(fail ? { isError: true } : {}),
  }));
  server.registerTool(
    'load',
    { inputSchema: { fail: z.boolean(), sensitivity: z.string().optional() } },
    ({ fail, sensitivity }) => ({
      content: [{ type: 'text', text: fail ? 'loaded, then failed' : 'loaded' }],
      ...(fail ? { isError: true } : {}),
      _meta: {
        [PRIVATE_DATA_META_KEY]: { dataset: 'crm-accounts', sensitivity: sensitivity ?? 'secret' },
      },
    }),
  );
  return server;
}

describe('escalation signals from tool calls', () => {
  const sections: McpIntegrationSection[] = [];
  afterEach(async () => {
    await Promise.all(sections.splice(0).map((section) => section.disconnect()));
  });

  async function setup(extra: Partial<McpServerConfig> = {}): Promise<{
    session: Session;
    section: McpIntegrationSection;
    escalations: SensitivityEscalated[];
  }> {
    const session = new Session();
    const escalations = collect(session, SensitivityEscalated);
    const section = new McpIntegrationSection({
      session,
      servers: [{ name: 'crm', transport: { type: 'in-memory', server: crmServer() }, ...extra }],
    });
    sections.push(section);
    await section.connect();
    return { session, section, escalations };
  }

  describe('sensitiveTools', () => {
    it('does not escalate on a failed call', async () => {
      const { session, section, escalations } = await setup({
        sensitiveTools: { lookup: 'secret' },
      });
      const result = await call(section, 'crm_lookup', { fail: true });
      expect(result).toMatchObject({ success: false, message: 'customer not found' });
      expect(session.privateData.hasPrivateData).toBe(false);
      expect(session.privateData.sensitivity).toBe('public');
      expect(escalations).toEqual([]);
    });

    it('escalates to the configured level on a successful call', async () => {
      const { session, section, escalations } = await setup({
        sensitiveTools: { lookup: 'secret' },
      });
      expect((await call(section, 'crm_lookup', { fail: false })).success).toBe(true);
      expect(session.privateData.sensitivity).toBe('secret');
      expect(Object.fromEntries(session.privateData.datasets)).toEqual({ 'crm.lookup': 'secret' });
      expect(escalations.map((e) => [e.previous, e.sensitivity, e.dataset])).toEqual([
        ['public', 'secret', 'crm.lookup'],
      ]);
    });

    it('leaves unlisted tools alone', async () => {
      const { session, section } = await setup({ sensitiveTools: { other: 'secret' } });
      expect((await call(section, 'crm_lookup', { fail: false })).success).toBe(true);
      expect(session.privateData.hasPrivateData).toBe(false);
    });
  });

  describe('the _meta marker', () => {
    it('escalates on a successful result', async () => {
      const { session, section, escalations } = await setup();
      expect((await call(section, 'crm_load', { fail: false })).success).toBe(true);
      expect(session.privateData.sensitivity).toBe('secret');
      expect(escalations.map((e) => e.dataset)).toEqual(['crm-accounts']);
    });

    it('escalates even on a failed (isError) result, and the rollback keeps it', async () => {
      const { session, section, escalations } = await setup();
      const counter = session.slice('counter', { initial: { n: 0 } });
      counter.on(SensitivityEscalated, (draft) => {
        draft.n += 1;
      });

      const result = await call(section, 'crm_load', { fail: true });

      expect(result).toMatchObject({ success: false, message: 'loaded, then failed' });
      expect(session.privateData.sensitivity).toBe('secret');
      expect(session.privateData.hasPrivateData).toBe(true);
      expect(escalations).toHaveLength(1);
      // Neither the ratchet nor the reducers' record of its rise is rolled back.
      expect(counter.get().n).toBe(1);
    });

    it('reads an unknown sensitivity as confidential, and a lower level changes nothing', async () => {
      const { session, section, escalations } = await setup();
      await call(section, 'crm_load', { fail: false, sensitivity: 'top-secret' });
      expect(session.privateData.sensitivity).toBe('confidential');
      await call(section, 'crm_load', { fail: false, sensitivity: 'public' });
      expect(session.privateData.sensitivity).toBe('confidential');
      expect(escalations.map((e) => e.sensitivity)).toEqual(['confidential']);
    });

    it('counts even for a sensitiveTools tool that failed', async () => {
      const { session, section } = await setup({ sensitiveTools: { load: 'internal' } });
      await call(section, 'crm_load', { fail: true, sensitivity: 'confidential' });
      // The marker's level, not the sensitiveTools level (which needs success).
      expect(Object.fromEntries(session.privateData.datasets)).toEqual({
        'crm-accounts': 'confidential',
      });
    });
  });
});

describe('isolation without a way to isolate', () => {
  it('is a config error for a non-stdio server that has no isolation transport', () => {
    const session = new Session();
    const create = (): McpIntegrationSection =>
      new McpIntegrationSection({
        key: 'mcp.nowhere',
        session,
        servers: [
          { name: 'crm', transport: { type: 'in-memory', server: crmServer() }, isolation: {} },
        ],
      });
    expect(create).toThrow(McpConfigError);
    expect(create).toThrow(
      /servers\[0\]\.isolation\.transport is required for a in-memory server: only stdio servers can be sandboxed/,
    );
  });
});
