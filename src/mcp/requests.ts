/**
 * The two requests a connection sends for its owner, on an open client:
 * `tools/list` page by page, and `tools/call` with its timeout rules.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsResultSchema,
  McpError as RpcError,
  type Progress,
  type Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';
import { McpTimeoutError } from '../core/errors.js';

/** Options of a tool call. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** @default the server's `timeoutMs` */
  readonly timeoutMs?: number;
  /** The caller's deadline, when it shortened `timeoutMs`: named if the call reaches it. */
  readonly deadline?: Date;
  readonly onProgress?: (progress: Progress) => void;
  /**
   * With `onProgress`, the longest a call may run while progress keeps
   * restarting its timeout.
   * @default 10 × the timeout
   */
  readonly maxTotalTimeoutMs?: number;
}

/** Default cap of a call kept alive by progress, as a multiple of its timeout. */
export const DEFAULT_TOTAL_TIMEOUT_FACTOR = 10;

/** More pages than any real server sends: a server that never ends its list is cut here. */
const MAX_LIST_PAGES = 1_000;

/**
 * Every tool, following `nextCursor`.
 * @throws what `broken` makes of the problem when a server sends a cursor twice.
 */
export async function listAllTools(
  client: Client,
  options: {
    readonly timeoutMs: number;
    readonly signal: AbortSignal | undefined;
    readonly broken: (problem: string) => Error;
  },
): Promise<McpToolDescription[]> {
  const { timeoutMs, signal } = options;
  const tools: McpToolDescription[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
    if (seen.has(cursor)) {
      throw options.broken(`tools/list repeated the cursor ${JSON.stringify(cursor)}`);
    }
    seen.add(cursor);
  }
  return tools;
}

/**
 * One `tools/call`: the timeout (restarted by progress, up to a cap), the
 * caller's signal (cancellation reaches the server). No async frame of its
 * own: the common call that succeeds pays only for the SDK's request.
 * @throws McpTimeoutError when a limit was reached; the SDK's errors otherwise.
 */
export function sendToolCall(
  client: Client,
  call: {
    readonly serverName: string;
    readonly name: string;
    readonly args: Record<string, unknown>;
  },
  options: CallOptions,
  timeoutMs: number,
): Promise<CallToolResult> {
  const { name, args } = call;
  // The SDK adds an 'abort' listener to the signal of every request and never
  // removes it: on a long-lived caller signal that is one closure kept per
  // call. It gets a per-call signal instead, linked while the call runs.
  const caller = options.signal;
  const link = caller === undefined || caller.aborted ? undefined : new AbortController();
  const unlink = link && caller && linkSignal(caller, link);
  const sent = client
    .request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, {
      timeout: timeoutMs,
      ...(caller ? { signal: link?.signal ?? caller } : {}),
      // A tool that reports progress is working: each report restarts the
      // timeout, up to a cap on the call's whole duration.
      ...(options.onProgress
        ? {
            onprogress: options.onProgress,
            resetTimeoutOnProgress: true,
            maxTotalTimeout: options.maxTotalTimeoutMs ?? timeoutMs * DEFAULT_TOTAL_TIMEOUT_FACTOR,
          }
        : {}),
    })
    .catch((error: unknown) => {
      throw timeoutError(error, call, options, timeoutMs) ?? error;
    });
  return unlink === undefined ? sent : sent.finally(unlink);
}

/**
 * The timeout error for what the SDK rejected a call with, when it was a
 * timeout. The SDK also rejects an aborted call with RequestTimeout
 * (wrapping the abort reason): only a call whose signal is not aborted
 * really timed out.
 */
function timeoutError(
  error: unknown,
  { serverName, name }: { readonly serverName: string; readonly name: string },
  options: CallOptions,
  timeoutMs: number,
): McpTimeoutError | undefined {
  if (
    options.signal?.aborted === true ||
    !(error instanceof RpcError) ||
    error.code !== Number(ErrorCode.RequestTimeout)
  ) {
    return undefined;
  }
  // Progress kept the call alive until the cap on its whole duration.
  const cap = (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout;
  return new McpTimeoutError(
    serverName,
    typeof cap === 'number' ? cap : timeoutMs,
    typeof cap === 'number'
      ? `tool "${name}" of server "${serverName}" reported progress but did not finish within maxTotalTimeoutMs (${cap} ms)`
      : options.deadline !== undefined && options.deadline.getTime() <= Date.now() + 1
        ? `tool "${name}" of server "${serverName}" reached the call's deadline ${options.deadline.toISOString()} (timed out after ${timeoutMs} ms)`
        : `tool "${name}" of server "${serverName}" timed out after ${timeoutMs} ms${
            options.onProgress
              ? ''
              : ' (its progress was not asked for, as nothing observes McpToolProgress: set maxTotalTimeoutMs to let progress reports extend the timeout)'
          }`,
    { cause: error },
  );
}

/** Aborts `link` with `caller`'s reason when `caller` aborts; returns the unlinker. */
function linkSignal(caller: AbortSignal, link: AbortController): () => void {
  const onAbort = (): void => link.abort(caller.reason);
  caller.addEventListener('abort', onAbort, { once: true });
  return () => caller.removeEventListener('abort', onAbort);
}
