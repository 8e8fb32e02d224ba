import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MarkdownSection,
  McpFatalToolError,
  PolicyDecision,
  Prompt,
  PromptTemplate,
  Session,
  Tool,
  ToolInvoked,
  ToolResult,
  type ToolPolicy,
} from '../../src/index.js';
import { runToolCalls } from '../../src/evaluate/run-tool-calls.js';

interface Log {
  readonly lines: readonly string[];
}

/** Writes a line, then waits for `release` (or its signal) before answering. */
function waiting(name: string, release: Promise<void>): Tool {
  return Tool.create({
    name,
    description: `Writes a line and waits (${name})`,
    params: z.object({}),
    handler: async (_params, { session, signal }) => {
      session.slice<Log>('log').update((draft) => {
        draft.lines.push(name);
      });
      await Promise.race([
        release,
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
        ),
      ]);
      return ToolResult.ok(null, `${name} done`);
    },
  });
}

function setup(tools: Tool[]): { session: Session; log: () => readonly string[]; prompt: Prompt } {
  const session = new Session();
  const log = session.slice<Log>('log', { initial: { lines: [] } });
  const template = PromptTemplate.create({
    ns: 'run',
    key: 'calls',
    sections: [new MarkdownSection({ key: 'tools', title: 'Tools', template: 'Use them.', tools })],
  });
  return { session, log: () => log.get().lines, prompt: new Prompt(template) };
}

describe('runToolCalls', () => {
  it('runs the calls together and returns the outcomes in call order', async () => {
    let release = (): void => undefined;
    const slowDone = new Promise<void>((resolve) => (release = resolve));
    const fast = Tool.create({
      name: 'fast',
      description: 'Answers at once, then lets slow finish',
      params: z.object({}),
      handler: () => {
        release();
        return ToolResult.ok({ n: 1 });
      },
    });
    const { session, prompt } = setup([waiting('slow', slowDone), fast]);
    const rendered = prompt.render({ session });
    const { outcomes, fatal } = await runToolCalls(
      [
        { id: 'a', name: 'slow', input: {} },
        { id: 'b', name: 'fast', input: {} },
        { id: 'c', name: 'missing', input: {} },
      ],
      {
        session,
        prompt: rendered,
        promptKey: { ns: 'run', key: 'calls' },
        signal: new AbortController().signal,
      },
    );
    expect(fatal).toBeUndefined();
    expect(outcomes.map((o) => [o.call.id, o.result.success, o.text])).toEqual([
      ['a', true, 'slow done'],
      ['b', true, '{"n":1}'],
      ['c', false, 'unknown tool "missing"; available tools: slow, fast'],
    ]);
    expect(outcomes[0]?.prompt).toBe(rendered);
  });

  it('on a fatal failure, cancels the other calls (their writes rolled back) and reports it after all settled', async () => {
    const doom = Tool.create({
      name: 'doom',
      description: 'Fails fatally once the other call has written',
      params: z.object({}),
      handler: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return ToolResult.error('[FATAL] backend gone');
      },
    });
    const { session, prompt, log } = setup([waiting('writer', new Promise(() => undefined)), doom]);
    const invoked: string[] = [];
    session.bus.subscribe(ToolInvoked, (event) => invoked.push(event.toolName));

    const { outcomes, fatal } = await runToolCalls(
      [
        { id: 'w', name: 'writer', input: {} },
        { id: 'd', name: 'doom', input: {} },
      ],
      {
        session,
        prompt: prompt.render({ session }),
        promptKey: { ns: 'run', key: 'calls' },
        signal: new AbortController().signal,
      },
    );

    expect(fatal).toBeInstanceOf(McpFatalToolError);
    expect(fatal?.message).toBe('backend gone');
    expect(invoked.sort()).toEqual(['doom', 'writer']);
    expect(log()).toEqual([]);
    expect(outcomes.map((o) => o.result.message)).toEqual([
      'cancelled: another tool call of this turn (doom) failed fatally',
      'doom failed fatally: backend gone',
    ]);
  });

  it('does not start a call whose policy was still deciding when a sibling failed fatally', async () => {
    const doom = Tool.create({
      name: 'doom',
      description: 'Fails fatally at once',
      params: z.object({}),
      handler: () => ToolResult.error('[FATAL] backend gone'),
    });
    const slowCheck: ToolPolicy = {
      name: 'slow-check',
      check: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return PolicyDecision.allow();
      },
    };
    const session = new Session();
    const log = session.slice<Log>('log', { initial: { lines: [] } });
    const template = PromptTemplate.create({
      ns: 'run',
      key: 'calls',
      sections: [
        new MarkdownSection({
          key: 'tools',
          title: 'Tools',
          template: 'Use them.',
          tools: [waiting('writer', Promise.resolve())],
          policies: [slowCheck],
        }),
        new MarkdownSection({
          key: 'backend',
          title: 'Backend',
          template: 'Use it.',
          tools: [doom],
        }),
      ],
    });
    const { outcomes, fatal } = await runToolCalls(
      [
        { id: 'w', name: 'writer', input: {} },
        { id: 'd', name: 'doom', input: {} },
      ],
      {
        session,
        prompt: new Prompt(template).render({ session }),
        promptKey: { ns: 'run', key: 'calls' },
        signal: new AbortController().signal,
      },
    );
    expect(fatal?.message).toBe('backend gone');
    expect(log.get().lines).toEqual([]);
    expect(outcomes[0]?.result.message).toBe(
      'tool "writer" was not started: cancelled: another tool call of this turn (doom) failed fatally',
    );
  });
});
