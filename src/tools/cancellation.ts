/**
 * How a cancelled call is described: the reason the caller's signal was
 * aborted with, for the result the model sees.
 */
import { messageOf } from '../core/errors.js';

/** `cancelled: <reason>` for an aborted `signal` (its reason's message, or `aborted`). */
export function cancellationMessage(signal: AbortSignal): string {
  return `cancelled: ${cancellationReason(signal)}`;
}

/** Why `signal` was aborted, in words: its reason's message, or `aborted`. Never throws. */
export function cancellationReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (isError(reason)) return messageOf(reason);
  return typeof reason === 'string' && reason.length > 0 ? reason : 'aborted';
}

/** The result text of a call that was cancelled before its handler started. */
export function notStartedMessage(toolName: string, signal: AbortSignal): string {
  return `tool "${toolName}" was not started: ${cancellationMessage(signal)}`;
}

/** `value instanceof Error`, false for a proxy whose prototype cannot be read. */
function isError(value: unknown): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}
