/**
 * `evaluate`: a prompt run end to end against a model — render, call the
 * model, run the tools it asks for, give it the results, repeat until it
 * answers, parse the answer. One loop for every provider; the provider is
 * an adapter (./adapter.ts).
 */
import { messageOf, PromptOutputError } from '../core/errors.js';
import { abortReason, withDeadline } from '../core/deadline.js';
import { parseOutput } from '../prompt/parse-output.js';
import type { Prompt } from '../prompt/prompt.js';
import type { RenderedPrompt } from '../prompt/rendered-prompt.js';
import { isObserved } from '../runtime/event-bus.js';
import { PromptExecuted, type TokenUsage } from '../runtime/events.js';
import type { Session } from '../runtime/session.js';
import { NEVER_ABORTED } from '../tools/invoke-tool.js';
import type { Approval } from '../tools/policy/approval.js';
import type { ToolResult } from '../tools/tool-result.js';
import type { ModelAdapter, ModelTurn } from './adapter.js';
import { EvaluateError, type EvaluateErrorCode } from './errors.js';
import { runToolCalls } from './run-tool-calls.js';
import { addUsage, NO_USAGE } from './usage.js';
import { checkOptions, checkReply } from './check-options.js';

/** Model calls an evaluation may make, unless `maxTurns` says otherwise. */
export const DEFAULT_MAX_TURNS = 10;

/** Tool calls one model reply may run, unless `maxToolCallsPerTurn` says otherwise. */
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 64;

/** Options of {@link evaluate}. */
export interface EvaluateOptions<M = unknown> {
  /** The model: `openaiChat(…)`, `openaiResponses(…)`, `anthropic(…)`, `aiSdk(…)` or your own. */
  readonly adapter: ModelAdapter<M>;
  /** Renders the prompt, runs the tools (rollback, the ratchet) and carries the events. */
  readonly session: Session;
  /**
   * Model calls at most, the repair turn included; the evaluation fails
   * with `evaluate-max-turns` when the model still asks for tools.
   * @default 10 (DEFAULT_MAX_TURNS)
   */
  readonly maxTurns?: number;
  /**
   * Tool calls of one model reply that run; the ones past it are not run
   * and come back as error results saying so (a reply asking for thousands
   * would run them all at once, each result up to a server's
   * `maxResultChars`, and send them all in the next request).
   * @default 64 (DEFAULT_MAX_TOOL_CALLS_PER_TURN)
   */
  readonly maxToolCallsPerTurn?: number;
  /**
   * When the evaluation must be over: a model call in flight is aborted at
   * it, a tool call gets it as its own deadline, and no turn starts after it.
   * Tool calls are cancelled (their signal aborts), not abandoned: a handler
   * that ignores its signal delays the end, so that its rollback still holds.
   * @default none
   */
  readonly deadline?: Date;
  /** Aborts the evaluation: the model call in flight, and cancels the tool calls (see `deadline`). */
  readonly signal?: AbortSignal;
  /**
   * Decides the tool calls a policy of the prompt asks about (a person, a
   * UI, another model); without it an `ask` denies, and the model reads the
   * denial. See docs/policies.md. @default none
   */
  readonly approval?: Approval;
}

/** A tool call the model asked for, and how it ended. */
export interface EvaluatedToolCall {
  /** The turn (1-based) whose reply asked for it. */
  readonly turn: number;
  /** The provider's id of the call. */
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them. */
  readonly input: unknown;
  readonly result: ToolResult;
}

/** What {@link evaluate} returns. */
export interface EvaluateResult<O = unknown> {
  /** The answer parsed with the template's output schema; undefined when it declares none. */
  readonly output: O;
  /** The model's final answer as it wrote it. */
  readonly text: string;
  /** Model calls made, the repair turn included. */
  readonly turns: number;
  /** Every tool call, in the order asked for. */
  readonly toolCalls: readonly EvaluatedToolCall[];
  /** Tokens used, summed over the turns. */
  readonly usage: TokenUsage;
}

