import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { describeSent } from '../core/describe-sent.js';
import { boundedQuote, FATAL_PREFIX, McpFatalToolError, messageOf } from '../core/errors.js';
import { sliceSafe } from '../core/well-formed.js';
import { isObserved } from '../runtime/event-bus.js';
import { RollbackConflict, ToolInvoked } from '../runtime/events.js';
import type { ResourceRegistry } from '../runtime/resources.js';
import type { Session } from '../runtime/session.js';
import { cancellationMessage, notStartedMessage } from './cancellation.js';
import { eventViewOf } from './event-view.js';
import type { Approval } from './policy/approval.js';
import { denialOf, runWithPolicies } from './policy/run-policies.js';
import type { ToolPolicy } from './policy/tool-policy.js';
import { isTool, shownOriginalName, type Tool } from './tool.js';
import type { ToolContext } from './tool-context.js';
import { ToolResult } from './tool-result.js';

/** Options of {@link invokeTool}. */
export interface InvokeToolOptions {
  readonly session: Session;
  /** Cancels the call; it reaches the handler as `context.signal`. */
  readonly signal?: AbortSignal;
  /** @default session.resources */
  readonly resources?: ResourceRegistry;
  readonly prompt?: { readonly ns: string; readonly key: string };
  /**
   * When the call must be over: a call that would start after it is refused
   * (the handler is not called), and the handler's `context.signal` aborts
   * at it. It reaches the handler as `context.deadline`.
   */
  readonly deadline?: Date;
  /**
   * Checked in order after the arguments are valid and before the handler
   * runs; any `deny` refuses the call (see docs/policies.md). A rendered
   * prompt knows each tool's (`rendered.policiesFor(name)`), and the
   * provider helpers pass them on. @default none
   */
  readonly policies?: readonly ToolPolicy[];
  /** Decides the calls a policy asks about; without it an `ask` denies. @default none */
  readonly approval?: Approval;
}

/**
 * @internal The `context.signal` of calls made without a signal. It never
 * aborts, so code passing a signal on (e.g. to the SDK) may leave it out.
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/**
 * Runs a tool the one safe way:
 * 1. parse `rawArgs` with the tool's schema — on failure, an error result
 *    naming each bad field, and the handler is not called;
 * 2. open a call scope: every slice write the handler makes (directly, in
 *    reducers, in work it awaits) is recorded as the call's own (a bridged
 *    MCP call that can write nothing, with no policies, needs none);
 * 3. check `options.policies` (docs/policies.md): a denial, or an `ask`
 *    the approval handler does not approve, is an error result naming the
 *    policy and the reason, and the handler is not called;
 * 4. run the handler with the caller's `signal` (then, after a success,
 *    each policy's `onResult`);
 * 5. on `success: false` or a throw, undo exactly the call's own writes,
 *    keeping what concurrent calls and application code wrote meanwhile
 *    (where a later write touched the same place, it wins and a
 *    `RollbackConflict` says so); a throw becomes an error result;
 * 6. publish `ToolInvoked` — always, whatever the outcome (it is built
 *    only when a reducer or a subscriber would see it), with `denial` set
 *    when a policy refused the call;
 * 7. return the result.
 *
 * @throws McpFatalToolError when the tool failed with a message that
 *   starts with `[FATAL] ` (after rollback and after `ToolInvoked`): the
 *   only failure of a tool that is thrown, every other is an error result.
 * @throws TypeError when the caller passed no `Session` as `options.session`
 *   or a `tool` that is not a `Tool`: a programming error, reported before
 *   anything runs (no handler, no event).
 */
