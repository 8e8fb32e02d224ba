/**
 * The pool's choice of section under any interleaving of its calls with
 * another worker's escalation through the session store: two sections of
 * one session configure server `x`, one isolating it at `secret`, one not
 * isolating it. A call started once the store holds `secret` never reaches
 * `x`'s normal deployment, even when the pool chose the section that does
 * not isolate (it routes most strictly below `secret`) before the call read
 * the store; and an unannotated tool never reaches it once the session
 * holds private data.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpConnectionPool } from '../../src/mcp/connection-pool.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { FileSessionStore } from '../../src/runtime/store/file-session-store.js';
import type { SessionStore } from '../../src/runtime/store/session-store.js';
import { Session } from '../../src/runtime/session.js';

type Step =
  { readonly kind: 'escalate' } | { readonly kind: 'call'; readonly tool: 'where' | 'plain' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'escalate' as const }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      tool: fc.constantFrom('where' as const, 'plain' as const),
    }),
  },
);

/** A deployment whose tools tell `arrived` which call reached it. */
function deployment(name: string, arrived: (name: string, tool: string, call: number) => void) {
  return {
    connect: async (transport: Transport) => {
      const mcp = new McpServer({ name, version: '1.0.0' });
      const answer =
        (tool: string) =>
        ({ call }: { call: number }) => {
          arrived(name, tool, call);
          return { content: [{ type: 'text' as const, text: name }] };
        };
      const inputSchema = { call: z.number() };
      mcp.registerTool(
        'where',
        { inputSchema, annotations: { openWorldHint: false } },
        answer('where'),
      );
      // Says nothing of its reach: MCP counts it as able to reach the network.
      mcp.registerTool('plain', { inputSchema }, answer('plain'));
      await mcp.connect(transport);
    },
    close: () => Promise.resolve(),
  };
}

/** `store` with each of its calls started when the scheduler says: store reads interleave with writes. */
function scheduledStore(store: SessionStore, s: fc.Scheduler): SessionStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      const member: unknown = Reflect.get(target, key, receiver);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) =>
        s
          .schedule(Promise.resolve(), `store.${String(key)}`)
          .then(() => (member as (...args: unknown[]) => unknown).apply(target, args));
    },
  });
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-pool-choice-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("the pool's choice of section, under any interleaving with another worker's escalation", () => {
  it('sends no call started after the store holds secret, and no unannotated call, to the normal deployment', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 2, maxLength: 7 }),
        async (s, steps) => {
          const store = new FileSessionStore({ directory });
          const sessionId = `pooled-${String((run += 1))}`;
          const started = new Map<number, { afterSecret: boolean }>();
          const violations: string[] = [];
          const arrived = (name: string, tool: string, call: number): void => {
            if (name !== 'normal') return;
            if (started.get(call)?.afterSecret === true) {
              violations.push(`call ${String(call)} (${tool}) started after secret`);
            }
            if (tool === 'plain') violations.push(`unannotated call ${String(call)}`);
          };
          const normal = {
            type: 'in-memory' as const,
            server: deployment('normal', arrived) as never,
          };
          const isolated = {
            type: 'in-memory' as const,
            server: deployment('isolated', arrived) as never,
          };
          const sections: McpIntegrationSection[] = [];
          const scenario = async (): Promise<PromiseSettledResult<unknown>[]> => {
            // This worker's store calls interleave with the steps; the other worker's run as they come.
            const session = await Session.open({ sessionId, store: scheduledStore(store, s) });
            sections.push(
              new McpIntegrationSection({
                key: 'mcp.isolating',
                session,
                servers: [
                  {
                    name: 'x',
                    transport: normal,
                    isolation: { transport: isolated, at: 'secret' },
                  },
                ],
              }),
              new McpIntegrationSection({
                key: 'mcp.plain',
                session,
                servers: [{ name: 'x', transport: normal }],
              }),
            );
            for (const section of sections) await section.connect();
            session.privateData.add('patients', 'confidential');
            await session.flushPrivateData();
            const pool = session.resources.get(McpConnectionPool)!;
            let secretStored = false;
            let calls = 0;
            const perform = async (next: Step): Promise<unknown> => {
              if (next.kind === 'escalate') {
                const other = await Session.open({ sessionId, store });
                other.privateData.add('records', 'secret');
                await other.flushPrivateData();
                secretStored = true;
                return undefined;
              }
              const call = (calls += 1);
              started.set(call, { afterSecret: secretStored });
              return pool.callTool('x', next.tool, { call }, { session });
            };
            // Calls start in order and stay in flight, their store calls in the
            // scheduler's order; an escalation is stored before the next step starts.
            const inFlight: Promise<unknown>[] = [];
            for (const next of steps) {
              const done = s.schedule(Promise.resolve(next)).then(perform);
              inFlight.push(done);
              if (next.kind === 'escalate') await done;
            }
            return Promise.allSettled(inFlight);
          };
          try {
            const outcomes = await s.waitFor(scenario());
            expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
            expect(violations, JSON.stringify(steps)).toEqual([]);
          } finally {
            await Promise.all(sections.map((section) => section.disconnect()));
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
