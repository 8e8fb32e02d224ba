/**
 * What every `evaluate` adapter must show, written once and run by each
 * adapter's test file against that provider's SDK (its client with a
 * scripted `fetch`, or `MockLanguageModelV3`): a driver turns a scripted
 * turn into the provider's response objects and reads back, from the
 * provider's request, what the model was shown. The agent is in
 * ./scenario-agent.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  EvaluateError,
  McpFatalToolError,
  PromptExecuted,
  PromptOutputError,
  PromptRendered,
  ToolInvoked,
  evaluate,
  type ModelAdapter,
} from '../../src/index.js';
import type { EventRecorder } from '../support/mcp-fixtures.js';
import { agent, disconnectAgents } from './scenario-agent.js';

export { agent } from './scenario-agent.js';

/** A tool call the scripted model makes: JSON arguments, or raw text as the model wrote it. */
export interface ScriptCall {
  readonly id: string;
  readonly name: string;
  readonly args?: Readonly<Record<string, unknown>>;
  /** Arguments text that is sent as is (providers whose model writes JSON text). */
  readonly rawArgs?: string;
}

/** One reply of the scripted model. */
export interface ScriptTurn {
  readonly text?: string;
  readonly calls?: readonly ScriptCall[];
  readonly usage?: { readonly input: number; readonly output: number };
}

/** A tool result as the provider's request carried it back to the model. */
export interface SeenResult {
  readonly id: string;
  readonly text: string;
  /** The provider's error flag; undefined for providers that have none (OpenAI). */
  readonly isError: boolean | undefined;
}

/** What a request showed the model, read from the provider's own format. */
export interface SeenRequest {
  /** The first user message: the rendered prompt. */
  readonly promptText: string;
  readonly toolNames: readonly string[];
  /** The results at the end of the conversation (the previous turn's calls). */
  readonly toolResults: readonly SeenResult[];
  /** A user message after the prompt, at the end of the conversation (the repair note). */
  readonly note: string | undefined;
  /** The structured-output schema the request asked for. */
  readonly outputSchema: unknown;
  /** The signal the provider's client handed down (fetch's, or the SDK's `abortSignal`). */
  readonly signal: AbortSignal | undefined;
}

/** Decides the model's reply to a request; `turn` is 1-based. */
export type Script = (request: SeenRequest, turn: number) => ScriptTurn | Promise<ScriptTurn>;

/** A scripted model behind a real adapter. */
export interface Harness {
  readonly adapter: ModelAdapter<unknown>;
  readonly requests: readonly SeenRequest[];
}

/** One provider, as the scenarios see it. */
export interface Driver {
  readonly name: string;
  /** Whether the provider marks a failed result (Anthropic `is_error`, AI SDK `error-text`). */
  readonly errorFlag: boolean;
  /** Whether the model writes arguments as JSON text (so they can be broken). */
  readonly rawArguments: boolean;
  start(script: Script): Harness;
}

/** A script that plays `turns` in order. */
export function inOrder(...turns: ScriptTurn[]): Script {
  return (_request, turn) => {
    const reply = turns[turn - 1];
    if (reply === undefined) throw new Error(`the script has no turn ${turn}`);
    return reply;
  };
}

/** Waits until `signal` aborts, then fails as `fetch` does. */
export function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal === undefined) return;
    signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), {
      once: true,
    });
  });
}

/** The names of the evaluation events, in order (ToolInvoked with its tool). */
function eventTrail(events: EventRecorder): string[] {
  return events.all.flatMap((event) => {
    if (event instanceof PromptRendered) return ['PromptRendered'];
    if (event instanceof ToolInvoked) return [`ToolInvoked ${event.toolName}`];
    if (event instanceof PromptExecuted) return ['PromptExecuted'];
    return [];
  });
}

