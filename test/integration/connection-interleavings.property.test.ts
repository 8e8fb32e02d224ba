/**
 * Connections under random interleavings, against real stdio servers:
 * connect, disconnect, calls, escalation (which switches to the isolated
 * instance), a server killed under the connection (which reconnects) and
 * health checks, released in an order fast-check's scheduler
 * picks. Afterwards no child process remains, `connected` matches what is
 * really there, and every call settled within its timeout.
 */
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  McpHealthMonitor,
  McpIntegrationSection,
  McpServerConnected,
  Session,
  invokeTool,
} from '../../src/index.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const busyServerPath = fileURLToPath(
  new URL('../fixtures/resilience/busy-server.mjs', import.meta.url),
);
const CALL_TIMEOUT_MS = 5_000;

type Step =
  | { readonly kind: 'connect' }
  | { readonly kind: 'disconnect' }
  | { readonly kind: 'call'; readonly tool: 'pid' | 'slow' | 'quota' }
  | { readonly kind: 'escalate' }
  | { readonly kind: 'crash' }
  | { readonly kind: 'health' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'connect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      tool: fc.constantFrom('pid' as const, 'slow' as const, 'quota' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'escalate' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'health' as const }) },
);

/** The busy server; `deployment` names which one (an isolated one must be another command line). */
function stdio(deployment = 'normal'): { type: 'stdio'; command: string; args: string[] } {
  return { type: 'stdio', command: process.execPath, args: [busyServerPath, deployment] };
}

async function run(section: McpIntegrationSection, session: Session, s: Step): Promise<unknown> {
  switch (s.kind) {
    case 'connect':
      return section.connect();
    case 'disconnect':
      return section.disconnect();
    case 'escalate':
      session.privateData.add('records', 'confidential');
      return undefined;
    case 'health':
      return new McpHealthMonitor(section, { timeoutMs: 1_000 }).check();
    case 'crash': {
      // The server dies under the connection: it reconnects on its own, unless
      // a disconnect wins; wait (bounded) until one of the two has happened.
      await section.connect().catch(() => undefined);
      const connection = section.routes[0]?.active;
      const pid = connection?.pid;
      if (connection?.state !== 'connected' || pid === undefined || pid === null) return undefined;
      process.kill(pid, 'SIGKILL');
      await waitFor(() => connection.pid !== pid || connection.state === 'closed', {
        timeoutMs: CALL_TIMEOUT_MS,
        description: 'a reconnect or a close after the crash',
      }).catch(() => undefined);
      return undefined;
    }
    case 'call': {
      // An agent connects before it calls: join (or start) a connection, which a
      // disconnect released meanwhile may still undo; then there is no tool to call.
      await section.connect().catch(() => undefined);
      const tool = section.connected
        ? section.tools().find((candidate) => candidate.name === `busy_${s.tool}`)
        : undefined;
      if (tool === undefined) return undefined;
      return invokeTool(tool, s.tool === 'slow' ? { ms: 100 } : {}, {
        session,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS * 2),
      });
    }
  }
}

describe('connections under random interleavings (real stdio servers)', () => {
  it('leave no process, report connected truthfully, and never hang a call', async () => {
    let answered = 0;
    let connectedAtEnd = 0;
    let reconnects = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(step, { minLength: 4, maxLength: 10 }),
        async (scheduler, steps) => {
          const before = childPids();
          const session = new Session();
          session.bus.subscribe(McpServerConnected, (event) => {
            if (event.reconnect) reconnects += 1;
          });
          const section = new McpIntegrationSection({
            session,
            servers: [
              {
                name: 'busy',
                transport: stdio(),
                timeoutMs: CALL_TIMEOUT_MS,
                isolation: { transport: stdio('isolated') },
              },
            ],
          });
          const started = Date.now();
          const outcomes = steps.map((s, index) =>
            scheduler
              .schedule(Promise.resolve(), `${String(index)}: ${JSON.stringify(s)}`)
              .then(() => run(section, session, s)),
          );
          const settled = await scheduler.waitFor(Promise.allSettled(outcomes));
          answered += settled.filter(
            (outcome) =>
              outcome.status === 'fulfilled' &&
              typeof outcome.value === 'object' &&
              outcome.value !== null &&
              'success' in outcome.value,
          ).length;
          // Calls answer or fail: every step settled, and none waited past a timeout.
          expect(settled).toHaveLength(steps.length);
          expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS * 4);

          if (section.connected) {
            connectedAtEnd += 1;
            const tool = section.tools().find((candidate) => candidate.name === 'busy_pid');
            expect(tool).toBeDefined();
            const answer = await invokeTool(tool!, {}, { session });
            expect(answer.success).toBe(true);
            expect(isAlive(Number(answer.message))).toBe(true);
          }
          await section.disconnect();
          expect(section.connected).toBe(false);
          expect(await expectNoNewChildren(before)).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
    // The property is not vacuous: calls reached servers and sections ended connected.
    expect(answered).toBeGreaterThan(0);
    expect(connectedAtEnd).toBeGreaterThan(0);
    expect(reconnects).toBeGreaterThan(0);
  }, 240_000);
});
