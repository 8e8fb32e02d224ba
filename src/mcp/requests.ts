/**
 * The two requests a connection sends for its owner, on an open client:
 * `tools/list` page by page, and `tools/call` with its timeout rules.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError as RpcError,
  type Progress,
  type Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpTimeoutError, messageOf } from '../core/errors.js';
import { describeSent } from '../core/describe-sent.js';
import { nextTurn } from '../core/pause.js';
import { readCallToolResult } from './call-result.js';
import { CONTAINER_SIZE, listedToolSize } from './listing-size.js';
import { checkListedSchema, type ListedSchema } from './schema/index.js';
import { parseToolListing, ToolListingError, type ToolListingPage } from './tool-listing.js';

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

/** More pages than any real server sends: a server whose list does not end by then is refused. */
export const MAX_LIST_PAGES = 1_000;

/**
 * More tools than any real server lists (the benchmark's largest has
 * 10,000; a test bridges 150,000 small ones): past it, refused.
 */
export const MAX_LISTED_TOOLS = 200_000;

/** The whole listing, every page, gets this many times one request's timeout. */
export const LISTING_TIMEOUT_FACTOR = 10;

/**
 * Largest size of one listing, every member of every tool counted (see
 * `listing-size.ts`: JSON text, and each object or array as more): 10,000
 * rich tools come to about 40 million. Each schema is bounded again,
 * alone, at connect.
 */
export const MAX_LISTING_SIZE = 100_000_000;

/**
 * What the SDK is asked to check of a `tools/list` or `tools/call` result:
 * nothing; {@link parseToolListing} and {@link readCallToolResult} do.
 */
const UNCHECKED = z.unknown();

/** A server's tools as listed, and what was found of each one's input schema. */
export interface ToolListing {
  readonly tools: readonly McpToolDescription[];
  /**
   * By index: `tools[i].inputSchema` surveyed and its bounds checked as the
   * listing was read, for the check at connect (`inputSchemaRefusal`). An
   * in-process server that changes a schema's objects after listing them
   * is checked again, from a bounded copy, when the tool's validator is built.
   */
  readonly schemas: readonly ListedSchema[];
}

/** The listing of a connection that has listed nothing yet. */
export const NO_TOOLS: ToolListing = Object.freeze({
  tools: Object.freeze([]),
  schemas: Object.freeze([]),
});

/**
 * Longest run of a listing's checks in one turn of the event loop: a page
 * may hold 64 MB of schemas, each checked in time bounded by its size, and
 * a hostile listing near the bounds took seconds in one run. Not shorter:
 * a turn in the middle of a listing costs a connect more than the turn
 * itself (what the engine had put off runs then: 2–3 ms of a 20 ms connect
 * to 1,000 tools at 10 ms).
 */
const LISTING_SLICE_MS = 50;

/**
 * Every tool, following `nextCursor`: each page within `timeoutMs`, the
 * whole listing within {@link LISTING_TIMEOUT_FACTOR} times that, and at
 * most {@link MAX_LIST_PAGES} pages, {@link MAX_LISTED_TOOLS} tools and
 * a size of {@link MAX_LISTING_SIZE}. A
 * listing past a bound is refused, never cut short: a partial list would
 * be offered as if it were the server's.
 * @throws what `broken` makes of the problem when a server sends a cursor
 *   twice, a listing that breaks the MCP schema, or one past a bound.
 */
