/**
 * A server's own requests and the escalation, in every order: requests
 * sent, handlers answering and the session escalating are interleaved by
 * fast-check's scheduler. Whatever the order, a normal endpoint gets an
 * answer only when the escalation came after that answer was decided, and
 * a handler never runs for a request that arrived after it; the isolated
 * endpoint is answered throughout.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { McpIntegrationSection, Session } from '../../src/index.js';

const ASK = {
  messages: [
    { role: 'user' as const, content: { type: 'text' as const, text: 'what do you know?' } },
  ],
  maxTokens: 10,
};

function peer(label: string): McpServer {
  const server = new McpServer({ name: label, version: '1.0.0' });
  server.registerTool('noop', { description: 'Does nothing' }, () => ({ content: [] }));
  return server;
}

describe('a server’s own requests and the escalation, interleaved', () => {
  it('answer a normal endpoint only with what was decided before the escalation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom('normal' as const, 'isolated' as const), {
          minLength: 1,
          maxLength: 4,
        }),
        async (scheduler, requests) => {
          const normal = peer('normal');
          const isolated = peer('isolated');
          const session = new Session();
          /** What happened, in order: a handler entering or deciding, the escalation. */
          const log: string[] = [];
          const section = new McpIntegrationSection({
            session,
            servers: [
              {
                name: 'peer',
                transport: { type: 'in-memory', server: normal },
                isolation: { transport: { type: 'in-memory', server: isolated } },
              },
            ],
            sampling: async (_params, context) => {
              const who = `${context.endpoint} ${String(log.length)}`;
              log.push(`enter ${who}`);
              await scheduler.schedule(Promise.resolve(), `decide ${who}`);
              log.push(`decide ${who}`);
              return {
                role: 'assistant',
                model: 'm',
                content: {
                  type: 'text',
                  text: `${context.endpoint}: ${session.privateData.sensitivity}`,
                },
              };
            },
          });
          await section.connect();
          try {
            const escalation = scheduler.schedule(Promise.resolve(), 'escalate').then(() => {
              log.push('escalate');
              session.privateData.add('patients', 'confidential');
            });
            const asked = requests.map((endpoint, index) =>
              scheduler.schedule(Promise.resolve(), `ask ${endpoint} ${String(index)}`).then(() => {
                const server = endpoint === 'normal' ? normal : isolated;
                const sentAfterEscalation = log.includes('escalate');
                return server.server.createMessage(ASK).then(
                  (answer) => ({ endpoint, sentAfterEscalation, answer: answer.content }),
                  (error: unknown) => ({ endpoint, sentAfterEscalation, error: String(error) }),
                );
              }),
            );
            const outcomes = await scheduler.waitFor(
              Promise.all([escalation, ...asked]).then(([, ...rest]) => rest),
            );
            const escalatedAt = log.indexOf('escalate');
            for (const outcome of outcomes) {
              if (outcome.endpoint === 'isolated') {
                expect(outcome).toHaveProperty('answer');
                continue;
              }
              // Asked after the escalation: refused, and no handler of the normal endpoint ran for it.
              if (outcome.sentAfterEscalation) {
                expect(outcome).toHaveProperty('error');
                expect(String((outcome as { error: string }).error)).toContain('does not answer');
              }
              if ('answer' in outcome) {
                // Answered: its handler decided before the session escalated, and said so.
                expect(outcome.answer).toEqual({ type: 'text', text: 'normal: public' });
              }
            }
            const normalEntries = log.filter((entry) => entry.startsWith('enter normal'));
            for (const entry of normalEntries)
              expect(log.indexOf(entry)).toBeLessThan(escalatedAt === -1 ? Infinity : escalatedAt);
            const answeredNormal = outcomes.filter(
              (o) => o.endpoint === 'normal' && 'answer' in o,
            ).length;
            const decidedBefore = log
              .slice(0, escalatedAt)
              .filter((entry) => entry.startsWith('decide normal')).length;
            expect(answeredNormal).toBeLessThanOrEqual(decidedBefore);
          } finally {
            await section.disconnect();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
