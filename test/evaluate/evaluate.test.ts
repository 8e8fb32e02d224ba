/**
 * The loop itself, with a provider-free adapter written against the public
 * interface (as a user would for another provider); the four built-in
 * adapters run the shared scenarios in ./adapters/.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  EvaluateError,
  MarkdownSection,
  Prompt,
  PromptRendered,
  PromptTemplate,
  Session,
  Tool,
  ToolResult,
  evaluate,
  requireApproval,
  type ApprovalRequest,
  type ModelAdapter,
  type ModelRequest,
  type ModelTurn,
  type ToolContext,
} from '../../src/index.js';

/** A conversation message of the scripted adapter. */
type Line = { readonly role: 'model' | 'tool' | 'user'; readonly text: string };

/** An adapter whose replies come from `reply`; it records every request. */
function scripted(
  reply: (
    request: ModelRequest<Line>,
    turn: number,
  ) => Partial<ModelTurn<Line>> | Promise<Partial<ModelTurn<Line>>>,
): { adapter: ModelAdapter<Line>; requests: ModelRequest<Line>[] } {
  const requests: ModelRequest<Line>[] = [];
  const adapter: ModelAdapter<Line> = {
    name: 'scripted',
    async generate(request) {
      requests.push(request);
      const turn = await reply(request, requests.length);
      const text = turn.text ?? '';
      return { messages: [{ role: 'model', text }], text, toolCalls: [], ...turn };
    },
    toolResults: (outcomes) =>
      outcomes.map((o) => ({ role: 'tool', text: `${o.call.id}: ${o.text}` })),
    userMessage: (text) => ({ role: 'user', text }),
  };
  return { adapter, requests };
}

const contexts: ToolContext[] = [];
const ping = Tool.create({
  name: 'ping',
  description: 'Answers pong',
  params: z.object({}),
  handler: (_params, context) => {
    contexts.push(context);
    return ToolResult.ok({ pong: true });
  },
});

function promptWith(...sections: MarkdownSection[]): Prompt {
  return new Prompt(PromptTemplate.create({ ns: 'loop', key: 'test', sections }));
}

const task = new MarkdownSection({ key: 'task', title: 'Task', template: 'Ping.', tools: [ping] });

afterEach(() => {
  contexts.length = 0;
  vi.useRealTimers();
});