export async function listAllTools(
  client: Client,
  options: {
    readonly timeoutMs: number;
    readonly signal: AbortSignal | undefined;
    readonly broken: (problem: string) => Error;
  },
): Promise<ToolListing> {
  const { timeoutMs, signal, broken } = options;
  const totalMs = timeoutMs * LISTING_TIMEOUT_FACTOR;
  const endsAt = Date.now() + totalMs;
  const tools: McpToolDescription[] = [];
  const schemas: ListedSchema[] = [];
  /** The size of the tools listed so far (`listing-size.ts`). */
  let size = 0;
  const seen = new Set<string>();
  let cursor: string | undefined;
  const unended = (bound: string, pages: number): Error =>
    broken(
      `tools/list did not end within ${bound} (${tools.length} tools in ${pages} pages so far)`,
    );
  for (let page = 0; ; page += 1) {
    const left = endsAt - Date.now();
    if (page === MAX_LIST_PAGES) throw unended(`${MAX_LIST_PAGES} pages`, page);
    if (left <= 0) throw unended(`${totalMs} ms`, page);
    let result: unknown;
    try {
      result = await client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        UNCHECKED,
        { timeout: Math.min(timeoutMs, left), ...(signal ? { signal } : {}) },
      );
    } catch (error) {
      // A page cut short by what was left of the whole listing's time.
      if (left < timeoutMs && Date.now() >= endsAt) throw unended(`${totalMs} ms`, page);
      throw error;
    }
    const listed = parseListing(result, broken);
    let sliceStarted = performance.now();
    for (const tool of listed.tools) {
      if (performance.now() - sliceStarted > LISTING_SLICE_MS) {
        await nextTurn();
        sliceStarted = performance.now();
      }
      const schema = checkListedSchema(tool.inputSchema);
      tools.push(tool); // a spread of a huge page overflows the stack
      schemas.push(schema);
      size += listedToolSize(tool, schema.survey, MAX_LISTING_SIZE - size + 1);
      if (size > MAX_LISTING_SIZE) break;
    }
    if (size > MAX_LISTING_SIZE) {
      throw broken(
        `tools/list was larger than ${MAX_LISTING_SIZE} (characters of JSON, each object and array counted as ${CONTAINER_SIZE} more; ${tools.length} tools in ${page + 1} pages)`,
      );
    }
    if (tools.length > MAX_LISTED_TOOLS) {
      throw broken(
        `tools/list offered more than ${MAX_LISTED_TOOLS} tools (${tools.length} in ${page + 1} pages)`,
      );
    }
    cursor = listed.nextCursor;
    if (cursor === undefined) return { tools: Object.freeze(tools), schemas };
    if (seen.has(cursor)) {
      throw broken(`tools/list repeated the cursor ${describeSent(cursor)}`);
    }
    seen.add(cursor);
  }
}

/** The page of `result`; any failure to read it, a getter's throw included, is `broken`. */
function parseListing(result: unknown, broken: (problem: string) => Error): ToolListingPage {
  try {
    return parseToolListing(result);
  } catch (error) {
    throw broken(
      error instanceof ToolListingError
        ? error.message
        : `tools/list could not be read: ${messageOf(error)}`,
    );
  }
}

/**
 * What the caller of a tool call makes of its outcome, run in the turn the
 * SDK settles the request: a caller that has its own work to do on the
 * answer adds no promise of its own between the SDK and itself.
 */
export interface CallHandlers<T> {
  /** The server's answer, read as the SDK reads it. */
  answered(result: CallToolResult): T | PromiseLike<T>;
  /**
   * Why there is none: McpTimeoutError when a limit was reached; the SDK's
   * errors otherwise (a result that breaks the MCP schema: its error).
   */
  failed(error: unknown): T | PromiseLike<T>;
}

/** The outcome as it came: the answer, or its error thrown. */
const AS_SENT: CallHandlers<CallToolResult> = Object.freeze({
  answered: (result: CallToolResult) => result,
  failed: (error: unknown): never => {
    throw error;
  },
});

/**
 * One `tools/call`: the timeout (restarted by progress, up to a cap), the
 * caller's signal (cancellation reaches the server), the result read as
 * the SDK reads it (`call-result.ts`), handed to `handlers`. No async frame
 * of its own: the common call that succeeds pays only for the SDK's
 * request and one reaction to it.
 * @throws (by default, as a rejection) McpTimeoutError when a limit was
 *   reached; the SDK's errors otherwise (a result that breaks the MCP
 *   schema: its error).
 */
