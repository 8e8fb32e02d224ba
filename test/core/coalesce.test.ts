import { describe, expect, it } from 'vitest';
import { coalesce } from '../../src/core/coalesce.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('coalesce', () => {
  it('never runs twice at once, and runs once more for any requests made meanwhile', async () => {
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const request = coalesce(async () => {
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await gates[runs]?.promise;
      runs += 1;
      running -= 1;
    });
    request();
    request();
    request();
    request();
    gates[0]?.resolve();
    gates[1]?.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
    // Idle again: the next request starts a new round at once.
    request();
    gates[2]?.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runs).toBe(3);
  });

  it('ends a round when the task throws, and keeps working afterwards', async () => {
    let calls = 0;
    const request = coalesce(() => {
      calls += 1;
      return calls === 1 ? Promise.reject(new Error('boom')) : Promise.resolve();
    });
    request();
    await new Promise((resolve) => setTimeout(resolve, 5));
    request();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(calls).toBe(2);
  });
});
