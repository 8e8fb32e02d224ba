/**
 * The ratchet under any interleaving of a lost connection, its reconnects,
 * calls (through invokeTool and through the session's pool) and
 * escalation, released in an order fast-check's scheduler picks: no
 * open-world call is written to a server that is not isolated once the
 * session holds private data, and none reaches an isolated server's normal
 * deployment once the session is at its threshold. Checked where the
 * request reaches the server's transport, so an in-flight call that was
 * sent before the escalation is told apart from one sent after it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, McpConnectionPool, McpIntegrationSection, Session } from '../../src/index.js';

type Server = 'plain' | 'iso';

type Step =
  | { readonly kind: 'drop'; readonly server: Server }
  | { readonly kind: 'call'; readonly server: Server; readonly via: 'invoke' | 'pool' }
  | { readonly kind: 'escalate'; readonly level: 'internal' | 'confidential' };

const server = fc.constantFrom<Server>('plain', 'iso');

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), server }),
  fc.record({
    kind: fc.constant('call' as const),
    server,
    via: fc.constantFrom('invoke' as const, 'pool' as const),
  }),
  fc.record({
    kind: fc.constant('escalate' as const),
    level: fc.constantFrom('internal' as const, 'confidential' as const),
  }),
);

/**
 * An in-process server with one unannotated (open-world) tool, whose
 * transport reports every `tools/call` as it arrives: the moment the
 * client wrote it.
 */
function watchedServer(label: string, arrived: (label: string) => void) {
  const mcp = new McpServer({ name: label, version: '1.0.0' });
  mcp.registerTool('fetch_page', { inputSchema: { q: z.string() } }, () => ({
    content: [{ type: 'text', text: label }],
  }));
  return {
    mcp,
    endpoint: {
      connect: async (transport: Transport) => {
        await mcp.connect(transport);
        const deliver = transport.onmessage;
        transport.onmessage = (message, extra) => {
          if ('method' in message && message.method === 'tools/call') arrived(label);
          deliver?.(message, extra);
        };
      },
      close: () => mcp.close(),
    },
  };
}

describe('the ratchet, under any interleaving of drops, reconnects, calls and escalation', () => {
  it('never lets an open-world call out once the session forbids it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 2, maxLength: 8 }),
        async (s, steps) => {
          const session = new Session();
          const violations: string[] = [];
          const arrived = (label: string): void => {
            const { sensitivity, hasPrivateData } = session.privateData;
            // Without isolation any private data refuses the tool; with it,
            // the normal deployment is left from the threshold (confidential) on.
            const isolatedLevel = sensitivity === 'confidential' || sensitivity === 'secret';
            if (label === 'plain' && hasPrivateData) violations.push(`plain at ${sensitivity}`);
            if (label === 'iso-normal' && isolatedLevel)
              violations.push(`normal at ${sensitivity}`);
          };
          const plain = watchedServer('plain', arrived);
          const normal = watchedServer('iso-normal', arrived);
          const isolated = watchedServer('iso-isolated', arrived);
          const section = new McpIntegrationSection({
            session,
            reconnect: { attempts: 5, baseDelayMs: 1 },
            retry: { enabled: true, minDelayMs: 1, maxDelayMs: 2 },
            servers: [
              {
                name: 'plain',
                transport: { type: 'in-memory', server: plain.endpoint as never },
                timeoutMs: 2_000,
              },
              {
                name: 'iso',
                transport: { type: 'in-memory', server: normal.endpoint as never },
                isolation: { transport: { type: 'in-memory', server: isolated.endpoint as never } },
                timeoutMs: 2_000,
              },
            ],
          });
          await section.connect();
          const tools = new Map(section.tools().map((tool) => [tool.name, tool]));
          const run = async (next: Step): Promise<unknown> => {
            switch (next.kind) {
              case 'drop':
                return (next.server === 'plain' ? plain.mcp : normal.mcp).close();
              case 'escalate':
                session.privateData.add(`records-${next.level}`, next.level);
                return undefined;
              case 'call':
                // The pool runs the same bridged tool: the same checks, the same routing.
                return next.via === 'pool'
                  ? session.resources
                      .get(McpConnectionPool)
                      ?.callTool(next.server, 'fetch_page', { q: 'x' }, { session })
                  : invokeTool(tools.get(`${next.server}_fetch_page`)!, { q: 'x' }, { session });
            }
          };
          try {
            const done = steps.map((next) => s.schedule(Promise.resolve(next)).then(run));
            await s.waitAll();
            await Promise.allSettled(done);
            expect(violations, JSON.stringify(steps)).toEqual([]);
          } finally {
            await section.disconnect();
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