/** Runs the shared scenarios against `driver`. */
export function adapterScenarios(driver: Driver): void {
  afterEach(async () => {
    vi.useRealTimers();
    await disconnectAgents();
  });

  describe(`${driver.name}: the shared evaluate scenarios`, () => {
    it('runs three turns: two calls in parallel, the failed one rolled back, the other kept', async () => {
      const { session, prompt, events, notes, maxInFlight } = await agent();
      const { adapter, requests } = driver.start(
        inOrder(
          {
            calls: [
              { id: 'call_1', name: 'add_note', args: { text: 'kept' } },
              { id: 'call_2', name: 'add_note', args: { text: 'dropped', outcome: 'error' } },
            ],
            usage: { input: 100, output: 10 },
          },
          {
            calls: [{ id: 'call_3', name: 'crm_lookup', args: { id: '42' } }],
            usage: { input: 200, output: 20 },
          },
          { text: 'Customer 42 is Ada; noted.', usage: { input: 300, output: 30 } },
        ),
      );

      const result = await evaluate(prompt, { adapter, session });

      expect(result.text).toBe('Customer 42 is Ada; noted.');
      expect(result.output).toBeUndefined();
      expect(result.turns).toBe(3);
      expect(result.toolCalls.map((call) => [call.turn, call.name, call.result.success])).toEqual([
        [1, 'add_note', true],
        [1, 'add_note', false],
        [2, 'crm_lookup', true],
      ]);
      expect(result.usage).toEqual({ inputTokens: 600, outputTokens: 60, totalTokens: 660 });
      expect(maxInFlight()).toBe(2);
      expect(notes()).toEqual(['kept']);
      expect(requests[1]?.toolResults).toEqual([
        { id: 'call_1', text: 'noted "kept"', isError: driver.errorFlag ? false : undefined },
        {
          id: 'call_2',
          text: 'could not save "dropped"',
          isError: driver.errorFlag ? true : undefined,
        },
      ]);
      expect(requests[2]?.toolResults).toEqual([
        { id: 'call_3', text: 'customer 42: Ada', isError: driver.errorFlag ? false : undefined },
      ]);
      expect(requests[0]?.promptText).toContain('## 1. Task (task)');
      expect(requests[0]?.toolNames).toEqual([
        'add_note',
        'crm_lookup',
        'crm_load_customer',
        'crm_post_webhook',
      ]);
      expect(eventTrail(events)).toEqual([
        'PromptRendered',
        'ToolInvoked add_note',
        'ToolInvoked add_note',
        'PromptRendered',
        'ToolInvoked crm_lookup',
        'PromptRendered',
        'PromptExecuted',
      ]);
      const [executed] = events.of(PromptExecuted);
      expect(executed).toMatchObject({
        ns: 'test',
        key: 'evaluate',
        adapter: adapter.name,
        turns: 3,
        toolCalls: 3,
        usage: result.usage,
        text: result.text,
        sessionId: session.sessionId,
      });
    });

    it('gives a refused network tool back to the model after escalation, and the model stops asking', async () => {
      const { session, prompt, events, crmCalls } = await agent();
      const { adapter, requests } = driver.start((request, turn) => {
        if (turn === 1)
          return { calls: [{ id: 'load', name: 'crm_load_customer', args: { id: '42' } }] };
        const refused = request.toolResults.find((seen) => /is blocked/.test(seen.text));
        // Asks again until the refusal reaches it: a lost refusal would loop to maxTurns.
        if (refused === undefined) {
          return {
            calls: [
              {
                id: `post_${turn}`,
                name: 'crm_post_webhook',
                args: { url: 'https://example.com', text: 'Ada' },
              },
            ],
          };
        }
        return { text: 'I cannot send the record out: that tool is blocked now.' };
      });

      const result = await evaluate(prompt, { adapter, session, maxTurns: 5 });

      expect(result.text).toBe('I cannot send the record out: that tool is blocked now.');
      expect(result.turns).toBe(3);
      expect(session.privateData.sensitivity).toBe('confidential');
      expect(crmCalls).toEqual(['load_customer']);
      const refusal = requests[2]?.toolResults[0];
      expect(refusal?.text).toMatch(/^tool "crm_post_webhook" is blocked/);
      expect(refusal?.isError).toBe(driver.errorFlag ? true : undefined);
      const invoked = events.of(ToolInvoked).map((event) => [event.toolName, event.result.success]);
      expect(invoked).toEqual([
        ['crm_load_customer', true],
        ['crm_post_webhook', false],
      ]);
    });

    it('ends with a typed error on a [FATAL] failure, after its ToolInvoked and its rollback', async () => {
      const { session, prompt, events, notes } = await agent();
      const { adapter, requests } = driver.start(
        inOrder({
          calls: [
            { id: 'fatal', name: 'add_note', args: { text: 'doomed', outcome: 'fatal' } },
            { id: 'other', name: 'crm_lookup', args: { id: '7' } },
          ],
        }),
      );

      const error: unknown = await evaluate(prompt, { adapter, session }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(EvaluateError);
      const { code, cause, progress } = error as EvaluateError;
      expect(code).toBe('evaluate-fatal-tool');
      expect(cause).toBeInstanceOf(McpFatalToolError);
      expect((cause as McpFatalToolError).message).toBe('the notes disk is gone');
      expect(progress).toMatchObject({ turns: 1, toolCalls: 2 });
      expect(requests).toHaveLength(1);
      expect(notes()).toEqual([]);
      const fatal = events.of(ToolInvoked).find((event) => event.toolName === 'add_note');
      expect(fatal?.result).toMatchObject({
        success: false,
        message: '[FATAL] the notes disk is gone',
      });
      expect(events.of(ToolInvoked)).toHaveLength(2);
      expect(events.of(PromptExecuted)).toEqual([]);
    });

    it('parses structured output, after one repair turn for an answer that does not match', async () => {
      const Answer = z.object({ customer: z.string(), score: z.number() });
      const { session, prompt, events } = await agent(Answer);
      const { adapter, requests } = driver.start(
        inOrder({ text: '{"customer":"Ada"}' }, { text: '{"customer":"Ada","score":3}' }),
      );

      const result = await evaluate(prompt, { adapter, session });

      expect(result.output).toEqual({ customer: 'Ada', score: 3 });
      expect(result.turns).toBe(2);
      const schema = prompt.render().outputSchema;
      expect(requests.map((request) => request.outputSchema)).toEqual([schema, schema]);
      expect(requests[1]?.note).toMatch(/^Your answer could not be used: .*answer\.score/);
      expect(events.of(PromptExecuted)[0]?.output).toEqual({ customer: 'Ada', score: 3 });
    });

    it('fails with evaluate-output when the repaired answer does not match either', async () => {
      const { session, prompt, events } = await agent(z.object({ score: z.number() }));
      const { adapter } = driver.start(inOrder({ text: 'three' }, { text: '{"score":"3"}' }));

      const error: unknown = await evaluate(prompt, { adapter, session }).catch((e: unknown) => e);

      expect(error).toMatchObject({ code: 'evaluate-output', progress: { turns: 2 } });
      expect((error as EvaluateError).cause).toBeInstanceOf(PromptOutputError);
      expect(events.of(PromptExecuted)).toEqual([]);
    });

    it('returns bad arguments to the model as an error result it corrects', async () => {
      const { session, prompt, notes } = await agent();
      const { adapter, requests } = driver.start((request, turn) => {
        if (turn === 1) {
          return {
            calls: [
              { id: 'bad', name: 'add_note', args: { text: 42 } },
              ...(driver.rawArguments
                ? [{ id: 'broken', name: 'add_note', rawArgs: '{"text":' }]
                : []),
            ],
          };
        }
        if (turn === 2)
          return { calls: [{ id: 'good', name: 'add_note', args: { text: 'fixed' } }] };
        return { text: request.toolResults[0]?.text ?? '' };
      });

      const result = await evaluate(prompt, { adapter, session });

      expect(result.text).toBe('noted "fixed"');
      expect(notes()).toEqual(['fixed']);
      const [invalid, broken] = requests[1]?.toolResults ?? [];
      expect(invalid?.text).toMatch(/^invalid arguments for tool "add_note": text: /);
      if (driver.rawArguments) {
        expect(broken?.text).toMatch(/^arguments of tool "add_note" are not valid JSON/);
      }
    });

    it('stops at the deadline: no tool starts after it and no turn follows', async () => {
      const { session, prompt, events, notes } = await agent();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const deadline = new Date(Date.now() + 5_000);
      const { adapter, requests } = driver.start(() => {
        vi.setSystemTime(deadline.getTime() + 1);
        return { calls: [{ id: 'late', name: 'add_note', args: { text: 'late' } }] };
      });

      const error: unknown = await evaluate(prompt, { adapter, session, deadline }).catch(
        (e: unknown) => e,
      );

      expect(error).toMatchObject({ code: 'evaluate-deadline', progress: { turns: 1 } });
      expect(requests).toHaveLength(1);
      expect(notes()).toEqual([]);
      expect(events.of(ToolInvoked)[0]?.result.message).toMatch(/was not started: its deadline/);
    });

    it('aborts a model call in flight at the deadline', async () => {
      const { session, prompt } = await agent();
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const deadline = new Date(Date.now() + 5_000);
      let called = (): void => undefined;
      const started = new Promise<void>((resolve) => (called = resolve));
      const { adapter, requests } = driver.start((request) => {
        called();
        return untilAborted(request.signal);
      });

      const evaluation = evaluate(prompt, { adapter, session, deadline }).catch((e: unknown) => e);
      await started;
      expect(requests[0]?.signal?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(5_000);

      expect(await evaluation).toMatchObject({ code: 'evaluate-deadline', progress: { turns: 1 } });
      expect(requests[0]?.signal?.aborted).toBe(true);
    });
  });
}
