/**
 * The approval handler behind a policy's `ask`: what it is shown (secrets
 * masked), what its answers mean, and every way of not answering — no
 * handler, a timeout, a cancelled call, a failing handler — denies.
 * Timeouts run on fake timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  PolicyDecision,
  Session,
  Tool,
  ToolResult,
  invokeTool,
  type Approval,
  type ApprovalRequest,
  type ApprovalVerdict,
  type ToolPolicy,
} from '../../../src/index.js';

const ASKS: ToolPolicy = { name: 'asks', check: () => PolicyDecision.ask('sends money') };

function payTool(runs: unknown[]): Tool {
  return Tool.create({
    name: 'pay',
    description: 'Pays an invoice',
    params: z.object({ invoice: z.string(), apiKey: z.string(), note: z.string().optional() }),
    handler: (params) => {
      runs.push(params);
      return ToolResult.ok('paid');
    },
  });
}

interface Call {
  readonly runs: unknown[];
  readonly result: Promise<ToolResult>;
  /** True once `result` settled. */
  settled(): boolean;
}

function call(approval: Approval | undefined, signal?: AbortSignal, deadline?: Date): Call {
  const runs: unknown[] = [];
  let done = false;
  const result = invokeTool(
    payTool(runs),
    { invoice: 'inv-7', apiKey: 'sk-live-123456' },
    {
      session: new Session({ sessionId: 's-approval' }),
      policies: [ASKS],
      ...(approval === undefined ? {} : { approval }),
      ...(signal === undefined ? {} : { signal }),
      ...(deadline === undefined ? {} : { deadline }),
    },
  ).finally(() => {
    done = true;
  });
  return { runs, result, settled: () => done };
}

