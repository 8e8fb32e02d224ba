import type { ResourceRegistry } from '../runtime/resources.js';
import type { Session } from '../runtime/session.js';

/** What a tool handler is given besides its arguments. */
export interface ToolContext {
  /** The session the call belongs to; slices are reached through it. */
  readonly session: Session;
  /** Aborted when the caller cancels; forward it to any I/O. */
  readonly signal: AbortSignal;
  /** The rendered prompt the tool was offered in, when known. */
  readonly prompt?: { readonly ns: string; readonly key: string };
  /** Shared objects such as connection pools, looked up by class. */
  readonly resources: ResourceRegistry;
  /** Unique id of this call, as in `ToolInvoked.callId`. */
  readonly callId: string;
  /**
   * When the call must be over, if the caller set one: `signal` aborts then,
   * and a bridged MCP call's timeout is no longer than what is left.
   */
  readonly deadline?: Date;
}