export function sendToolCall<T = CallToolResult>(
  client: Client,
  call: {
    readonly serverName: string;
    readonly name: string;
    readonly args: Record<string, unknown>;
  },
  options: CallOptions,
  timeoutMs: number,
  handlers: CallHandlers<T> = AS_SENT as unknown as CallHandlers<T>,
): Promise<T> {
  const { name, args } = call;
  const caller = options.signal;
  const signal = caller === undefined ? undefined : new CallSignal(caller);
  // The SDK keeps a call's progress handler past its answer when the answer
  // names a task: progress then would be published after the call ended,
  // and the handler would hold the call's context. It is cut off at the answer.
  const progress = options.onProgress === undefined ? undefined : cutOff(options.onProgress);
  const sent = client.request(
    { method: 'tools/call', params: { name, arguments: args } },
    UNCHECKED,
    {
      timeout: timeoutMs,
      ...(signal === undefined ? {} : { signal: signal.forSdk() }),
      // A tool that reports progress is working: each report restarts the
      // timeout, up to a cap on the call's whole duration.
      ...(progress
        ? {
            onprogress: progress.handler,
            resetTimeoutOnProgress: true,
            maxTotalTimeout: options.maxTotalTimeoutMs ?? timeoutMs * DEFAULT_TOTAL_TIMEOUT_FACTOR,
          }
        : {}),
    },
  );
  return sent.then(
    (result) => {
      signal?.release();
      progress?.cut();
      let read: CallToolResult;
      try {
        read = readCallToolResult(result);
      } catch (error) {
        return handlers.failed(error);
      }
      return handlers.answered(read);
    },
    (error: unknown) => {
      signal?.release();
      progress?.cut();
      return handlers.failed(timeoutError(error, call, options, timeoutMs) ?? error);
    },
  );
}

/**
 * A progress handler that forwards to `onProgress` until `cut()`, after
 * which it holds nothing of it. Made apart from the call's other closures,
 * which share their scope: one kept by the SDK would keep them all.
 */
function cutOff(onProgress: (progress: Progress) => void): {
  readonly handler: (progress: Progress) => void;
  cut(): void;
} {
  let forward: ((progress: Progress) => void) | undefined = onProgress;
  return {
    handler: (progress) => forward?.(progress),
    cut: () => {
      forward = undefined;
    },
  };
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

/**
 * The signal the SDK is given for one call. The SDK adds an `abort`
 * listener to a request's signal and never removes it, so the caller's own
 * signal, when long-lived, would keep one closure per call; and a second
 * real `AbortSignal` per call costs Node's bookkeeping of signals with
 * listeners (several µs). This object gives the SDK what it reads (1.x:
 * `aborted`, `reason`, `throwIfAborted`, `addEventListener('abort')`), holds
 * the SDK's listeners only while the call runs, and forwards the caller's
 * abort to it through one listener on the caller's signal that is removed
 * when the call settles.
 */
class CallSignal {
  readonly #caller: AbortSignal;
  /** The SDK's abort listeners (1.x adds one); none after the call ends. */
  #listeners: (() => void)[] = [];
  readonly #onAbort = (): void => {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  };

  constructor(caller: AbortSignal) {
    this.#caller = caller;
    if (!caller.aborted) caller.addEventListener('abort', this.#onAbort, { once: true });
  }

  get aborted(): boolean {
    return this.#caller.aborted;
  }

  get reason(): unknown {
    const reason: unknown = this.#caller.reason;
    return reason;
  }

  throwIfAborted(): void {
    this.#caller.throwIfAborted();
  }

  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.#listeners = this.#listeners.filter((held) => held !== listener);
  }

  /** This object, typed as the SDK's option wants it. */
  forSdk(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  /** Ends the call: the caller's signal keeps nothing of it. */
  release(): void {
    this.#listeners = [];
    this.#caller.removeEventListener('abort', this.#onAbort);
  }
}