describe('evaluate', () => {
  it('renders again every turn: a section enabled by a tool call shows its tools in the next turn', async () => {
    const session = new Session();
    const unlocked = session.slice('unlocked', { initial: { on: false } });
    const unlock = Tool.create({
      name: 'unlock',
      description: 'Unlocks the admin tools',
      params: z.object({}),
      handler: (_params, { session: own }) => {
        own.slice<{ on: boolean }>('unlocked').update((draft) => {
          draft.on = true;
        });
        return ToolResult.ok(null, 'unlocked');
      },
    });
    const admin = new MarkdownSection({
      key: 'admin',
      title: 'Admin',
      template: 'Admin tools are open.',
      tools: [ping],
      enabled: (_params, context) =>
        context.session?.slice<{ on: boolean }>('unlocked').get().on === true,
    });
    const main = new MarkdownSection({
      key: 'task',
      title: 'Task',
      template: 'Unlock.',
      tools: [unlock],
    });
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1 ? { toolCalls: [{ id: 'u', name: 'unlock', input: {} }] } : { text: 'done' },
    );
    const rendered: string[] = [];
    session.bus.subscribe(PromptRendered, (event) => rendered.push(event.toolNames.join(',')));

    await evaluate(promptWith(main, admin), { adapter, session });

    expect(requests.map((request) => request.prompt.tools.map((tool) => tool.name))).toEqual([
      ['unlock'],
      ['unlock', 'ping'],
    ]);
    expect(requests[1]?.prompt.text).toContain('Admin tools are open.');
    expect(rendered).toEqual(['unlock', 'unlock,ping']);
    expect(unlocked.get().on).toBe(true);
  });

  it('keeps the conversation: each request carries the replies and results so far, frozen', async () => {
    const session = new Session();
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1
        ? { text: 'calling', toolCalls: [{ id: 'p1', name: 'ping', input: {} }] }
        : { text: 'pong' },
    );
    const result = await evaluate(promptWith(task), { adapter, session });

    expect(result).toMatchObject({ text: 'pong', turns: 2, output: undefined });
    expect(requests[0]?.messages).toEqual([]);
    expect(requests[1]?.messages).toEqual([
      { role: 'model', text: 'calling' },
      { role: 'tool', text: 'p1: {"pong":true}' },
    ]);
    expect(Object.isFrozen(requests[1]?.messages)).toBe(true);
    expect(Object.isFrozen(result)).toBe(true);
  });

  it('gives each tool call the prompt, the deadline and the caller signal', async () => {
    const session = new Session();
    const deadline = new Date(Date.now() + 60_000);
    const controller = new AbortController();
    const { adapter } = scripted((_request, turn) =>
      turn === 1 ? { toolCalls: [{ id: 'p', name: 'ping', input: {} }] } : { text: 'ok' },
    );
    await evaluate(promptWith(task), { adapter, session, deadline, signal: controller.signal });

    expect(contexts[0]?.prompt).toEqual({ ns: 'loop', key: 'test' });
    expect(contexts[0]?.deadline).toBe(deadline);
    controller.abort();
    expect(contexts[0]?.signal.aborted).toBe(true);
  });

  it('fails with evaluate-max-turns when the model never answers', async () => {
    const { adapter, requests } = scripted((_request, turn) => ({
      toolCalls: [{ id: `p${turn}`, name: 'ping', input: {} }],
    }));
    const error: unknown = await evaluate(promptWith(task), {
      adapter,
      session: new Session(),
      maxTurns: 3,
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(EvaluateError);
    expect(error).toMatchObject({
      code: 'evaluate-max-turns',
      message:
        'the model had not answered after 3 turns (maxTurns); raise maxTurns or give it a smaller task',
      progress: { turns: 3, toolCalls: 3 },
    });
    expect(requests).toHaveLength(3);
  });

  it('fails with evaluate-aborted, and calls no model, when the signal is already aborted', async () => {
    const { adapter, requests } = scripted(() => ({ text: 'never' }));
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const error: unknown = await evaluate(promptWith(task), {
      adapter,
      session: new Session(),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'evaluate-aborted',
      message: 'the evaluation was aborted: user left',
    });
    expect(requests).toEqual([]);
  });

  it('stops at the deadline even when the adapter ignores its signal', async () => {
    const session = new Session();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { adapter, requests } = scripted(() => new Promise<never>(() => undefined));
    const deadline = new Date(Date.now() + 1_000);
    const evaluation = evaluate(promptWith(task), { adapter, session, deadline }).catch(
      (e: unknown) => e,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await evaluation).toMatchObject({ code: 'evaluate-deadline' });
    expect(requests[0]?.signal.aborted).toBe(true);
  });

  it('stops when the caller aborts during a model call, even when the adapter ignores its signal', async () => {
    const controller = new AbortController();
    const { adapter, requests } = scripted(() => {
      controller.abort(new Error('user left'));
      return new Promise<never>(() => undefined);
    });
    const error: unknown = await evaluate(promptWith(task), {
      adapter,
      session: new Session(),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'evaluate-aborted',
      message: 'the evaluation was aborted: user left',
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.signal.aborted).toBe(true);
  });

  it("says aborted, not out of turns, when the caller aborts while the last turn's tools run", async () => {
    const controller = new AbortController();
    const stopper = Tool.create({
      name: 'stopper',
      description: 'Stops the run',
      params: z.object({}),
      handler: () => {
        controller.abort(new Error('user left'));
        return ToolResult.ok(null);
      },
    });
    const section = new MarkdownSection({
      key: 'task',
      title: 'Task',
      template: 'Stop.',
      tools: [stopper],
    });
    const { adapter } = scripted(() => ({
      toolCalls: [{ id: 'a', name: 'stopper', input: {} }],
    }));
    const error: unknown = await evaluate(promptWith(section), {
      adapter,
      session: new Session(),
      signal: controller.signal,
      maxTurns: 1,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'evaluate-aborted',
      message: 'the evaluation was aborted: user left',
    });
  });

  it('fails with evaluate-model naming what a malformed reply lacks', async () => {
    const broken: ModelAdapter<Line> = {
      ...scripted(() => ({})).adapter,
      generate: () => Promise.resolve({ messages: [], text: 'hi' } as unknown as ModelTurn<Line>),
    };
    await expect(
      evaluate(promptWith(task), { adapter: broken, session: new Session() }),
    ).rejects.toThrow(
      'adapter "scripted" returned a reply that has no toolCalls array (received undefined)',
    );
  });

  it('fails with evaluate-model when the adapter cannot format the results', async () => {
    const { adapter } = scripted(() => ({ toolCalls: [{ id: 'p', name: 'ping', input: {} }] }));
    const failing: ModelAdapter<Line> = {
      ...adapter,
      toolResults: () => {
        throw new Error('no format for that');
      },
    };
    const error: unknown = await evaluate(promptWith(task), {
      adapter: failing,
      session: new Session(),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'evaluate-model',
      message: 'adapter "scripted" failed in toolResults: no format for that',
      progress: { turns: 1, toolCalls: 1 },
    });
  });

  it('runs at most maxToolCallsPerTurn calls of one reply; the others come back not run', async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ id: `c${i}`, name: 'ping', input: {} }));
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1 ? { toolCalls: calls } : { text: 'ok' },
    );
    const result = await evaluate(promptWith(task), {
      adapter,
      session: new Session(),
      maxToolCallsPerTurn: 3,
    });
    expect(contexts).toHaveLength(3);
    expect(result.toolCalls.map((call) => call.result.success)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      text: 'c4: tool "ping" was not run: a turn runs at most 3 tool calls (maxToolCallsPerTurn); ask for it again in a later turn',
    });
  });

  it('answers a call the adapter could not read with its error, without running the tool', async () => {
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1
        ? {
            toolCalls: [
              { id: 'x', name: 'ping', input: undefined, error: 'arguments are not JSON' },
            ],
          }
        : { text: 'ok' },
    );
    const result = await evaluate(promptWith(task), { adapter, session: new Session() });
    expect(requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      text: 'x: arguments are not JSON',
    });
    expect(result.toolCalls[0]?.result.success).toBe(false);
    expect(contexts).toEqual([]);
  });

  it('fails with evaluate-output when maxTurns leaves no turn to repair the answer', async () => {
    const prompt = new Prompt(
      PromptTemplate.create({
        ns: 'loop',
        key: 'output',
        sections: [task],
        output: z.object({ n: z.number() }),
      }),
    );
    const { adapter } = scripted(() => ({ text: 'seven' }));
    const error: unknown = await evaluate(prompt, {
      adapter,
      session: new Session(),
      maxTurns: 1,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'evaluate-output', progress: { turns: 1 } });
    expect((error as Error).message).toMatch(
      /^the model's answer does not match the prompt's output, and maxTurns \(1\) left no turn to repair it: the answer is not JSON/,
    );
  });

  it('fails with evaluate-model when generate throws at once', async () => {
    const { adapter } = scripted(() => ({}));
    const throwing: ModelAdapter<Line> = {
      ...adapter,
      generate: () => {
        throw new Error('not configured');
      },
    };
    const deadline = new Date(Date.now() + 60_000);
    const error: unknown = await evaluate(promptWith(task), {
      adapter: throwing,
      session: new Session(),
      deadline,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'evaluate-model',
      message: 'the model call of turn 1 (adapter "scripted") failed: not configured',
    });
  });

  it('asks the approval handler about the calls a policy asks about: the approved call runs, the denied one reaches the model as a denial', async () => {
    const session = new Session();
    const sent: string[] = [];
    const transfer = Tool.create({
      name: 'transfer',
      description: 'Moves money',
      params: z.object({ to: z.string(), amount: z.number() }),
      handler: ({ to }) => {
        sent.push(to);
        return ToolResult.ok(null, `sent to ${to}`);
      },
    });
    const bank = new MarkdownSection({
      key: 'bank',
      title: 'Bank',
      template: 'Pay the bills.',
      tools: [transfer],
      policies: [requireApproval({ tools: ['transfer'], reason: 'money leaves the account' })],
    });
    const asked: ApprovalRequest[] = [];
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1
        ? {
            toolCalls: [
              { id: 't1', name: 'transfer', input: { to: 'landlord', amount: 900 } },
              { id: 't2', name: 'transfer', input: { to: 'stranger', amount: 5000 } },
            ],
          }
        : { text: 'done' },
    );
    const result = await evaluate(promptWith(bank), {
      adapter,
      session,
      approval: (request) => {
        asked.push(request);
        return (request.params as { to: string }).to === 'landlord'
          ? 'approve'
          : { deny: 'not a known payee' };
      },
    });
    expect(asked.map((request) => request.reason)).toEqual([
      'money leaves the account',
      'money leaves the account',
    ]);
    expect(sent).toEqual(['landlord']);
    expect(result.toolCalls.map((call) => [call.id, call.result.success])).toEqual([
      ['t1', true],
      ['t2', false],
    ]);
    expect(result.toolCalls[1]?.result.message).toContain('not a known payee');
    // The model's next request carries the denial as the call's result.
    const lines = requests[1]?.messages.map((line) => line.text) ?? [];
    expect(
      lines.some((text) => text.startsWith('t2: ') && text.includes('not a known payee')),
    ).toBe(true);
  });

  it('denies an asked call when no approval handler is given', async () => {
    const session = new Session();
    let ran = 0;
    const risky = Tool.create({
      name: 'risky',
      description: 'Does something that needs a yes',
      params: z.object({}),
      handler: () => {
        ran += 1;
        return ToolResult.ok(null, 'done');
      },
    });
    const section = new MarkdownSection({
      key: 'risk',
      title: 'Risk',
      template: 'Be careful.',
      tools: [risky],
      policies: [requireApproval({ tools: ['risky'] })],
    });
    const { adapter } = scripted((_request, turn) =>
      turn === 1 ? { toolCalls: [{ id: 'r', name: 'risky', input: {} }] } : { text: 'ok' },
    );
    const result = await evaluate(promptWith(section), { adapter, session });
    expect(ran).toBe(0);
    expect(result.toolCalls[0]?.result.success).toBe(false);
  });

  it('shows what the model opened with open_sections in the next turn (progressive disclosure)', async () => {
    const session = new Session();
    const summarized = new MarkdownSection({
      key: 'net',
      title: 'Network',
      template: 'Ping hosts.',
      summary: 'Tools to ping hosts.',
      visibility: 'summary',
      tools: [ping],
    });
    const { adapter, requests } = scripted((_request, turn) =>
      turn === 1
        ? {
            toolCalls: [
              { id: 'o', name: 'open_sections', input: { section_keys: ['net'], reason: 'ping' } },
            ],
          }
        : turn === 2
          ? { toolCalls: [{ id: 'p', name: 'ping', input: {} }] }
          : { text: 'pong' },
    );
    const result = await evaluate(promptWith(summarized), { adapter, session });
    const offered = requests.map((request) => request.prompt.tools.map((tool) => tool.name));
    expect(offered[0]).toEqual(['open_sections']);
    expect(offered[1]).toContain('ping');
    expect(result.toolCalls.map((call) => call.result.success)).toEqual([true, true]);
    expect(result.text).toBe('pong');
  });
});
