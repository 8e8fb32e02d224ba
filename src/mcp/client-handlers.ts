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

/** What a client-side handler is given with a server's request. */
export interface ServerRequestContext {
  /** Name of the server that asked. */
  readonly serverName: string;
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
 * Answers the server's requests with the application's handlers (only
 * those given: capabilities are advertised to match), at most
 * {@link MAX_RUNNING_HANDLERS} at a time (more are refused with an
 * error), and passes its notifications on.
 */
export function installClientHandlers(
  client: Client,
  serverName: string,
  handlers: ClientHandlers,
  notifications: NotificationListener,
  running: RunningHandlers,
): void {
  const { elicitation, sampling, roots } = handlers;
  const bounded = async <T>(handle: () => T | Promise<T>): Promise<T> => {
    if (running.count >= MAX_RUNNING_HANDLERS) {
      throw new RpcError(
        ErrorCode.InternalError,
        `the client is already answering ${MAX_RUNNING_HANDLERS} requests of server "${serverName}"; try again when one has ended`,
      );
    }
    running.count += 1;
    try {
      return await handle();
    } finally {
      running.count -= 1;
    }
  };
  if (elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      bounded(() => elicitation(request.params, { serverName, signal: extra.signal })),
    );
  }
  if (sampling !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      bounded(() => sampling(request.params, { serverName, signal: extra.signal })),
    );
  }
  if (roots !== undefined) {
    client.setRequestHandler(ListRootsRequestSchema, (_request, extra) =>
      bounded(async () => ({
        roots: [...(await roots({ serverName, signal: extra.signal }))],
      })),
    );
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notifications.toolListChanged();
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notifications.log(notification.params);
  });
}
