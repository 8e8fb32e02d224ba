/**
 * ServerRoute on its own, with in-process servers: the isolation phase moves
 * only forward (normal → switching → isolated or fail-closed, and between
 * those two as the isolated side breaks and recovers), never back to normal,
 * whatever order sensitivity, list checks and recovery come in.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServerConfigs } from '../../src/config/parse-server-configs.js';
import type { DataSensitivity } from '../../src/core/sensitivity.js';
import { callSecretsSent } from '../../src/mcp/in-flight-secrets.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { ServerRoute, type IsolationPhase } from '../../src/mcp/server-route.js';
import { handMadeRoute, quietRouteListener } from '../support/quiet-route-listener.js';

interface Recorded {
  isolated: string[];
  failed: string[];
}

function server(name: string, extraTool = false) {
  const mcp = new McpServer({ name, version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'names the deployment' }, () => ({
    content: [{ type: 'text', text: name }],
  }));
  const extra = extraTool
    ? mcp.registerTool('export_all', { description: 'only here' }, () => ({ content: [] }))
    : undefined;
  return { mcp, extra };
}

const routes: ServerRoute[] = [];
afterEach(async () => {
  await Promise.all(routes.splice(0).map((route) => route.close()));
});

function route(options: { isolated?: McpServer; at?: DataSensitivity } = {}) {
  const recorded: Recorded = { isolated: [], failed: [] };
  const listener = quietRouteListener({
    isolated: (mode) => recorded.isolated.push(mode),
    isolationFailed: (reason) => recorded.failed.push(reason),
  });
  const created = handMadeRoute(
    {
      name: 'data',
      transport: { type: 'in-memory', server: server('normal').mcp },
      ...(options.isolated === undefined
        ? {}
        : {
            isolation: {
              transport: { type: 'in-memory', server: options.isolated },
              ...(options.at === undefined ? {} : { at: options.at }),
            },
          }),
    },
    listener,
  );
  routes.push(created);
  return { route: created, recorded };
}

async function whoAnswers(target: ServerRoute, level: DataSensitivity): Promise<string> {
  const connection = await target.connectionFor(level);
  const result = await connection.callTool('whoami', {});
  return (result.content[0] as { text: string }).text;
}

describe('ServerRoute', () => {
  it('tells its listener it closed, after its connections are released, so held events are published', async () => {
    const told: string[] = [];
    const created = handMadeRoute(
      { name: 'data', transport: { type: 'in-memory', server: server('normal').mcp } },
      quietRouteListener({
        connection: () => ({ disconnected: () => told.push('disconnected') }),
        closed: () => told.push('closed'),
      }),
    );
    await created.connect();
    await created.close();
    expect(told).toEqual(['disconnected', 'closed']);
  });

  it('starts no sandbox for a route already closed: it fails closed at once', async () => {
    const [config] = parseServerConfigs([
      {
        name: 'files',
        transport: { type: 'stdio', command: process.execPath, args: ['-e', ''] },
        isolation: {},
      },
    ]);
    const failed: string[] = [];
    const closed = new ServerRoute({
      config: config!,
      redactor: new SecretRedactor([]),
      handlers: {},
      session: {},
      listener: quietRouteListener({ isolationFailed: (reason) => failed.push(reason) }),
    });
    await closed.close();
    // A tool kept from before the disconnect, called once the session escalated.
    expect(closed.connectionNow('confidential')).toBeUndefined();
    expect(closed.phase).toBe('fail-closed');
    expect(closed.failClosedReason).toBe('the route was closed before it could switch');
    await expect(closed.connectionFor('confidential')).rejects.toThrow(
      'calls to server "files" are refused (fail closed): the route was closed before it could switch',
    );
    expect(failed).toEqual([]);
  });

  it("masks in a server's text its own secrets and those of the session's calls in flight, on any server", () => {
    const [config] = parseServerConfigs([
      { name: 'files', transport: { type: 'stdio', command: process.execPath, args: ['-e', ''] } },
    ]);
    const session = {};
    const route = new ServerRoute({
      config: config!,
      redactor: new SecretRedactor(['own-token-123']),
      handlers: {},
      session,
      listener: quietRouteListener(),
    });
    // A call of the session to another server (a backend may share its state
    // between connections), and one of another session, which is never masked here.
    const settle = callSecretsSent(session, ['call-secret-456']);
    const settleStranger = callSecretsSent({}, ['strangers-pw']);
    try {
      // Every place it quotes the server goes through it: validator errors, egress
      // denials, unavailable and fail-closed reasons, names the pool shows.
      expect(route.redact('own-token-123, call-secret-456, strangers-pw')).toBe(
        '***, ***, strangers-pw',
      );
    } finally {
      settle();
      settleStranger();
    }
  });

  it('switches to the isolated endpoint at its threshold, at once, and never back', async () => {
    const { route: r, recorded } = route({ isolated: server('isolated').mcp });
    await r.connect();
    expect(r.phase).toBe('normal');
    r.noteSensitivity('internal');
    expect(r.phase).toBe('normal');
    expect(await whoAnswers(r, 'internal')).toBe('normal');
    r.noteSensitivity('confidential');
    expect(r.phase).not.toBe('normal');
    expect(await whoAnswers(r, 'public')).toBe('isolated');
    expect(r.phase).toBe('isolated');
    r.noteSensitivity('public');
    expect(r.phase).toBe('isolated');
    expect(recorded.isolated).toEqual(['endpoint']);
  });

  it('honours a per-server threshold', async () => {
    const { route: r } = route({ isolated: server('isolated').mcp, at: 'secret' });
    await r.connect();
    expect(await whoAnswers(r, 'confidential')).toBe('normal');
    expect(await whoAnswers(r, 'secret')).toBe('isolated');
  });

  it('never isolates a server without isolation, however sensitive the session', async () => {
    const { route: r } = route();
    await r.connect();
    r.noteSensitivity('secret');
    expect(r.phase).toBe('normal');
    expect(r.switched).toBe(false);
  });

  it('fails closed at the switch when the isolated endpoint offers other tools, and recovers once they match', async () => {
    const isolated = server('isolated', true);
    const { route: r, recorded } = route({ isolated: isolated.mcp });
    await r.connect();
    // Before the threshold, the normal deployment serves.
    expect(await whoAnswers(r, 'public')).toBe('normal');
    await expect(r.connectionFor('confidential')).rejects.toThrow(
      'calls to server "data" are refused (fail closed): the isolated endpoint does not offer the same tools: extra export_all',
    );
    expect(r.phase).toBe('fail-closed');
    expect(r.failClosedReason).toContain('extra export_all');
    expect(recorded.failed).toHaveLength(1);

    isolated.extra?.remove();
    await r.active.listTools();
    expect(await r.recoverIsolation()).toBe(true);
    expect(r.phase).toBe('isolated');
    expect(await whoAnswers(r, 'confidential')).toBe('isolated');
  });

  it('keeps the phase out of normal under any order of events (property)', async () => {
    type Step =
      | { kind: 'note'; level: DataSensitivity }
      | { kind: 'check' }
      | { kind: 'recover' }
      | { kind: 'call'; level: DataSensitivity };
    const level = fc.constantFrom<DataSensitivity>('public', 'internal', 'confidential', 'secret');
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('note' as const), level }),
      fc.record({ kind: fc.constant('check' as const) }),
      fc.record({ kind: fc.constant('recover' as const) }),
      fc.record({ kind: fc.constant('call' as const), level }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { maxLength: 12 }), async (differs, steps) => {
        const { route: r } = route({ isolated: server('isolated', differs).mcp });
        await r.connect();
        let highest: DataSensitivity = 'public';
        const rank = ['public', 'internal', 'confidential', 'secret'];
        let left = false;
        for (const next of steps) {
          if (next.kind === 'note' || next.kind === 'call') {
            if (rank.indexOf(next.level) > rank.indexOf(highest)) highest = next.level;
          }
          if (next.kind === 'note') r.noteSensitivity(next.level);
          if (next.kind === 'check') r.checkIsolatedTools();
          if (next.kind === 'recover') await r.recoverIsolation();
          if (next.kind === 'call') {
            const answer = await whoAnswers(r, next.level).catch(() => 'refused');
            // Above the threshold an answer comes from the isolated side or nowhere.
            if (rank.indexOf(highest) >= 2) expect(answer).not.toBe('normal');
          }
          const phase: IsolationPhase = r.phase;
          if (left) expect(phase).not.toBe('normal');
          if (phase !== 'normal') left = true;
          expect(left).toBe(rank.indexOf(highest) >= 2);
        }
        await r.close();
      }),
      { numRuns: 40 },
    );
  });
});
