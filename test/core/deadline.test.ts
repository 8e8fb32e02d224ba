import { describe, expect, it, vi } from 'vitest';
import { abortReason, untilAborted, withDeadline } from '../../src/core/deadline.js';

const never = (): Promise<never> => new Promise<never>(() => undefined);

describe('withDeadline', () => {
  it('returns the answer, and leaves the inner signal alone after it', async () => {
    let inner: AbortSignal | undefined;
    const value = await withDeadline(
      (signal) => {
        inner = signal;
        return Promise.resolve(42);
      },
      { timeoutMs: 1_000, onTimeout: () => new Error('late') },
    );
    expect(value).toBe(42);
    expect(inner?.aborted).toBe(false);
  });

  it('rejects with what run throws before it returns a promise, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    try {
      const onTimeout = vi.fn(() => new Error('late'));
      await expect(
        withDeadline(
          () => {
            throw new Error('refused at once');
          },
          { timeoutMs: 1_000, onTimeout },
        ),
      ).rejects.toThrow('refused at once');
      expect(vi.getTimerCount()).toBe(0);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(onTimeout).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with the timeout error and aborts the inner signal with it', async () => {
    let inner: AbortSignal | undefined;
    const timeout = new Error('too slow');
    await expect(
      withDeadline(
        (signal) => {
          inner = signal;
          return never();
        },
        { timeoutMs: 10, onTimeout: () => timeout },
      ),
    ).rejects.toBe(timeout);
    expect(inner?.reason).toBe(timeout);
  });

  it("rejects with the caller's reason when the caller aborts, before or during", async () => {
    const before = new AbortController();
    before.abort(new Error('gone'));
    await expect(
      withDeadline(never, {
        timeoutMs: 1_000,
        signal: before.signal,
        onTimeout: () => new Error(),
      }),
    ).rejects.toThrow('gone');
    const during = new AbortController();
    const running = withDeadline(never, {
      timeoutMs: 1_000,
      signal: during.signal,
      onTimeout: () => new Error(),
    });
    during.abort('stop');
    await expect(running).rejects.toThrow('stop');
  });
});

describe('untilAborted and abortReason', () => {
  it('passes a result through, or the abort reason', async () => {
    await expect(untilAborted(Promise.resolve('ok'), new AbortController().signal)).resolves.toBe(
      'ok',
    );
    const controller = new AbortController();
    const waiting = untilAborted(never(), controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(Error);
    expect(abortReason(undefined).message).toBe('aborted');
  });
});

describe('an abort reason whose prototype cannot be read', () => {
  it('still ends the wait at once, as an Error', async () => {
    const controller = new AbortController();
    const unreadable = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('no prototype');
        },
      },
    );
    const waiting = withDeadline(() => new Promise<never>(() => undefined), {
      timeoutMs: 60_000,
      signal: controller.signal,
      onTimeout: () => new Error('timed out'),
    });
    controller.abort(unreadable);
    await expect(waiting).rejects.toThrow('aborted');
    expect(abortReason(controller.signal).message).toBe('aborted');
  });
});
