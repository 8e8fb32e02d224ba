import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitRequest,
  ElicitRequestSchema,
  ErrorCode,
  type ElicitResult,
  ListRootsRequestSchema,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  McpError as RpcError,
  type Root,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Endpoint } from './server-connection.js';

/** What a client-side handler is given with a server's request. */
export interface ServerRequestContext {
  /** Name of the server that asked. */
  readonly serverName: string;
  /**
   * Which of the server's deployments asked: `normal`, or `isolated` (the
   * isolated endpoint or the sandboxed process). A normal endpoint's
   * requests reach a handler only while the session holds no private data.
   */
  readonly endpoint: Endpoint;
  /** Aborted when the server cancels the request or the connection closes. */
  readonly signal: AbortSignal;
}

/** Answers a server's `elicitation/create` request (ask the user). */
export type ElicitationHandler = (
  params: ElicitRequest['params'],
  context: ServerRequestContext,
) => ElicitResult | Promise<ElicitResult>;

/** Answers a server's `sampling/createMessage` request (ask the LLM). */
export type SamplingHandler = (
  params: CreateMessageRequest['params'],
  context: ServerRequestContext,
) => CreateMessageResult | Promise<CreateMessageResult>;

/** Lists the roots (directories, URIs) the client exposes to servers. */
export type RootsHandler = (
  context: ServerRequestContext,
) => readonly Root[] | Promise<readonly Root[]>;

/** Client features offered to servers; each is advertised only when given. */
export interface ClientHandlers {
  readonly elicitation?: ElicitationHandler;
  readonly sampling?: SamplingHandler;
  readonly roots?: RootsHandler;
}

/** The capabilities to advertise for the given handlers. */
export function capabilitiesFor(handlers: ClientHandlers): ClientCapabilities {
  return {
    ...(handlers.elicitation === undefined
      ? {}
      : { elicitation: { form: { applyDefaults: true } } }),
    ...(handlers.sampling === undefined ? {} : { sampling: {} }),
    ...(handlers.roots === undefined ? {} : { roots: { listChanged: false } }),
  };
}

/** What a connection wants to hear of the server's notifications. */
export interface NotificationListener {
  toolListChanged(): void;
  log(message: LoggingMessageNotification['params']): void;
}

/**
 * Most of the application's handlers that run at once for one server: a
 * server that asks (and cancels) without end, or a handler that ignores
 * the cancellation, cannot start any number of them (an elicitation may
 * be a prompt in front of the user).
 */
export const MAX_RUNNING_HANDLERS = 16;

/**
 * How many of the application's handlers run now for one server. Kept by
 * the connection across its clients: a handler that ignores the abort of
 * a closed client still runs, and a server that forces reconnects must
 * not get a fresh count each time.
 */
export interface RunningHandlers {
  count: number;
}

/**
 * Why the application may not answer a server's requests now (its answer
 * would carry what the session knows to where it may not go), or
 * undefined when it may. The text is sent to the server: it names no data.
 * `signal` aborts when the server cancels its request or the connection
 * closes.
 */
export type ServerRequestRefusal = (
  signal: AbortSignal,
) => string | undefined | Promise<string | undefined>;

/** Options of {@link installClientHandlers}. */
export interface ClientHandlersOptions {
  readonly serverName: string;
  readonly endpoint: Endpoint;
  readonly handlers: ClientHandlers;
  readonly notifications: NotificationListener;
  readonly running: RunningHandlers;
  /**
   * Asked before a handler runs and again before its answer is sent: a
   * refusal either time answers the server with an error instead (an
   * answer decided before the session escalated is not sent after).
   * @default none: always answered
   */
  readonly refusal?: ServerRequestRefusal;
}

/**
 * Answers the server's requests with the application's handlers (only
 * those given: capabilities are advertised to match) while `refusal`
 * allows, at most {@link MAX_RUNNING_HANDLERS} at a time (more are refused
 * with an error), and passes its notifications on.
 */
export function installClientHandlers(client: Client, options: ClientHandlersOptions): void {
  const { serverName, endpoint, handlers, notifications, running, refusal } = options;
  const { elicitation, sampling, roots } = handlers;
  const refuseIfClosed = async (signal: AbortSignal): Promise<void> => {
    const reason = await refusal?.(signal);
    if (reason !== undefined) {
      throw new RpcError(
        ErrorCode.InvalidRequest,
        `the client does not answer server "${serverName}" now: ${reason}`,
      );
    }
  };
  const answer = async <T>(
    handle: (context: ServerRequestContext) => T | Promise<T>,
    signal: AbortSignal,
  ): Promise<T> => {
    // Counted from the start: a refusal that waits (for the store) holds a place too.
    if (running.count >= MAX_RUNNING_HANDLERS) {
      throw new RpcError(
        ErrorCode.InternalError,
        `the client is already answering ${MAX_RUNNING_HANDLERS} requests of server "${serverName}"; try again when one has ended`,
      );
    }
    running.count += 1;
    try {
      await refuseIfClosed(signal);
      const answered = await handle({ serverName, endpoint, signal });
      await refuseIfClosed(signal);
      return answered;
    } finally {
      running.count -= 1;
    }
  };
  if (elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      answer((context) => elicitation(request.params, context), extra.signal),
    );
  }
  if (sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      answer((context) => sampling(request.params, context), extra.signal),
    );
  }
  if (roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, (_request, extra) =>
      answer(async (context) => ({ roots: [...(await roots(context))] }), extra.signal),
    );
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notifications.toolListChanged();
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notifications.log(notification.params);
  });
}