/**
 * Runs `prompt` against a model until it answers.
 *
 * Each turn renders the prompt again (so a changed tool list, a disabled
 * section or an isolation switch shows in the next turn, and
 * `PromptRendered` is published), calls the model, and runs the tools it
 * asked for concurrently through `invokeTool`: validation, per-call
 * rollback, the ratchet and `ToolInvoked` as everywhere else. Refused,
 * invalid and failed calls go back to the model as error results it can
 * act on. When the template declares an output, the answer is parsed with
 * it; an answer that does not parse gets one repair turn. `PromptExecuted`
 * is published with the answer.
 *
 * @throws EvaluateError — `evaluate-fatal-tool` after a `[FATAL] ` tool
 *   failure (its `ToolInvoked` published and its writes rolled back first),
 *   `evaluate-output`, `evaluate-deadline`, `evaluate-aborted`,
 *   `evaluate-max-turns`, `evaluate-model` (the adapter or provider failed),
 *   `evaluate-options`.
 * @throws PromptRenderError when a turn cannot render the prompt.
 * @example
 * const result = await evaluate(new Prompt(template), {
 *   adapter: openaiChat(new OpenAI(), 'gpt-4.1'),
 *   session,
 * });
 * console.log(result.output, result.usage.totalTokens);
 */
export async function evaluate<O, M = unknown>(
  prompt: Prompt<O>,
  options: EvaluateOptions<M>,
): Promise<EvaluateResult<O>> {
  checkOptions(prompt, options);
  return new Evaluation<O, M>(prompt, options).run();
}

class Evaluation<O, M> {
  readonly #prompt: Prompt<O>;
  readonly #options: EvaluateOptions<M>;
  readonly #adapter: ModelAdapter<M>;
  readonly #messages: M[] = [];
  readonly #toolCalls: EvaluatedToolCall[] = [];
  readonly #startedAt = performance.now();
  #turns = 0;
  #usage: TokenUsage = NO_USAGE;

  constructor(prompt: Prompt<O>, options: EvaluateOptions<M>) {
    this.#prompt = prompt;
    this.#options = options;
    this.#adapter = options.adapter;
  }

