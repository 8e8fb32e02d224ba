/** The options of `serveHttp`, their defaults, and their checks. */
import { ServerOptionsError } from './errors.js';
import type { JwtAuthOptions } from './jwt.js';

/** Options of `serveHttp`. */
export interface ServeHttpOptions {
  /** TCP port; `0` picks a free one (read it from the handle's `url`). */
  readonly port: number;
  /** Interface to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** URL path of the MCP endpoint. @default '/mcp' */
  readonly path?: string;
  /** How bearer tokens are verified. There is no unauthenticated mode. */
  readonly auth: JwtAuthOptions;
  /** An MCP session without requests for this long is closed; `0` never. @default 1_800_000 */
  readonly sessionIdleTimeoutMs?: number;
  /** Open MCP sessions at most; more `initialize` requests get 503. @default 1_000 */
  readonly maxSessions?: number;
  /**
   * Open MCP sessions of one user (the token's subject) at most; more of
   * that user's `initialize` requests get 429, so that one token cannot
   * take every place of {@link maxSessions}. @default 100
   */
  readonly maxSessionsPerUser?: number;
  /** Largest request body read; a larger one gets 413. @default 4_194_304 */
  readonly maxRequestBodyBytes?: number;
  /**
   * Receives unexpected failures (a factory that throws, a transport error).
   * Never given tokens or secrets.
   * @default logs to `console.error`
   */
  readonly onError?: (error: unknown) => void;
  /** Aborting it closes the server, like `close()`. */
  readonly signal?: AbortSignal;
}

/** Default of {@link ServeHttpOptions.host}: loopback only. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
/** Default of {@link ServeHttpOptions.path}. */
export const DEFAULT_MCP_PATH = '/mcp';
/** Default of {@link ServeHttpOptions.sessionIdleTimeoutMs}: 30 minutes. */
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 1_800_000;
/** Default of {@link ServeHttpOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 1_000;
/** Default of {@link ServeHttpOptions.maxSessionsPerUser}. */
export const DEFAULT_MAX_SESSIONS_PER_USER = 100;
/** Default of {@link ServeHttpOptions.maxRequestBodyBytes}: 4 MiB, as the SDK's transport. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;

/** The options with defaults applied. */
export interface CheckedOptions {
  readonly port: number;
  readonly host: string;
  readonly path: string;
  readonly sessionIdleTimeoutMs: number;
  readonly maxSessions: number;
  readonly maxSessionsPerUser: number;
  readonly maxRequestBodyBytes: number;
}

/**
 * Checks the options before anything listens.
 * @throws ServerOptionsError naming the option.
 */
export function checkOptions(options: ServeHttpOptions): CheckedOptions {
  const { port } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ServerOptionsError(
      'port',
      `port must be an integer from 0 to 65535, got ${String(port)}`,
    );
  }
  const host = options.host ?? DEFAULT_HTTP_HOST;
  if (typeof host !== 'string' || host.length === 0) {
    throw new ServerOptionsError(
      'host',
      `host must be a non-empty string such as "127.0.0.1", got ${JSON.stringify(host)}`,
    );
  }
  const path = options.path ?? DEFAULT_MCP_PATH;
  if (typeof path !== 'string' || !/^\/[^?#\s]*$/.test(path)) {
    throw new ServerOptionsError(
      'path',
      `path must start with "/" and hold no query, fragment or space, got ${JSON.stringify(path)}`,
    );
  }
  return {
    port,
    host,
    path,
    sessionIdleTimeoutMs: nonNegativeInteger(
      'sessionIdleTimeoutMs',
      options.sessionIdleTimeoutMs,
      DEFAULT_SESSION_IDLE_TIMEOUT_MS,
    ),
    maxSessions: positiveInteger('maxSessions', options.maxSessions, DEFAULT_MAX_SESSIONS),
    maxSessionsPerUser: positiveInteger(
      'maxSessionsPerUser',
      options.maxSessionsPerUser,
      DEFAULT_MAX_SESSIONS_PER_USER,
    ),
    maxRequestBodyBytes: positiveInteger(
      'maxRequestBodyBytes',
      options.maxRequestBodyBytes,
      DEFAULT_MAX_REQUEST_BODY_BYTES,
    ),
  };
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = nonNegativeInteger(option, value, fallback);
  if (resolved === 0) {
    throw new ServerOptionsError(option, `${option} must be a positive integer, got 0`);
  }
  return resolved;
}

function nonNegativeInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 0) {
    throw new ServerOptionsError(
      option,
      `${option} must be a non-negative integer, got ${String(value)}`,
    );
  }
  return resolved;
}
