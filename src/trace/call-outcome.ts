/**
 * How a recorded tool call ended, as the viewer shows it. A `ToolInvoked`
 * says only success or failure; the kind of failure comes from the events
 * around it and from the library's own refusal messages.
 */

/** What happened to a call. */
export type CallOutcome =
  /** The call returned a successful result. */
  | 'success'
  /**
   * It never reached its handler or server: bad arguments, a policy's
   * denial, a blocked tool, a passed deadline.
   */
  | 'refused'
  /** It ran and failed; its slice writes were undone. */
  | 'rolled-back'
  /** It ran past its server's timeout and was cancelled (`McpToolTimedOut`). */
  | 'timed-out';

/** Every outcome, in the order the viewer lists them. */
export const CALL_OUTCOMES: readonly CallOutcome[] = Object.freeze([
  'success',
  'refused',
  'rolled-back',
  'timed-out',
]);

/**
 * The messages of results made before the handler or the server is
 * reached (see `invokeTool`, `callRefusal` and the bridged tools' store
 * checks).
 */
const REFUSALS: readonly RegExp[] = [
  /^invalid arguments for tool "/,
  /^tool "[^"]*" was not started: /,
  /^tool "[^"]*" is blocked: /,
  /^tool "[^"]*" of server "[^"]*" was not called: /,
];

/**
 * The outcome of a call from its result, whether a timeout event names it,
 * and whether `ToolInvoked` carries a policy's `denial`.
 */
export function callOutcome(
  success: boolean,
  message: string,
  timedOut: boolean,
  denied = false,
): CallOutcome {
  if (success) return 'success';
  if (timedOut) return 'timed-out';
  if (denied) return 'refused';
  return REFUSALS.some((pattern) => pattern.test(message)) ? 'refused' : 'rolled-back';
}
