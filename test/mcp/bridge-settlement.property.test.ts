/**
 * Every bridged call settles once, however its answer, a failure or a
 * timeout interleave with the others: the route counts no call in flight
 * afterwards (a sandbox restart waits for that count), each call's result
 * is the one its server's answer calls for, and a call the server never
 * answers fails at its timeout. The answer is handled in the SDK's own
 * reaction to the response (`CallHandlers`), so this holds for each path
 * into it: an answer, an error result, a JSON-RPC error, a timeout, and a
 * transport that throws as the call is sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invokeTool, Session } from '../../src/index.js';
import { bridgeTool } from '../../src/mcp/bridge-tool.js';
import { rawToolServer } from '../support/mcp-fixtures.js';
import { handMadeRoute } from '../support/quiet-route-listener.js';

type Kind = 'answer' | 'error result' | 'rpc error' | 'silent' | 'send throws';
const KINDS: readonly Kind[] = ['answer', 'error result', 'rpc error', 'silent', 'send throws'];
const TIMEOUT_MS = 200;

describe('bridged calls settling, interleaved', () => {
  it('settle once each, with the result their answer calls for, and leave nothing in flight', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 6 }),
        async (s, kinds) => {
          const session = new Session();
          const raw = rawToolServer(
            KINDS.map((kind) => ({
              name: kind.replaceAll(' ', '_'),
              inputSchema: { type: 'object' },
              // Safe to send again: a retry policy would otherwise refuse, and the
              // retry path is part of what must settle once.
              annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
              handler: () => {
                if (kind === 'silent') return new Promise<never>(() => undefined);
                const answer = s.schedule(Promise.resolve(kind), `server answers ${kind}`);
                return answer.then(() => {
                  if (kind === 'rpc error') throw new Error('the server broke');
                  return {
                    content: [{ type: 'text', text: kind }],
                    ...(kind === 'error result' ? { isError: true } : {}),
                  };
                });
              },
            })),
          );
          const route = handMadeRoute({
            name: 'srv',
            transport: { type: 'in-memory', server: raw.server },
            timeoutMs: TIMEOUT_MS,
          });
          await route.connect();
          const connection = route.active;
          const send = connection.callTool.bind(connection);
          connection.callTool = ((name: string, ...rest: unknown[]) => {
            if (name === 'send_throws') throw new Error('the transport broke');
            return (send as (...args: unknown[]) => unknown)(name, ...rest);
          }) as typeof connection.callTool;
          try {
            const settled = kinds.map(() => 0);
            const calls = kinds.map((kind, index) => {
              const description = route.tools.find(
                (tool) => tool.name === kind.replaceAll(' ', '_'),
              )!;
              const tool = bridgeTool(description, `srv_${description.name}`, {
                session,
                route,
                retry: { enabled: true, minDelayMs: 1, maxDelayMs: 2 },
                reaches: new Map(),
                listedWhilePrivate: false,
                masker: route.redactor,
              });
              return s
                .schedule(Promise.resolve(), `call ${index} (${kind})`)
                .then(() => invokeTool(tool, {}, { session }))
                .then((result) => {
                  settled[index]! += 1;
                  return result;
                });
            });
            const results = await s.waitFor(Promise.all(calls));
            expect(settled).toEqual(kinds.map(() => 1));
            expect(route.inflight).toBe(0);
            results.forEach((result, index) => {
              const kind = kinds[index]!;
              expect(result.success, kind).toBe(kind === 'answer');
              if (kind === 'answer' || kind === 'error result') expect(result.message).toBe(kind);
              if (kind === 'rpc error') expect(result.message).toContain('the server broke');
              if (kind === 'silent')
                expect(result.message).toContain(`timed out after ${TIMEOUT_MS} ms`);
              if (kind === 'send throws') expect(result.message).toContain('the transport broke');
            });
          } finally {
            await route.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