export async function invokeTool<S extends z.ZodType, R>(
  tool: Tool<S, R>,
  rawArgs: unknown,
  options: InvokeToolOptions,
): Promise<ToolResult<R | null>> {
  // Checked by shape, not by class: a second copy of this package makes Tools and Sessions too.
  if (!isTool(tool)) {
    throw new TypeError(
      `invokeTool(tool, rawArgs, options): tool must be a Tool (made by Tool.create), received ${describeSent(tool)}`,
    );
  }
  const session = (options as InvokeToolOptions | undefined)?.session as Session;
  if (typeof (session as Partial<Session> | undefined)?.beginCall !== 'function') {
    throw new TypeError(
      `invokeTool(tool, rawArgs, options): options.session must be a Session, received ${describeSent(session)}`,
    );
  }
  if (options.deadline !== undefined || options.signal !== undefined) checkCallLimits(options);
  // One clock read: the wall-clock start is worked out only for an event (below).
  const startedAt = performance.now();
  const callId = nextCallId();

  // Most schemas parse synchronously: awaiting a plain value would still cost a turn.
  const parsing = parseArguments(tool, rawArgs);
  const parsed = parsing instanceof Promise ? await parsing : parsing;
  let params: unknown = rawArgs;
  let result: ToolResult<R | null>;
  let fatal: McpFatalToolError | undefined;

  const { deadline, policies } = options;
  if (!parsed.success) {
    result = ToolResult.error(parsed.message);
  } else if (deadline !== undefined && deadline.getTime() <= Date.now()) {
    result = ToolResult.error(
      `tool "${tool.name}" was not started: its deadline ${deadline.toISOString()} had passed`,
    );
  } else if (options.signal?.aborted === true) {
    // Cancelled while its arguments were parsed, or before it was asked for (a [FATAL] sibling).
    result = ToolResult.error(notStartedMessage(tool.name, options.signal));
  } else {
    params = parsed.data;
    // A call that can write nothing of its own needs no scope (see ToolOptions.writesInCall).
    const hasPolicies = policies !== undefined && policies.length > 0;
    const scope =
      hasPolicies || tool.writesInCall()
        ? session.beginCall({ callId, toolName: tool.name })
        : undefined;
    const timer = deadline === undefined ? undefined : deadlineSignal(deadline, options.signal);
    const signal = timer?.signal ?? options.signal ?? NEVER_ABORTED;
    const base = { session, signal, resources: options.resources ?? session.resources, callId };
    const context: ToolContext =
      options.prompt === undefined && deadline === undefined
        ? base
        : {
            ...base,
            ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
            ...(deadline === undefined ? {} : { deadline }),
          };
    const handle = (): ToolResult<R> | Promise<ToolResult<R | null>> =>
      hasPolicies
        ? runWithPolicies(tool, parsed.data, context, policies, options.approval)
        : tool.handler(parsed.data, context);
    try {
      result = await (scope === undefined ? handle() : scope.run(handle));
      if (!ToolResult.is(result)) result = asToolResult(result, tool.name);
    } catch (error) {
      if (error instanceof McpFatalToolError) fatal = error;
      result = ToolResult.error(errorMessage(error, signal));
    } finally {
      timer?.clear();
    }
    if (result.success) {
      scope?.commit();
    } else if (scope !== undefined) {
      const conflicts = scope.rollback();
      if (conflicts.length > 0) {
        session.dispatch(
          new RollbackConflict({
            toolName: tool.name,
            callId,
            sessionId: session.sessionId,
            conflicts,
            createdAt: new Date(),
          }),
        );
      }
    }
  }

  if (!result.success && fatal === undefined && result.message.startsWith(FATAL_PREFIX)) {
    fatal = new McpFatalToolError(tool.name, result.message.slice(FATAL_PREFIX.length));
  }

  // Built only for someone to see it: a reducer, a subscriber, a store mirroring events.
  if (isObserved(session, ToolInvoked)) {
    const origin = tool.origin;
    const denial = policies === undefined ? undefined : denialOf(result);
    // The wall-clock start is worked out from the end, so that a call nobody
    // observes reads no wall clock (with cold caches, as between two tool calls
    // of an agent, `Date.now()` costs microseconds). A step of the wall clock
    // during the call moves the start with it, as it moves its other events' dates.
    const durationMs = performance.now() - startedAt;
    // Read before the masking below, which takes time of its own.
    const createdAt = new Date(Date.now() - durationMs);
    const mask = tool.maskInEvents;
    session.dispatch(
      new ToolInvoked({
        toolName: tool.name,
        params: mask === undefined ? params : mask(params),
        result:
          eventViewOf(result) ??
          (mask === undefined ? result : (mask(result) as ToolResult<R | null>)),
        source: origin.kind,
        ...(origin.kind === 'mcp'
          ? { mcpServer: origin.server, originalName: shownOriginalName(origin) }
          : {}),
        ...(denial === undefined ? {} : { denial }),
        callId,
        sessionId: session.sessionId,
        createdAt,
        durationMs,
      }),
    );
  }

  if (fatal !== undefined) throw fatal;
  return result;
}

/**
 * What a handler returned that is not this copy's `ToolResult`: another
 * copy of the package's (the same shape, rebuilt here), or an error result
 * naming what it was.
 */
function asToolResult<R>(returned: unknown, toolName: string): ToolResult<R | null> {
  const shape = returned as Partial<ToolResult<R>> | null | undefined;
  if (
    typeof shape?.success === 'boolean' &&
    typeof shape.message === 'string' &&
    'value' in shape &&
    Object.isFrozen(shape)
  ) {
    const value = shape.value;
    return shape.success
      ? ToolResult.ok(value, shape.message)
      : ToolResult.error(shape.message, value);
  }
  return ToolResult.error(
    `tool "${toolName}" returned ${describeValue(returned)}, not a ToolResult`,
  );
}

/**
 * Call ids are unique across processes (a random per-process prefix) and
 * cheap (a counter): a UUID per call cost about 6% of a bridged call. They
 * name calls in events and telemetry; they are not secrets.
 */
const CALL_ID_PREFIX = randomUUID();
let callCount = 0;

function nextCallId(): string {
  callCount += 1;
  return `${CALL_ID_PREFIX}-${callCount.toString(36)}`;
}

type ParsedArguments<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly message: string };

/** Schemas that met an async refinement or transform: parsed asynchronously from then on. */
const asyncSchemas = new WeakSet<z.ZodType>();

