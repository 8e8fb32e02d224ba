/**
 * What a bridged call that threw becomes: an error result that names the
 * server and the tool, and an `McpToolTimedOut` event for a timeout. The
 * SDK's connection-closed error and JSON-RPC errors get wordings of their
 * own; the SDK's "MCP error -N: " prefixes are stripped.
 */
import { ErrorCode, McpError as RpcError } from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError, McpTimeoutError, messageOf } from '../core/errors.js';
import type { Session } from '../runtime/session.js';
import { cancellationReason } from '../tools/cancellation.js';
import { ToolResult } from '../tools/tool-result.js';
import { McpToolTimedOut } from './events.js';
import { sdkRefusedMessage, UNREADABLE_ANSWER } from './json-rpc-message.js';
import { lostAnswerReason } from './lost-answers.js';

/** Who the failed call was. */
export interface FailureContext {
  readonly session: Session;
  readonly serverName: string;
  readonly bridgedName: string;
  readonly original: string;
  readonly callId: string;
  readonly signal: AbortSignal;
}

/** Why the connection a call was lost with closed, by the call's error, when it said so. */
const lossReasons = new WeakMap<object, string>();

/** Notes why the connection closed under the call that failed with `error` (see {@link callFailure}). */
export function noteLossReason(error: unknown, reason: string | undefined): void {
  if (reason !== undefined && typeof error === 'object' && error !== null) {
    lossReasons.set(error, reason);
  }
}

/** Turns what a call threw into an error result (and an event for timeouts). */
export function callFailure(error: unknown, context: FailureContext): ToolResult<null> {
  const { session, serverName, original } = context;
  if (error instanceof McpTimeoutError) {
    // A record of the timeout: the failed call's rollback keeps it.
    const event = new McpToolTimedOut({
      sessionId: session.sessionId,
      serverName,
      toolName: context.bridgedName,
      originalName: original,
      callId: context.callId,
      timeoutMs: error.timeoutMs,
      createdAt: new Date(),
    });
    session.dispatchOutsideCalls(event);
    return ToolResult.error(error.message);
  }
  if (context.signal.aborted) {
    const why = cancellationReason(context.signal);
    return ToolResult.error(`tool "${original}" of server "${serverName}" was cancelled: ${why}`);
  }
  if (error instanceof McpConnectionError) return ToolResult.error(error.message);
  if (
    error instanceof RpcError &&
    error.code === Number(ErrorCode.ConnectionClosed) &&
    stripRpcPrefix(error.message) === 'Connection closed'
  ) {
    // The SDK's own error for a connection that went away: no answer, so no refusal.
    // (Servers may use -32000 for errors of their own; those keep the wording below.)
    const why = lossReasons.get(error) ?? lostAnswerReason(error.data);
    return ToolResult.error(
      `tool "${original}" of server "${serverName}" lost its connection: ${stripRpcPrefix(error.message)}${why === undefined ? '' : ` (${why})`}`,
    );
  }
  if (error instanceof RpcError && error.data === UNREADABLE_ANSWER) {
    // Not the server's refusal: an answer the client could not read.
    return ToolResult.error(
      `tool "${original}" of server "${serverName}" failed: ${stripRpcPrefix(error.message)}`,
    );
  }
  if (error instanceof RpcError) {
    return ToolResult.error(
      `server "${serverName}" refused tool "${original}" (JSON-RPC error ${error.code}): ${stripRpcPrefix(error.message)}`,
    );
  }
  const message = sdkRefusedMessage(error) ?? messageOf(error);
  return ToolResult.error(`tool "${original}" of server "${serverName}" failed: ${message}`);
}

function stripRpcPrefix(message: string): string {
  // A server built on the SDK puts the prefix in its own message, and the client adds it again.
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}
