/** The checks `evaluate` makes on what it is given and on what an adapter returns. */
import { Prompt } from '../prompt/prompt.js';
import { Session } from '../runtime/session.js';
import type { ModelTurn } from './adapter.js';
import { EvaluateError } from './errors.js';
import type { EvaluateOptions } from './evaluate.js';
import { NO_USAGE } from './usage.js';

/** @throws EvaluateError (`evaluate-options`) naming the bad value and what is expected. */
export function checkOptions(prompt: unknown, options: EvaluateOptions<unknown>): void {
  const fail = (message: string): never => {
    throw new EvaluateError('evaluate-options', message, {
      turns: 0,
      toolCalls: 0,
      usage: NO_USAGE,
    });
  };
  if (!(prompt instanceof Prompt)) {
    fail(`evaluate needs a Prompt (new Prompt(template)), received ${describe(prompt)}`);
  }
  const { adapter, session, maxTurns, maxToolCallsPerTurn, deadline, signal } = options;
  if (typeof adapter !== 'object' || adapter === null) {
    fail(
      `adapter must be a model adapter (e.g. openaiChat(client, model)), received ${describe(adapter)}`,
    );
  } else {
    for (const method of ['generate', 'toolResults', 'userMessage'] as const) {
      if (typeof adapter[method] !== 'function') {
        fail(
          `adapter ${JSON.stringify(adapter.name)} has no ${method}() method; a model adapter has generate, toolResults and userMessage`,
        );
      }
    }
    if (typeof adapter.name !== 'string' || adapter.name === '') {
      fail(`adapter name must be a non-empty string, received ${describe(adapter.name)}`);
    }
  }
  if (!(session instanceof Session))
    fail(`session must be a Session, received ${describe(session)}`);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) {
    fail(`maxTurns must be a whole number of at least 1, received ${describe(maxTurns)}`);
  }
  if (
    maxToolCallsPerTurn !== undefined &&
    (!Number.isInteger(maxToolCallsPerTurn) || maxToolCallsPerTurn < 1)
  ) {
    fail(
      `maxToolCallsPerTurn must be a whole number of at least 1, received ${describe(maxToolCallsPerTurn)}`,
    );
  }
  if (deadline !== undefined && !(deadline instanceof Date && !Number.isNaN(deadline.getTime()))) {
    fail(`deadline must be a valid Date, received ${describe(deadline)}`);
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    fail(`signal must be an AbortSignal, received ${describe(signal)}`);
  }
}

/** @throws the error `fail` makes when `reply` is not a {@link ModelTurn}. */
export function checkReply(
  reply: unknown,
  adapterName: string,
  fail: (message: string) => Error,
): asserts reply is ModelTurn<unknown> {
  const problem = replyProblem(reply);
  if (problem !== undefined) {
    throw fail(`adapter "${adapterName}" returned a reply that ${problem}`);
  }
}

function replyProblem(reply: unknown): string | undefined {
  if (typeof reply !== 'object' || reply === null) return `is ${describe(reply)}, not an object`;
  const { messages, text, toolCalls } = reply as Partial<ModelTurn<unknown>>;
  if (!Array.isArray(messages)) return `has no messages array (received ${describe(messages)})`;
  if (typeof text !== 'string') return `has no text string (received ${describe(text)})`;
  if (!Array.isArray(toolCalls)) return `has no toolCalls array (received ${describe(toolCalls)})`;
  const index = toolCalls.findIndex(
    (call: unknown) =>
      typeof call !== 'object' ||
      call === null ||
      typeof (call as { id?: unknown }).id !== 'string' ||
      typeof (call as { name?: unknown }).name !== 'string',
  );
  if (index >= 0) return `has a tool call without a string id and name at toolCalls[${index}]`;
  return undefined;
}

/** A value as an error message shows it: its type, and its text when short and harmless. */
function describe(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`;
    case 'undefined':
      return 'undefined';
    case 'object':
      if (value === null) return 'null';
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : 'a Date';
      if (Array.isArray(value)) return 'an array';
      return `an object (${(value.constructor as { name?: string } | undefined)?.name ?? 'no prototype'})`;
    default:
      return `a ${typeof value}`;
  }
}
