import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SharedAttempt } from '../../src/core/shared-attempt.js';

/** Work that ends when told to, or with the signal's reason when aborted first. */
function gatedWork(): {
  run: (signal: AbortSignal) => Promise<string>;
  finish: () => void;
  aborted: () => boolean;
} {
  let finish!: () => void;
  let seen: AbortSignal | undefined;
  const run = (signal: AbortSignal): Promise<string> => {
    seen = signal;
    return new Promise<string>((resolve, reject) => {
      finish = () => resolve('done');
      signal.addEventListener('abort', () => reject(new Error(`work aborted: ${signal.reason}`)));
    });
  };
  return { run, finish: () => finish(), aborted: () => seen?.aborted === true };
}

const gaveUp = (reason: Error): Error => new Error(`gave up: ${reason.message}`);

describe('SharedAttempt', () => {
  it('ends only the wait of a caller who gives up while another waits without a signal', async () => {
    const work = gatedWork();
    const attempt = new SharedAttempt(work.run);
    const first = new AbortController();
    const waiting = attempt.join(first.signal, gaveUp);
    const patient = attempt.join(undefined, gaveUp);
    first.abort('the first caller left');
    await expect(waiting).rejects.toThrow('gave up: the first caller left');
    expect(work.aborted()).toBe(false);
    work.finish();
    await expect(patient).resolves.toBe('done');
  });

  it('aborts the work when the last caller gives up, who then gets the work’s own outcome', async () => {
    const work = gatedWork();
    const attempt = new SharedAttempt(work.run);
    const one = new AbortController();
    const two = new AbortController();
    const first = attempt.join(one.signal, gaveUp);
    const second = attempt.join(two.signal, gaveUp);
    one.abort('one left');
    await expect(first).rejects.toThrow('gave up: one left');
    expect(work.aborted()).toBe(false);
    two.abort('two left');
    await expect(second).rejects.toThrow('work aborted: two left');
    expect(work.aborted()).toBe(true);
  });

  it('never aborts pinned work, and a caller whose signal was aborted already does not wait', async () => {
    const work = gatedWork();
    const attempt = new SharedAttempt(work.run, { pinned: true });
    await expect(attempt.join(AbortSignal.abort('too late'), gaveUp)).rejects.toThrow(
      'gave up: too late',
    );
    expect(work.aborted()).toBe(false);
    work.finish();
    await expect(attempt.promise).resolves.toBe('done');
  });

  it('in any order of joins, aborts and the end: the work is aborted only when nobody waits on', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('join' as const), withSignal: fc.boolean() }),
      fc.record({ kind: fc.constant('abort' as const), which: fc.nat(9) }),
      fc.constant({ kind: 'finish' as const }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const work = gatedWork();
        const attempt = new SharedAttempt(work.run);
        const callers: { controller?: AbortController; outcome: Promise<string> }[] = [];
        let finished = false;
        let patient = false;
        let wasAborted = false;
        for (const next of steps) {
          // Joining abandoned work is the owner's mistake (it starts anew instead): not done here.
          if (next.kind === 'join' && attempt.abandoned) continue;
          if (next.kind === 'join') {
            const controller = next.withSignal ? new AbortController() : undefined;
            patient ||= controller === undefined;
            const outcome = attempt.join(controller?.signal, gaveUp);
            outcome.catch(() => undefined);
            callers.push({ ...(controller ? { controller } : {}), outcome });
          } else if (next.kind === 'abort') {
            callers[next.which % Math.max(callers.length, 1)]?.controller?.abort('left');
          } else if (!work.aborted()) {
            finished = true;
            work.finish();
          }
          await Promise.resolve();
          const stillWaiting = callers.some(
            (caller) => caller.controller === undefined || !caller.controller.signal.aborted,
          );
          // Work aborted in this step: every caller had given up, and none without a signal came.
          if (work.aborted() && !wasAborted)
            expect(stillWaiting || patient || finished).toBe(false);
          wasAborted = work.aborted();
          expect(attempt.abandoned).toBe(wasAborted);
        }
        if (!work.aborted()) work.finish();
        for (const caller of callers) {
          const settled = await caller.outcome.then(
            (value) => value,
            (error: Error) => error.message,
          );
          // A caller without a signal always gets the work's outcome.
          if (caller.controller === undefined) expect(settled).toBe('done');
        }
      }),
      { numRuns: 300 },
    );
  });
});
