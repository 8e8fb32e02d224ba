/**
 * `AnswerStreams` under any interleaving of what a streamable-HTTP
 * connection sees: answers (results or errors) arriving, answer streams
 * ending (resumable or not, cancelled or not), the SDK's resumptions
 * failing or opening, and the client closing. The client sees at most one
 * message per request: its answer, or one lost-answer error; never an
 * error for a request that was answered, cancelled, or outlived its
 * client; and a resumption of a stream whose request was answered with an
 * error is refused.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerStreams, lostAnswerReason, RESUME_ATTEMPTS } from '../../src/mcp/lost-answers.js';

/** What happens to one request's answer stream. */
interface Story {
  /** What answers it, if anything (before or after its stream ends, as scheduled). */
  readonly answer: 'none' | 'result' | 'error';
  /** The stream carried an event id. */
  readonly resumable: boolean;
  /** The client cancelled the call (it then stops waiting for it). */
  readonly cancelled: boolean;
  /** Resumptions that fail before one opens (or all of them, past the SDK's attempts). */
  readonly resumeFailures: number;
}

const story: fc.Arbitrary<Story> = fc.record({
  answer: fc.constantFrom('none', 'result', 'error'),
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
          let closed = false;
          const delivered: JSONRPCMessage[] = [];
          /** What reached the client after it closed: nothing may. */
          const afterClose: JSONRPCMessage[] = [];
          const transport = {
            onmessage: (message: JSONRPCMessage) => (closed ? afterClose : delivered).push(message),
            onclose: () => undefined,
          } as unknown as Transport;
          const answers = new AnswerStreams();
          answers.watch(transport);
          const errorDelivered = new Set<number>();
          const tasks: Promise<unknown>[] = [];
          stories.forEach((entry, id) => {
            answers.opened(id);
            const lastEventId = entry.resumable ? `event-${String(id)}` : undefined;
            if (entry.answer !== 'none') {
              tasks.push(
                s.schedule(Promise.resolve(), `answer ${String(id)}`).then(() => {
                  if (closed) return;
                  transport.onmessage?.(
                    entry.answer === 'result'
                      ? { jsonrpc: '2.0', id, result: {} }
                      : { jsonrpc: '2.0', id, error: { code: -32602, message: 'refused' } },
                  );
                  if (entry.answer === 'error') errorDelivered.add(id);
                }),
              );
            }
            const end = s.schedule(Promise.resolve(), `end ${String(id)}`).then(() => {
              answers.ended(id, { kind: 'event stream', lastEventId, cancelled: entry.cancelled });
            });
            tasks.push(end);
            // The SDK resumes a stream with an id unless a result answered it first.
            if (lastEventId === undefined || entry.cancelled || entry.answer === 'result') return;
            let chain = end;
            /** The SDK stopped: its resumption was refused, or is not an answer stream. */
            let stopped = false;
            for (let attempt = 0; attempt <= entry.resumeFailures; attempt++) {
              chain = chain.then(() =>
                s
                  .schedule(Promise.resolve(), `resume ${String(id)}#${String(attempt)}`)
                  .then(() => {
                    if (stopped) return;
                    const resumption = answers.resumption(lastEventId);
                    if (errorDelivered.has(id) && !closed) expect(resumption).toBe('answered');
                    stopped = typeof resumption !== 'object';
                    if (typeof resumption !== 'object') return;
                    expect(resumption.waiting).toBe(id);
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
            const lost = got.filter(
              (m) => 'error' in m && lostAnswerReason(m.error.data) !== undefined,
            );
            const order = s
              .report()
              .map((r) => r.label)
              .join(', ');
            expect(got.length, `request ${String(id)}: ${order}`).toBeLessThanOrEqual(1);
            if (entry.answer !== 'none') {
              expect(lost, `request ${String(id)}: ${order}`).toHaveLength(0);
              return;
            }
            // Unanswered: failed only when nothing else can still answer or end it.
            const resumptionGaveUp = entry.resumable && entry.resumeFailures >= RESUME_ATTEMPTS;
            const mayFail = !entry.cancelled && (!entry.resumable || resumptionGaveUp);
            if (!mayFail) expect(lost).toHaveLength(0);
            if (mayFail && !closes) expect(lost, `request ${String(id)}: ${order}`).toHaveLength(1);
          });
        },
      ),
      { numRuns: 400 },
    );
  });
});