/**
 * Parses synchronously when the schema allows it (no promise to wait for);
 * a schema with async parts makes zod throw `$ZodAsyncError`, and it is then
 * parsed with `safeParseAsync`, now and on every later call. The first call
 * of such a schema runs its synchronous checks twice.
 */
function parseArguments<S extends z.ZodType>(
  tool: Tool<S, unknown>,
  rawArgs: unknown,
): ParsedArguments<z.output<S>> | Promise<ParsedArguments<z.output<S>>> {
  try {
    const direct = tool.directCheck;
    if (direct !== undefined) {
      const problems = direct(rawArgs);
      if (problems.length === 0) return { success: true, data: rawArgs as z.output<S> };
      return { success: false, message: describeIssues(tool.name, problems) };
    }
    const schema = tool.params;
    if (!asyncSchemas.has(schema)) return parsedResult(tool.name, schema.safeParse(rawArgs));
  } catch (error) {
    if (!(error instanceof z.core.$ZodAsyncError)) return invalidArguments(tool.name, error);
  }
  return parseAsynchronously(tool, rawArgs);
}

/** {@link parseArguments} for a schema with async parts, from now on. */
function parseAsynchronously<S extends z.ZodType>(
  tool: Tool<S, unknown>,
  rawArgs: unknown,
): ParsedArguments<z.output<S>> | Promise<ParsedArguments<z.output<S>>> {
  let schema: S;
  try {
    schema = tool.params; // read already, unless its factory threw zod's async error itself
  } catch (error) {
    return invalidArguments(tool.name, error);
  }
  asyncSchemas.add(schema);
  return schema.safeParseAsync(rawArgs).then(
    (parsed) => parsedResult(tool.name, parsed),
    (error: unknown) => invalidArguments(tool.name, error),
  );
}

function parsedResult<T>(toolName: string, parsed: z.ZodSafeParseResult<T>): ParsedArguments<T> {
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, message: describeIssues(toolName, parsed.error.issues) };
}

/** A transform or refinement that throws is a failure of the call, not of the caller. */
function invalidArguments(toolName: string, error: unknown): ParsedArguments<never> {
  return {
    success: false,
    message: `invalid arguments for tool "${toolName}": ${messageOf(error)}`,
  };
}

/**
 * Most problems an error result names: enough for a model to fix its
 * call, few enough that arguments with thousands of bad fields do not make
 * an error of megabytes (in the conversation, events and traces).
 */
const MAX_DESCRIBED_ISSUES = 20;

/**
 * Longest description of one problem: a key of a million characters is
 * repeated in its path and quoted again in its message (zod names every
 * unknown key in one issue), and the whole error is bounded too.
 */
const MAX_ISSUE_CHARS = 300;

function describeIssues(
  toolName: string,
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): string {
  const parts = issues.slice(0, MAX_DESCRIBED_ISSUES).map((issue) => {
    const path = issue.path.length === 0 ? '(arguments)' : issue.path.map(String).join('.');
    return cutIssue(`${path}: ${issue.message}`);
  });
  const more = issues.length - parts.length;
  const rest = more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '';
  return boundedQuote(`invalid arguments for tool "${toolName}": ${parts.join('; ')}${rest}`);
}

function cutIssue(text: string): string {
  if (text.length <= MAX_ISSUE_CHARS) return text;
  return `${sliceSafe(text, 0, MAX_ISSUE_CHARS)}… (${text.length - MAX_ISSUE_CHARS} more characters)`;
}

/** A signal that aborts at `deadline` (or when `caller` does), and the end of its timer. */
function deadlineSignal(
  deadline: Date,
  caller: AbortSignal | undefined,
): { readonly signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`its deadline ${deadline.toISOString()} passed`)),
    Math.max(0, deadline.getTime() - Date.now()),
  );
  const signal =
    caller === undefined ? controller.signal : AbortSignal.any([caller, controller.signal]);
  return { signal, clear: () => clearTimeout(timer) };
}

function errorMessage(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return cancellationMessage(signal);
  return messageOf(error); // never throws, whatever was thrown
}

function describeValue(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/**
 * A deadline that is not a valid `Date` (an epoch number, a string) failed
 * as an internal `TypeError`, and a signal that is not an `AbortSignal` as
 * a failure blamed on the tool's server.
 * @throws TypeError naming the option, what was received and what is expected.
 */
function checkCallLimits(options: InvokeToolOptions): void {
  const { deadline, signal } = options;
  if (deadline !== undefined && !(deadline instanceof Date && !Number.isNaN(deadline.getTime()))) {
    throw new TypeError(
      `invokeTool(tool, rawArgs, options): options.deadline must be a valid Date (new Date(Date.now() + ms)), received ${describeSent(deadline)}`,
    );
  }
  const listens = (signal as Partial<AbortSignal> | undefined)?.addEventListener;
  if (
    signal !== undefined &&
    (typeof signal.aborted !== 'boolean' || typeof listens !== 'function')
  ) {
    throw new TypeError(
      `invokeTool(tool, rawArgs, options): options.signal must be an AbortSignal, received ${describeSent(signal)}`,
    );
  }
}
