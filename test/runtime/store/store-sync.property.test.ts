/**
 * Two workers on one session through `FileSessionStore` (a store object
 * each, as two processes have), in whatever order fast-check's scheduler
 * starts worker A's calls of a network tool (through `invokeTool` or the
 * session's pool), A's own syncs, and worker B's escalation: a call of A
 * that starts once B's escalation is stored is refused and never reaches
 * the server, A's level never goes down, and
 * every call settles. The fast path of a call on a session with a store
 * (a version answered without a wait, no wait for an escalation that is
 * not pending) is what this holds to the rule.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sensitivityRank } from '../../../src/core/sensitivity.js';
import { McpConnectionPool } from '../../../src/mcp/connection-pool.js';
import { McpIntegrationSection } from '../../../src/mcp/section.js';
import { Session } from '../../../src/runtime/session.js';
import { FileSessionStore } from '../../../src/runtime/store/file-session-store.js';
import { invokeTool } from '../../../src/tools/invoke-tool.js';

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mcp-sections-store-sync-property-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A call of A's tool (through `invokeTool`, or the session's pool), or a sync of A. */
type Step = { readonly kind: 'call' | 'pool call' | 'sync' };

/** What one call of A saw. */
interface CallRecord {
  readonly startedAfterStored: boolean;
  readonly success: boolean;
  readonly message: string;
}

const stepsArb = fc.array(
  fc.oneof(
    { weight: 2, arbitrary: fc.constant<Step>({ kind: 'call' }) },
    { weight: 2, arbitrary: fc.constant<Step>({ kind: 'pool call' }) },
    { weight: 1, arbitrary: fc.constant<Step>({ kind: 'sync' }) },
  ),
  { minLength: 2, maxLength: 6 },
);

/** A call of A's network tool. */
const ARGS = { url: 'https://a.test' };

/** The same call through the session's pool, its answer read as a tool result's. */
async function poolCall(session: Session): Promise<{ success: boolean; message: string }> {
  const pool = session.resources.get(McpConnectionPool);
  if (pool === undefined) throw new Error('the session has no pool');
  const result = await pool.callTool('web', 'fetch', ARGS, { session });
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return { success: result.isError !== true, message: text };
}

describe('a call on a session shared through FileSessionStore', () => {
  it('is refused from the moment another worker stored an escalation, in any order', async () => {
    let afterStored = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        stepsArb,
        fc.constantFrom('confidential' as const, 'secret' as const),
        fc.boolean(),
        fc.array(fc.constantFrom(true, true, false), { minLength: 1, maxLength: 8 }),
        async (s, steps, level, warm, settle) => {
          const sessionId = `property-${randomUUID()}`;
          const storeA = new FileSessionStore({ directory });
          const storeB = new FileSessionStore({ directory });
          const workerA = await Session.open({ sessionId, store: storeA });
          const workerB = await Session.open({ sessionId, store: storeB });
          // The session's file exists before the run (a slice B saved, no private data), so that
          // A's store can hold its version, and B's escalation replaces that file.
          workerB.slice('notes', { initial: { saved: true }, persistent: true });
          await workerB.flush();
          let reached = 0;
          const server = new McpServer({ name: 'web', version: '1.0.0' });
          server.registerTool('fetch', { inputSchema: { url: z.string() } }, ({ url }) => {
            reached += 1;
            return { content: [{ type: 'text', text: `fetched ${url}` }] };
          });
          const section = new McpIntegrationSection({
            session: workerA,
            servers: [{ name: 'web', transport: { type: 'in-memory', server } }],
          });
          await section.connect();
          try {
            const tool = section.tools().find((candidate) => candidate.name === 'web_fetch')!;
            // A call before the run: A's store holds the file's version and path.
            if (warm) {
              expect((await invokeTool(tool, ARGS, { session: workerA })).success).toBe(true);
              reached = 0;
            }
            let stored = false;
            const calls: CallRecord[] = [];
            const levels: number[] = [];
            /** The tasks in the order they started. */
            const started: Promise<unknown>[] = [];
            const task = (label: string, body: () => Promise<unknown>): Promise<unknown> =>
              s.schedule(Promise.resolve(label)).then(() => {
                const run = body();
                started.push(run);
                return run;
              });
            const tasks = steps.map((step, index) =>
              task(`${step.kind} ${index}`, async () => {
                if (step.kind === 'sync') return workerA.syncFromStore();
                const startedAfterStored = stored;
                const { success, message } =
                  step.kind === 'call'
                    ? await invokeTool(tool, ARGS, { session: workerA })
                    : await poolCall(workerA);
                levels.push(sensitivityRank(workerA.privateData.sensitivity));
                calls.push({ startedAfterStored, success, message });
              }),
            );
            tasks.push(
              task('escalate', async () => {
                workerB.privateData.add('payroll', level);
                await workerB.flush();
                stored = true;
              }),
            );
            // Each task the scheduler starts either runs alongside the ones after it or
            // settles first, as `settle` says: the store's file I/O takes long enough that,
            // always alongside, every call would start before the escalation is stored.
            for (let index = 0; s.count() > 0; index++) {
              await s.waitOne();
              if (settle[index % settle.length] === true) await started.at(-1);
            }
            await Promise.all(tasks);

            for (const call of calls) {
              if (!call.startedAfterStored) continue;
              afterStored += 1;
              expect(call.success, call.message).toBe(false);
              expect(call.message).toMatch(/is blocked: the session holds private data/);
            }
            expect(reached).toBe(calls.filter((call) => call.success).length);
            expect(levels).toEqual([...levels].sort((a, b) => a - b));
            await workerA.syncFromStore();
            expect(workerA.privateData.sensitivity).toBe(level);
          } finally {
            await section.disconnect();
            await Promise.all([storeA.close(), storeB.close()]);
          }
        },
      ),
      { numRuns: 40 },
    );
    // Calls did start after the escalation was stored, often enough to mean something.
    expect(afterStored).toBeGreaterThan(10);
  });
});
