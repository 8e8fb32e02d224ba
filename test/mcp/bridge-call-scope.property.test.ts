/**
 * A bridged call runs in a call scope of its own only when it asks for
 * progress (docs/runtime.md), as an interleaving: a native tool calls the
 * bridged one nested; a progress reducer is added before the call or at a
 * point the scheduler picks (possibly while the call waits for a
 * reconnect); the server may fail; the outer tool may fail afterwards.
 * Progress is asked for only when the bridged call runs in its own scope
 * (the server, in process, sees that call running), and a progress
 * reducer's write stays only when both calls succeed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  invokeTool,
  McpToolProgress,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
} from '../../src/index.js';
import { bridgeTool } from '../../src/mcp/bridge-tool.js';
import { DEFAULT_RETRY } from '../../src/mcp/retry-policy.js';
import { rawToolServer } from '../support/mcp-fixtures.js';
import { handMadeRoute } from '../support/quiet-route-listener.js';

describe('a bridged call and its call scope, interleaved', () => {
  it('asks for progress only in its own scope, and a failure anywhere undoes the progress writes', async () => {
    let askedForProgress = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.boolean(), // progress observed before the call starts
        fc.boolean(), // a reconnect under way: the call waits
        fc.boolean(), // the server answers with an error
        fc.boolean(), // the outer tool fails after the bridged call
        async (s, observedAtStart, reconnect, serverFails, outerFails) => {
          const session = new Session();
          const running: (string | undefined)[] = [];
          const tokens: unknown[] = [];
          const raw = rawToolServer([
            {
              name: 'probe',
              inputSchema: { type: 'object' },
              annotations: { openWorldHint: false },
              handler: async (_args, extra) => {
                running.push(session.currentCall()?.callId);
                const token = extra._meta?.progressToken;
                tokens.push(token);
                if (token !== undefined) {
                  await extra.sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken: token, progress: 1 },
                  });
                }
                return { content: [{ type: 'text', text: 'probed' }], isError: serverFails };
              },
            },
          ]);
          const route = handMadeRoute({
            name: 'srv',
            transport: { type: 'in-memory', server: raw.server },
          });
          await route.connect();
          try {
            const bridged = bridgeTool(route.tools[0]!, 'srv_probe', {
              session,
              route,
              retry: DEFAULT_RETRY,
              reaches: new Map(),
              listedWhilePrivate: false,
              masker: route.redactor,
            });
            const ticks = session.slice('ticks', { initial: { n: 0 } });
            const observe = (): void =>
              void ticks.on(McpToolProgress, (draft) => void (draft.n += 1));
            if (observedAtStart) observe();
            const callIds = new Map<string, string>();
            session.bus.subscribe(ToolInvoked, (event) =>
              callIds.set(event.toolName, event.callId),
            );
            let inner: ToolResult | undefined;
            const outer = Tool.create({
              name: 'outer',
              description: 'Calls the bridged tool',
              params: z.object({}),
              handler: async (_params, context) => {
                inner = await invokeTool(bridged, {}, { session: context.session });
                return outerFails ? ToolResult.error('outer failed') : ToolResult.ok('done');
              },
            });
            const reconnecting = reconnect ? route.active.reconnect() : Promise.resolve();
            const later = s.schedule(Promise.resolve('observe')).then(() => {
              if (!observedAtStart) observe();
            });
            await s.waitFor(Promise.all([later, invokeTool(outer, {}, { session }), reconnecting]));
            await new Promise((resolve) => setTimeout(resolve, 0));
            const own = callIds.get('srv_probe');
            tokens.forEach((token, index) => {
              if (token !== undefined) expect(running[index]).toBe(own);
            });
            if (tokens.some((token) => token !== undefined)) askedForProgress += 1;
            const bothSucceeded = inner?.success === true && !outerFails;
            if (!bothSucceeded) expect(ticks.get().n).toBe(0);
            else if (tokens.some((token) => token !== undefined)) expect(ticks.get().n).toBe(1);
          } finally {
            await route.close();
          }
        },
      ),
      { numRuns: 80 },
    );
    // The property met both kinds of call.
    expect(askedForProgress).toBeGreaterThan(0);
  }, 60_000);
});
