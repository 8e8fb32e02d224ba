/**
 * The caller's identity and the server's settings for the code running on
 * behalf of one request, kept in an `AsyncLocalStorage` so that tools read
 * them from context and never from parameters the model could forge.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PrivateDataMarker } from '../core/sensitivity.js';
import { ServerContextError, ServerOptionsError } from './errors.js';
import { isWellFormed } from '../core/well-formed.js';

/** Who is calling: the JWT's `sub` and `session_id` claims. */
export interface Identity {
  /** The user, from the `sub` claim. */
  readonly userId: string;
  /** The agent session, from the `session_id` claim (not the MCP transport session). */
  readonly sessionId: string;
}

/** Where a server keeps files; resolved once by `createMcpServer`. */
export interface ServerSettings {
  /** Absolute host directory holding `<user>/<session>/` workspaces. */
  readonly workspaceRoot: string;
  /** Absolute host directory holding private-data state, outside `workspaceRoot`. */
  readonly privateDataDir: string;
}

/** What the storage holds for one request. Internal to the toolkit. */
export interface RequestScope {
  readonly identity: Identity | undefined;
  /** Present inside a tool registered with `defineTool`. */
  readonly settings?: ServerSettings;
  /**
   * Markers recorded by `privateData.add` during this tool call; the
   * `defineTool` wrapper turns them into the result's `_meta` marker.
   */
  readonly privateDataMarkers?: PrivateDataMarker[];
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Longest user or session id accepted; keeps paths and logs bounded. */
export const MAX_IDENTITY_ID_LENGTH = 256;

/**
 * Checks one identity field and returns it.
 *
 * @throws {ServerOptionsError} when `value` is not a non-empty string of at
 *   most {@link MAX_IDENTITY_ID_LENGTH} characters without control characters.
 */
export function checkIdentityId(field: 'userId' | 'sessionId', value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ServerOptionsError(
      field,
      `${field} must be a non-empty string, got ${value === '' ? 'an empty string' : typeof value}`,
    );
  }
  if (value.length > MAX_IDENTITY_ID_LENGTH) {
    throw new ServerOptionsError(
      field,
      `${field} is ${value.length} characters long; at most ${MAX_IDENTITY_ID_LENGTH} are allowed`,
    );
  }
  // Control characters would corrupt log lines and file names.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new ServerOptionsError(
      field,
      `${field} ${JSON.stringify(value)} contains control characters`,
    );
  }
  // Its UTF-8 form, which names its workspace, would be another id's too.
  if (!isWellFormed(value)) {
    throw new ServerOptionsError(
      field,
      `${field} ${JSON.stringify(value)} contains a lone surrogate (half of a UTF-16 pair): it is not well-formed Unicode`,
    );
  }
  return value;
}

/**
 * Runs `fn` with `identity` as the current caller. `serveHttp` does this for
 * every authenticated request; call it yourself to run tools in-process
 * (tests, embedding over an in-memory transport).
 *
 * @throws {ServerOptionsError} when `userId` or `sessionId` is empty or too long.
 * @example
 * ```ts
 * await runWithIdentity({ userId: 'alice', sessionId: 's1' }, () => client.callTool(...));
 * ```
 */
export function runWithIdentity<T>(identity: Identity, fn: () => T): T {
  const checked: Identity = Object.freeze({
    userId: checkIdentityId('userId', identity.userId),
    sessionId: checkIdentityId('sessionId', identity.sessionId),
  });
  return storage.run({ identity: checked }, fn);
}

/** Runs `fn` in a full tool scope. Internal: used by the `defineTool` wrapper. */
export function runInScope<T>(scope: RequestScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The current scope, if any. Internal to the toolkit. */
export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** The current caller, or `undefined` outside an authenticated request. */
export function getIdentity(): Identity | undefined {
  return storage.getStore()?.identity;
}

/**
 * The current caller, required.
 *
 * @throws {ServerContextError} outside an authenticated request.
 */
export function requireIdentity(what: string): Identity {
  const identity = getIdentity();
  if (identity === undefined) {
    throw new ServerContextError(
      `${what} needs the caller's identity, but none is set: call it while serving a request ` +
        `authenticated by serveHttp, or inside runWithIdentity()`,
    );
  }
  return identity;
}

/**
 * The calling user (the JWT `sub` claim).
 *
 * @throws {ServerContextError} outside an authenticated request.
 * @example
 * ```ts
 * defineTool(server, { ..., handler: () => `hello ${getUserId()}` });
 * ```
 */
export function getUserId(): string {
  return requireIdentity('getUserId()').userId;
}

/**
 * The caller's agent session (the JWT `session_id` claim).
 *
 * @throws {ServerContextError} outside an authenticated request.
 */
export function getSessionId(): string {
  return requireIdentity('getSessionId()').sessionId;
}