  async run(): Promise<EvaluateResult<O>> {
    const maxTurns = this.#options.maxTurns ?? DEFAULT_MAX_TURNS;
    const { session, signal, deadline } = this.#options;
    const { ns, key } = this.#prompt.template;
    let repaired = false;
    while (this.#turns < maxTurns) {
      this.#stopIfOver();
      const rendered = this.#prompt.render({ session });
      const reply = await this.#callModel(rendered);
      if (reply.toolCalls.length > 0) {
        const turn = this.#turns;
        const { outcomes, fatal } = await runToolCalls(reply.toolCalls, {
          session,
          prompt: rendered,
          promptKey: { ns, key },
          maxCalls: this.#options.maxToolCallsPerTurn ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN,
          signal: signal ?? NEVER_ABORTED,
          ...(deadline === undefined ? {} : { deadline }),
          ...(this.#options.approval === undefined ? {} : { approval: this.#options.approval }),
        });
        for (const { call, result } of outcomes) {
          this.#toolCalls.push({ turn, id: call.id, name: call.name, input: call.input, result });
        }
        if (fatal !== undefined) {
          throw this.#error(
            'evaluate-fatal-tool',
            `tool "${fatal.toolName}" failed fatally, so the evaluation stops: ${fatal.message}`,
            fatal,
          );
        }
        // Cancelled or out of time while the tools ran: say so, even on the last turn.
        this.#stopIfOver();
        this.#messages.push(
          ...this.#adapterCall('toolResults', () => this.#adapter.toolResults(outcomes)),
        );
        continue;
      }
      if (rendered.output === undefined) return this.#finish(reply.text, undefined as O);
      try {
        return this.#finish(reply.text, parseOutput(rendered, reply.text));
      } catch (error) {
        if (!(error instanceof PromptOutputError)) throw error;
        if (repaired || this.#turns >= maxTurns) {
          const why = repaired
            ? 'even after a repair turn'
            : `and maxTurns (${maxTurns}) left no turn to repair it`;
          throw this.#error(
            'evaluate-output',
            `the model's answer does not match the prompt's output, ${why}: ${error.message}`,
            error,
          );
        }
        repaired = true;
        const note = repairNote(error, rendered);
        this.#messages.push(
          this.#adapterCall('userMessage', () => this.#adapter.userMessage(note)),
        );
      }
    }
    throw this.#error(
      'evaluate-max-turns',
      `the model had not answered after ${maxTurns} turns (maxTurns); raise maxTurns or give it a smaller task`,
    );
  }

  /** One model call, aborted at the deadline or by the caller's signal even if the adapter ignores it. */
  async #callModel(rendered: RenderedPrompt): Promise<ModelTurn<M>> {
    const { signal, deadline } = this.#options;
    this.#turns += 1;
    const messages = Object.freeze([...this.#messages]);
    let reply: ModelTurn<M>;
    let timedOut = false;
    try {
      reply = await withDeadline(
        // async: an adapter that throws at once rejects like one that fails later.
        async (turnSignal) =>
          this.#adapter.generate({ prompt: rendered, messages, signal: turnSignal }),
        {
          timeoutMs: timeLeftMs(deadline),
          signal,
          onTimeout: () => {
            timedOut = true;
            return new Error(`the deadline ${deadline?.toISOString() ?? ''} passed`);
          },
        },
      );
    } catch (error) {
      this.#stopIfOver(error, timedOut);
      throw this.#error(
        'evaluate-model',
        `the model call of turn ${this.#turns} (adapter "${this.#adapter.name}") failed: ${messageOf(error)}`,
        error,
      );
    }
    checkReply(reply, this.#adapter.name, (message) => this.#error('evaluate-model', message));
    this.#usage = addUsage(this.#usage, reply.usage);
    this.#messages.push(...reply.messages);
    return reply;
  }

  /** @throws EvaluateError when the caller aborted or the deadline passed. */
  #stopIfOver(cause?: unknown, timedOut = false): void {
    const { signal, deadline } = this.#options;
    if (signal?.aborted === true) {
      const reason = abortReason(signal);
      throw this.#error(
        'evaluate-aborted',
        `the evaluation was aborted: ${reason.message}`,
        reason,
      );
    }
    if (deadline !== undefined && (timedOut || Date.now() >= deadline.getTime())) {
      throw this.#error(
        'evaluate-deadline',
        `the deadline ${deadline.toISOString()} passed after ${this.#turns} turn(s)`,
        cause,
      );
    }
  }

  #adapterCall<T>(method: string, call: () => T): T {
    try {
      return call();
    } catch (error) {
      throw this.#error(
        'evaluate-model',
        `adapter "${this.#adapter.name}" failed in ${method}: ${messageOf(error)}`,
        error,
      );
    }
  }

  #finish(text: string, output: O): EvaluateResult<O> {
    const { session } = this.#options;
    const { template } = this.#prompt;
    if (isObserved(session, PromptExecuted)) {
      session.dispatch(
        new PromptExecuted({
          ns: template.ns,
          key: template.key,
          ...(template.name === undefined ? {} : { name: template.name }),
          adapter: this.#adapter.name,
          turns: this.#turns,
          toolCalls: this.#toolCalls.length,
          usage: this.#usage,
          text,
          output,
          sessionId: session.sessionId,
          createdAt: new Date(),
          durationMs: performance.now() - this.#startedAt,
        }),
      );
    }
    return Object.freeze({
      output,
      text,
      turns: this.#turns,
      toolCalls: Object.freeze([...this.#toolCalls]),
      usage: this.#usage,
    });
  }

  #error(code: EvaluateErrorCode, message: string, cause?: unknown): EvaluateError {
    const progress = Object.freeze({
      turns: this.#turns,
      toolCalls: this.#toolCalls.length,
      usage: this.#usage,
    });
    return new EvaluateError(code, message, progress, cause === undefined ? undefined : { cause });
  }
}

/** What the model is told after an answer that does not parse. */
function repairNote(error: PromptOutputError, rendered: RenderedPrompt): string {
  return [
    `Your answer could not be used: ${error.message}.`,
    'Answer again with only a JSON value that matches this JSON Schema:',
    JSON.stringify(rendered.outputSchema),
  ].join('\n');
}

/** The longest wait `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

function timeLeftMs(deadline: Date | undefined): number {
  if (deadline === undefined) return MAX_TIMER_MS;
  return Math.min(MAX_TIMER_MS, Math.max(0, deadline.getTime() - Date.now()));
}
