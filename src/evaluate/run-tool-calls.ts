/**
 * One turn's tool calls, run together through `invokeTool`: each with its
 * own rollback, policies and the ratchet; a refused, invalid or unknown call
 * becomes an error result the model reads; a `[FATAL] ` failure cancels the
 * others and is reported once every call has settled.
 */
import { describeSent } from '../core/describe-sent.js';
import { McpFatalToolError, messageOf } from '../core/errors.js';
import { findTool, invokeByName, resultText } from '../ecosystem/tool-source.js';
import type { RenderedPrompt } from '../prompt/rendered-prompt.js';
import type { Session } from '../runtime/session.js';
import type { Approval } from '../tools/policy/approval.js';
import { ToolResult } from '../tools/tool-result.js';
import type { ModelToolCall, ToolCallOutcome } from './adapter.js';

/** Options of {@link runToolCalls}. */
export interface RunToolCallsOptions {
  readonly session: Session;
  /** The render the model saw this turn: its tools are the ones that may run. */
  readonly prompt: RenderedPrompt;
  /** Names the prompt in each call's `context.prompt`. */
  readonly promptKey: { readonly ns: string; readonly key: string };
  /** Calls that run; the ones past it come back not run. @default all */
  readonly maxCalls?: number;
  readonly signal: AbortSignal;
  readonly deadline?: Date;
  /** Decides the calls a policy of the prompt asks about. */
  readonly approval?: Approval;
}

/** How a turn's calls ended: every outcome, or the fatal failure that ends the evaluation. */
export interface ToolCallsResult {
  readonly outcomes: readonly ToolCallOutcome[];
  /** The first `[FATAL] ` failure, if any. */
  readonly fatal: McpFatalToolError | undefined;
}

/**
 * Runs `calls` concurrently and returns their outcomes in call order. When
 * one fails with `[FATAL] `, the others are cancelled (their handlers'
 * signals abort, so their writes are rolled back unless they had already
 * succeeded) and the first fatal error is returned after every call settled.
 */
export async function runToolCalls(
  calls: readonly ModelToolCall[],
  options: RunToolCallsOptions,
): Promise<ToolCallsResult> {
  const { prompt } = options;
  const turn = new AbortController();
  const signal = AbortSignal.any([options.signal, turn.signal]);
  let fatal: McpFatalToolError | undefined;
  const settled = await Promise.allSettled(
    calls.map(async (call, index): Promise<ToolCallOutcome> => {
      const result = await runOne(call, options, signal, index).catch((error: unknown) => {
        // Anything else thrown is a fault of the run: the others stop, and it is rethrown once they settled.
        // The fatal call's message is the server's text: the others' results (and traces)
        // name the call, and its own result carries the message.
        const reason =
          error instanceof McpFatalToolError
            ? `another tool call of this turn (${call.name}) failed fatally`
            : `another tool call of this turn threw: ${messageOf(error)}`;
        turn.abort(new Error(reason));
        if (!(error instanceof McpFatalToolError)) throw error;
        fatal ??= error;
        return ToolResult.error(`${error.toolName} failed fatally: ${error.message}`);
      });
      return { call, result, text: resultText(findTool(prompt, call.name), result), prompt };
    }),
  );
  const outcomes: ToolCallOutcome[] = [];
  for (const outcome of settled) {
    if (outcome.status === 'rejected') throw outcome.reason;
    outcomes.push(outcome.value);
  }
  return { outcomes, fatal };
}

function runOne(
  call: ModelToolCall,
  options: RunToolCallsOptions,
  signal: AbortSignal,
  index: number,
): Promise<ToolResult> {
  if (options.maxCalls !== undefined && index >= options.maxCalls) {
    return Promise.resolve(
      ToolResult.error(
        `tool ${describeSent(call.name)} was not run: a turn runs at most ${options.maxCalls} tool calls (maxToolCallsPerTurn); ask for it again in a later turn`,
      ),
    );
  }
  if (call.error !== undefined) return Promise.resolve(ToolResult.error(call.error));
  return invokeByName(options.prompt, call.name, call.input, {
    session: options.session,
    signal,
    prompt: options.promptKey,
    ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    ...(options.approval === undefined ? {} : { approval: options.approval }),
  });
}
