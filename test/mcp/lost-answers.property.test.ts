/**
 * `AnswerStreams` under any interleaving of what a streamable-HTTP
 * connection sees: answers arriving, answer streams ending (resumable or
 * not, cancelled or not), resumptions failing or opening, and the client
 * closing. The client sees exactly one outcome per request it waits for:
 * its answer, or one lost-answer error, never both, and never an error
 * for a request that was answered, cancelled, or outlived its client.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerStreams, lostAnswerReason, RESUME_ATTEMPTS } from '../../src/mcp/lost-answers.js';

/** What happens to one request's answer stream. */
interface Story {
  /** The answer arrives (before or after the stream ends, as scheduled). */
  readonly answered: boolean;
  /** The stream carried an event id. */
  readonly resumable: boolean;
  /** The client cancelled the call (it then stops waiting for it). */
  readonly cancelled: boolean;
  /** Resumptions that fail before one opens (or all of them, past the SDK's attempts). */
  readonly resumeFailures: number;
}

const story: fc.Arbitrary<Story> = fc.record({
  answered: fc.boolean(),
  resumable: fc.boolean(),
  cancelled: fc.boolean(),
  resumeFailures: fc.integer({ min: 0, max: RESUME_ATTEMPTS + 1 }),
});

/** Waits for the turn of the event loop after which `AnswerStreams` decides. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('AnswerStreams under any interleaving', () => {
  it('gives each waiting request its answer or one lost-answer error, never both', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(story, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (s, stories, closes) => {
          const delivered: JSONRPCMessage[] = [];
          /** What reached the client after it closed: nothing may. */
          const afterClose: JSONRPCMessage[] = [];
          const transport = {
            onmessage: (message: JSONRPCMessage) => (closed ? afterClose : delivered).push(message),
            onclose: () => undefined,
          } as unknown as Transport;
          const answers = new AnswerStreams();
          answers.watch(transport);
          let closed = false;
          const tasks: Promise<unknown>[] = [];
          stories.forEach((entry, id) => {
            answers.opened(id);
            const lastEventId = entry.resumable ? `event-${String(id)}` : undefined;
            if (entry.answered) {
              tasks.push(
                s.schedule(Promise.resolve(), `answer ${String(id)}`).then(() => {
                  if (!closed) transport.onmessage?.({ jsonrpc: '2.0', id, result: {} });
                }),
              );
            }
            const end = s.schedule(Promise.resolve(), `end ${String(id)}`).then(() => {
              answers.ended(id, { lastEventId, cancelled: entry.cancelled });
            });
            tasks.push(end);
            if (lastEventId === undefined || entry.cancelled) return;
            // The SDK's resumptions, each after the stream ended.
            let chain = end;
            for (let attempt = 0; attempt <= entry.resumeFailures; attempt++) {
              chain = chain.then(() =>
                s
                  .schedule(Promise.resolve(), `resume ${String(id)}#${String(attempt)}`)
                  .then(() => {
                    if (answers.resumes(lastEventId) === undefined) return;
                    if (attempt < entry.resumeFailures) {
                      answers.resumeFailed(lastEventId, 'fetch failed', false);
                    } else {
                      answers.resumed(lastEventId);
                    }
                  }),
              );
            }
            tasks.push(chain);
          });
          if (closes) {
            tasks.push(
              s.schedule(Promise.resolve(), 'close').then(() => {
                closed = true;
                transport.onclose?.();
              }),
            );
          }
          await s.waitFor(Promise.all(tasks));
          await nextTurn();
          await nextTurn();
          expect(afterClose).toEqual([]);

          const byId = new Map<number, JSONRPCMessage[]>();
          for (const message of delivered) {
            const id = (message as { id: number }).id;
            byId.set(id, [...(byId.get(id) ?? []), message]);
          }
          stories.forEach((entry, id) => {
            const got = byId.get(id) ?? [];
            const results = got.filter((m) => 'result' in m);
            const lost = got.filter(
              (m) => 'error' in m && lostAnswerReason(m.error.data) !== undefined,
            );
            expect(
              got.length,
              `request ${String(id)}: ${s
                .report()
                .map((r) => r.label)
                .join(', ')}`,
            ).toBeLessThanOrEqual(1);
            if (results.length === 1) return;
            // Unanswered: failed only when nothing else can still answer or end it.
            const resumptionGaveUp = entry.resumable && entry.resumeFailures >= RESUME_ATTEMPTS;
            const mayFail = !entry.cancelled && (!entry.resumable || resumptionGaveUp);
            if (!mayFail) expect(lost).toHaveLength(0);
            if (mayFail && !closes) expect(lost).toHaveLength(1);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
