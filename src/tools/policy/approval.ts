/**
 * Approval: where a policy's `ask` goes. The caller gives a handler (a
 * person behind a UI, another model, a rule engine); it sees the call with
 * secret arguments masked and answers approve or deny. No handler, no
 * answer in time, a cancelled call or a failing handler all deny.
 */
import { abortReason, withDeadline } from '../../core/deadline.js';
import { messageOf } from '../../core/errors.js';
import { maskSecretArguments } from '../secret-arguments.js';
import { type JsonSchema, shownOriginalName, type Tool } from '../tool.js';
import type { ToolContext } from '../tool-context.js';

/** How long a handler may take to answer before the call is denied: five minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** A handler's answer: approve, deny, or deny with a reason the model will read. */
export type ApprovalVerdict = 'approve' | 'deny' | { readonly deny: string };

/** A policy and what it said. */
export interface PolicyReason {
  readonly policy: string;
  readonly reason: string;
}

/** What an approval handler is asked about. */
export interface ApprovalRequest {
  /** The name the model called the tool by. */
  readonly toolName: string;
  readonly source: 'native' | 'mcp';
  /** For MCP tools: the server and the tool's name there. */
  readonly mcpServer?: string;
  readonly originalName?: string;
  /** The parsed arguments, with every secret argument's value replaced by `***`. */
  readonly params: unknown;
  /** Every policy that asked, in order, and why. */
  readonly reasons: readonly PolicyReason[];
  /** The reasons as one line. */
  readonly reason: string;
  readonly sessionId: string;
  /** As in `ToolInvoked.callId`. */
  readonly callId: string;
  /** Aborts when the answer is no longer wanted: the timeout passed or the call was cancelled. */
  readonly signal: AbortSignal;
}

/** Decides about a call a policy asked about. */
export type ApprovalHandler = (
  request: ApprovalRequest,
) => ApprovalVerdict | Promise<ApprovalVerdict>;

/** Options of an approval handler. */
export interface ApprovalOptions {
  readonly handler: ApprovalHandler;
  /** How long to wait for an answer before denying. @default DEFAULT_APPROVAL_TIMEOUT_MS (300 000) */
  readonly timeoutMs?: number;
}

/** The `approval` option of a call: a handler, or a handler and its timeout. */
export type Approval = ApprovalHandler | ApprovalOptions;

/**
 * @internal Asks `approval` about a call; resolves with `undefined` when it
 * is approved, else with why not. Never rejects.
 */
export function requestApproval(
  approval: Approval | undefined,
  tool: Tool,
  params: unknown,
  reasons: readonly PolicyReason[],
  context: ToolContext,
): Promise<string | undefined> {
  const reason = reasons.map((entry) => entry.reason).join('; ');
  const resolved = resolveApproval(approval, reason);
  if (typeof resolved === 'string') return Promise.resolve(resolved);
  const { handler, timeoutMs } = resolved;
  const callSignal = context.signal;
  if (callSignal.aborted) return Promise.resolve(cancelled(callSignal));

  const { origin } = tool;
  const requestWith = (signal: AbortSignal): ApprovalRequest =>
    Object.freeze({
      toolName: tool.name,
      source: origin.kind,
      ...(origin.kind === 'mcp'
        ? { mcpServer: origin.server, originalName: shownOriginalName(origin) }
        : {}),
      params: maskSecretArguments(params, schemaOf(tool)).masked,
      reasons: Object.freeze(reasons.map((entry) => Object.freeze({ ...entry }))),
      reason,
      sessionId: context.session.sessionId,
      callId: context.callId,
      signal,
    });
  let timedOut = false;
  // A handler that throws synchronously is a failing handler like one that rejects.
  return withDeadline(async (signal) => readVerdict(await handler(requestWith(signal))), {
    timeoutMs,
    signal: callSignal,
    onTimeout: () => {
      timedOut = true;
      return new Error(`no approval came within ${timeoutMs} ms`);
    },
  }).catch((error: unknown) => {
    if (timedOut) return messageOf(error);
    if (callSignal.aborted) return cancelled(callSignal);
    return `the approval handler failed: ${messageOf(error)}`;
  });
}

function resolveApproval(
  approval: Approval | undefined,
  reason: string,
): { readonly handler: ApprovalHandler; readonly timeoutMs: number } | string {
  if (approval === undefined) {
    return `approval is needed (${reason}) but the call was made without an approval handler (the \`approval\` option)`;
  }
  if (typeof approval === 'function')
    return { handler: approval, timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS };
  if (typeof approval !== 'object' || approval === null || typeof approval.handler !== 'function') {
    return `approval must be a handler function or { handler, timeoutMs? }, received ${approval === null ? 'null' : typeof approval}`;
  }
  const timeoutMs = approval.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return `approval timeoutMs must be a positive number of milliseconds, received ${String(timeoutMs)}`;
  }
  return { handler: approval.handler, timeoutMs };
}

function readVerdict(verdict: unknown): string | undefined {
  if (verdict === 'approve') return undefined;
  if (verdict === 'deny') return 'approval was refused';
  if (typeof verdict === 'object' && verdict !== null && 'deny' in verdict) {
    const reason: unknown = verdict.deny;
    if (typeof reason === 'string' && reason.trim().length > 0) {
      return `approval was refused: ${reason.trim()}`;
    }
  }
  const shown =
    typeof verdict === 'string'
      ? JSON.stringify(verdict)
      : verdict === null
        ? 'null'
        : typeof verdict;
  return `the approval handler answered ${shown}; expected 'approve', 'deny' or { deny: reason }`;
}

function cancelled(signal: AbortSignal): string {
  return `the call was cancelled while waiting for approval: ${abortReason(signal).message}`;
}

/** The tool's JSON Schema, for finding secret arguments; names alone when it has none. */
function schemaOf(tool: Tool): JsonSchema | undefined {
  try {
    return tool.inputSchema;
  } catch {
    return undefined;
  }
}
