/**
 * Errors of the server toolkit. Two families live here:
 *
 * - {@link ServerToolkitError} and its subclasses: the toolkit itself was
 *   misused or met a bad input (a path outside the workspace, a missing
 *   identity, unreadable private-data state). They carry a string `code`.
 * - {@link ToolRetryError} and {@link ToolFatalError}: thrown by tool authors
 *   to choose how the client reacts (retry with other arguments, or abort).
 */
import { FATAL_PREFIX } from '../core/errors.js';

/** Codes carried by {@link ServerToolkitError} and its subclasses. */
export type ServerToolkitErrorCode =
  'workspace-path' | 'server-context' | 'private-data' | 'context-result' | 'server-options';

/** Base class of the errors the server toolkit raises itself. */
export class ServerToolkitError extends Error {
  override readonly name: string = 'ServerToolkitError';
  constructor(
    readonly code: ServerToolkitErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Why a path was refused.
 *
 * - `not-under-workspace`: an absolute path that does not start with `/workspace/`.
 * - `traversal`: `..` segments or a symlink lead out of the session directory.
 * - `invalid`: empty, not a string, or containing a NUL byte.
 * - `host-outside-workspace`: `hostToWorkspacePath` got a host path outside
 *   the session directory — a bug in tool code, not the agent's doing.
 * - `not-found`: `readWorkspaceFile` (or `writeWorkspaceFile` without
 *   `createDirectories`) found nothing at the path.
 * - `wrong-kind`: a directory, a symlink, a FIFO, a socket or a device
 *   where a regular file (or a directory) was expected.
 * - `too-large`: a file past `readWorkspaceFile`'s `maxBytes`.
 * - `not-permitted`: the permissions of a file or directory of the
 *   workspace do not let the server open it.
 */
export type WorkspacePathReason =
  | 'not-under-workspace'
  | 'traversal'
  | 'invalid'
  | 'host-outside-workspace'
  | 'not-found'
  | 'wrong-kind'
  | 'too-large'
  | 'not-permitted';

/**
 * A path could not be mapped between `/workspace/...` and the host. Except
 * for `host-outside-workspace`, the message names only the path the agent
 * supplied, never a host path, so it is safe to show to the model.
 */
export class WorkspacePathError extends ServerToolkitError {
  override readonly name: string = 'WorkspacePathError';
  constructor(
    readonly reason: WorkspacePathReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super('workspace-path', message, options);
  }

  /** True when the agent chose the bad path, so the model may correct it. */
  get agentFacing(): boolean {
    return this.reason !== 'host-outside-workspace';
  }
}

/**
 * A toolkit function that needs the caller's identity or the server's
 * settings ran outside a request (no JWT identity, no `defineTool` scope).
 */
export class ServerContextError extends ServerToolkitError {
  override readonly name: string = 'ServerContextError';
  constructor(message: string, options?: ErrorOptions) {
    super('server-context', message, options);
  }
}

/** The private-data state file could not be read, parsed or written. */
export class PrivateDataError extends ServerToolkitError {
  override readonly name: string = 'PrivateDataError';
  constructor(message: string, options?: ErrorOptions) {
    super('private-data', message, options);
  }
}

/** `contextResult` got a value it cannot serialise or an unknown preset. */
export class ContextResultError extends ServerToolkitError {
  override readonly name: string = 'ContextResultError';
  constructor(message: string, options?: ErrorOptions) {
    super('context-result', message, options);
  }
}

/** `createMcpServer`, `defineTool` or `serveHttp` got a bad option. */
export class ServerOptionsError extends ServerToolkitError {
  override readonly name: string = 'ServerOptionsError';
  constructor(
    /** The option at fault, e.g. `auth.secret` or `permissions[1]`. */
    readonly option: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super('server-options', message, options);
  }
}

/**
 * The model picked bad arguments; it may try again with others. Becomes an
 * `isError` tool result carrying the message unchanged.
 *
 * @example
 * ```ts
 * if (query.trim() === '') throw new ToolRetryError('query is empty; pass a search term');
 * ```
 */
export class ToolRetryError extends Error {
  override readonly name: string = 'ToolRetryError';
}

/**
 * Something is broken that no retry will fix (a database down, a
 * credential revoked); the client should abort the run. The message starts
 * with `[FATAL] ` so that it survives any wrapper that only forwards
 * `error.message`; {@link ToolFatalError.reason} holds it without the prefix.
 *
 * @example
 * ```ts
 * throw new ToolFatalError('records database unreachable');
 * // result text: "[FATAL] records database unreachable"
 * ```
 */
export class ToolFatalError extends Error {
  override readonly name: string = 'ToolFatalError';
  /** The message without the `[FATAL] ` prefix. */
  readonly reason: string;
  constructor(reason: string, options?: ErrorOptions) {
    super(FATAL_PREFIX + reason, options);
    this.reason = reason;
  }
}
