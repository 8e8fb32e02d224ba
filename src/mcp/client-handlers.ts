import type {
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Root,
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