/** A handler that records its request and never answers. */
function silent(
  requests: ApprovalRequest[],
): (request: ApprovalRequest) => Promise<ApprovalVerdict> {
  return (request) => {
    requests.push(request);
    return new Promise<ApprovalVerdict>(() => undefined);
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('approval', () => {
  it('shows the handler the call with secret arguments masked', async () => {
    const requests: ApprovalRequest[] = [];
    const { result, runs } = call((request) => {
      requests.push(request);
      return 'approve';
    });
    expect((await result).success).toBe(true);
    expect(runs).toEqual([{ invoice: 'inv-7', apiKey: 'sk-live-123456' }]);
    expect(requests).toHaveLength(1);
    const request = requests[0]!;
    expect(request).toMatchObject({
      toolName: 'pay',
      source: 'native',
      params: { invoice: 'inv-7', apiKey: '***' },
      reasons: [{ policy: 'asks', reason: 'sends money' }],
      reason: 'sends money',
      sessionId: 's-approval',
    });
    expect(request).not.toHaveProperty('mcpServer');
    expect(JSON.stringify(request)).not.toContain('sk-live');
    expect(Object.isFrozen(request)).toBe(true);
    expect(request.signal.aborted).toBe(false);
  });

  it.each<[string, ApprovalVerdict, string]>([
    ['deny', 'deny', 'approval was refused'],
    ['{ deny: reason }', { deny: '  not this month ' }, 'approval was refused: not this month'],
  ])('a %s answer denies the call', async (_label, verdict, reason) => {
    const { result, runs } = call(() => Promise.resolve(verdict));
    expect((await result).message).toBe(`tool "pay" was denied by policy "asks": ${reason}`);
    expect(runs).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    [
      'an unknown word',
      'yes',
      `the approval handler answered "yes"; expected 'approve', 'deny' or { deny: reason }`,
    ],
    [
      'an empty deny reason',
      { deny: ' ' },
      `the approval handler answered object; expected 'approve', 'deny' or { deny: reason }`,
    ],
    [
      'nothing',
      undefined,
      `the approval handler answered undefined; expected 'approve', 'deny' or { deny: reason }`,
    ],
  ])('an answer that is %s denies, saying what was expected', async (_label, verdict, reason) => {
    const { result, runs } = call(() => verdict as ApprovalVerdict);
    expect((await result).message).toBe(`tool "pay" was denied by policy "asks": ${reason}`);
    expect(runs).toEqual([]);
  });

  it('a handler that throws or rejects denies', async () => {
    const throwing = call(() => {
      throw new Error('approval service down');
    });
    expect((await throwing.result).message).toBe(
      'tool "pay" was denied by policy "asks": the approval handler failed: approval service down',
    );
    const rejecting = call(() => Promise.reject(new Error('queue closed')));
    expect((await rejecting.result).message).toBe(
      'tool "pay" was denied by policy "asks": the approval handler failed: queue closed',
    );
    expect([...throwing.runs, ...rejecting.runs]).toEqual([]);
  });

  it('without a handler an ask denies, saying how to give one', async () => {
    const { result, runs } = call(undefined);
    expect((await result).message).toBe(
      'tool "pay" was denied by policy "asks": approval is needed (sends money) but the call was made without an approval handler (the `approval` option)',
    );
    expect(runs).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    [
      'an object without handler',
      {},
      'approval must be a handler function or { handler, timeoutMs? }, received object',
    ],
    [
      'a zero timeout',
      { handler: () => 'approve', timeoutMs: 0 },
      'approval timeoutMs must be a positive number of milliseconds, received 0',
    ],
    [
      'an infinite timeout',
      { handler: () => 'approve', timeoutMs: Infinity },
      'approval timeoutMs must be a positive number of milliseconds, received Infinity',
    ],
  ])(
    'a malformed approval option (%s) denies, naming the value',
    async (_label, approval, reason) => {
      const { result, runs } = call(approval as Approval);
      expect((await result).message).toBe(`tool "pay" was denied by policy "asks": ${reason}`);
      expect(runs).toEqual([]);
    },
  );

  it('denies after the default timeout of five minutes, and aborts the request signal', async () => {
    vi.useFakeTimers();
    const requests: ApprovalRequest[] = [];
    const pending = call(silent(requests));
    await vi.advanceTimersByTimeAsync(DEFAULT_APPROVAL_TIMEOUT_MS - 1);
    expect(pending.settled()).toBe(false);
    expect(requests[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending.result).message).toBe(
      `tool "pay" was denied by policy "asks": no approval came within ${DEFAULT_APPROVAL_TIMEOUT_MS} ms`,
    );
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(pending.runs).toEqual([]);
  });

  it('takes its own timeout, and an answer after it changes nothing', async () => {
    vi.useFakeTimers();
    let answer: (verdict: ApprovalVerdict) => void = () => undefined;
    const pending = call({
      handler: () => new Promise<ApprovalVerdict>((resolve) => (answer = resolve)),
      timeoutMs: 2_000,
    });
    await vi.advanceTimersByTimeAsync(2_000);
    answer('approve');
    expect((await pending.result).message).toBe(
      'tool "pay" was denied by policy "asks": no approval came within 2000 ms',
    );
    expect(pending.runs).toEqual([]);
  });

  it('a call cancelled while waiting is denied at once, and the request signal aborts', async () => {
    const requests: ApprovalRequest[] = [];
    const controller = new AbortController();
    const pending = call(silent(requests), controller.signal);
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    controller.abort(new Error('user closed the tab'));
    expect((await pending.result).message).toBe(
      'tool "pay" was denied by policy "asks": the call was cancelled while waiting for approval: user closed the tab',
    );
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(pending.runs).toEqual([]);
  });

  it('a call cancelled before it asks is not started, and nobody is asked', async () => {
    const requests: ApprovalRequest[] = [];
    const controller = new AbortController();
    controller.abort('stop');
    const pending = call(silent(requests), controller.signal);
    expect((await pending.result).message).toBe('tool "pay" was not started: cancelled: stop');
    expect(requests).toEqual([]);
  });

  it('the call’s deadline ends the wait', async () => {
    vi.useFakeTimers();
    const requests: ApprovalRequest[] = [];
    const deadline = new Date(Date.now() + 1_000);
    const pending = call(silent(requests), undefined, deadline);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending.result).message).toBe(
      `tool "pay" was denied by policy "asks": the call was cancelled while waiting for approval: its deadline ${deadline.toISOString()} passed`,
    );
    expect(requests[0]!.signal.aborted).toBe(true);
  });
});
