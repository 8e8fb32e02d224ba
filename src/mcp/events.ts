import type { DataSensitivity } from '../core/sensitivity.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { defineEvent } from '../runtime/define-event.js';

/** A server connection is ready (also after a reconnect). */
export class McpServerConnected extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly transport: string;
  /** Which of the server's connections: the normal one or the isolated one. */
  readonly endpoint: 'normal' | 'isolated';
  readonly toolCount: number;
  readonly reconnect: boolean;
  readonly createdAt: Date;
}>() {}

/** A server connection closed; `expected` is false when it was lost. */
export class McpServerDisconnected extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly endpoint: 'normal' | 'isolated';
  readonly expected: boolean;
  readonly reason?: string;
  readonly createdAt: Date;
}>() {}

/** A server could not be connected (after retries, or at `connect()`). */
export class McpServerUnavailable extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly transport: string;
  readonly reason: string;
  readonly createdAt: Date;
}>() {}

/** A server's tool list changed and the section's tools were rebuilt. */
export class McpToolsChanged extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly toolNames: readonly string[];
  readonly createdAt: Date;
}>() {}

/** A server reported progress on a call in flight; at most 20 a second per call, the rest left out. */
export class McpToolProgress extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly originalName: string;
  readonly callId: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
  readonly createdAt: Date;
}>() {}

/** A call ran past its server's `timeoutMs` and was cancelled. */
export class McpToolTimedOut extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly originalName: string;
  readonly callId: string;
  readonly timeoutMs: number;
  readonly createdAt: Date;
}>() {}

/** A server's calls were switched to its isolated endpoint, for good. */
export class McpSectionIsolated extends defineEvent<{
  readonly sessionId: string;
  readonly sectionKey: string;
  readonly serverName: string;
  /** `endpoint` for an isolated deployment, `sandbox` for a restarted stdio server. */
  readonly mode: 'endpoint' | 'sandbox';
  readonly sensitivity: DataSensitivity;
  readonly createdAt: Date;
}>() {}

/** Isolation could not be set up; calls to the server fail closed. */
export class McpIsolationFailed extends defineEvent<{
  readonly sessionId: string;
  readonly sectionKey: string;
  readonly serverName: string;
  readonly reason: string;
  readonly createdAt: Date;
}>() {}

/**
 * A tool result carried a private-data marker that could not be read (not
 * an object, no dataset, an unknown level). The session was raised to
 * `confidential` anyway: a server that tried to flag private data is
 * believed, and a broken flag must not keep the session public.
 */
export class PrivateDataMarkerMalformed extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly toolName: string;
  readonly originalName: string;
  readonly callId: string;
  /** What was wrong with the marker. */
  readonly reason: string;
  /** The level the session was raised to because of it. */
  readonly sensitivity: DataSensitivity;
  readonly createdAt: Date;
}>() {}

/** Fields of {@link McpServerLog}. */
export interface McpServerLogInit {
  readonly sessionId: string;
  readonly serverName: string;
  /** The syslog level the server gave (`debug` … `emergency`). */
  readonly level: LoggingLevel;
  /** The server's logger name, if it gave one (redacted, one line, capped). */
  readonly logger?: string;
  /**
   * What the server logged, as text: JSON for structured data. Redacted of
   * the server's secrets and capped; it is the server's text, not ours.
   */
  readonly message: string;
  /**
   * How many of the server's messages at or above the level came just
   * before this one and were not published: a server gets at most
   * `MAX_LOG_EVENTS_PER_SECOND` (100) a second. Absent when none.
   */
  readonly dropped?: number;
  readonly createdAt: Date;
}

/**
 * A server's own log message (`notifications/message`), at or above the
 * section's `serverLogLevel`; at most 100 a second per server (see `dropped`).
 */
export class McpServerLog extends defineEvent<McpServerLogInit>() {}

/**
 * A sandboxed server asked the egress proxy for a destination it may not
 * reach (not on `isolation.network.allow`, or any host once the session is
 * `secret`). The connection was refused with HTTP 403 and the reason. At
 * most 20 a second per server are published (see `dropped`); every
 * refused connection is refused all the same.
 */
export class McpNetworkDenied extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly host: string;
  readonly port: number;
  readonly reason: string;
  /** How many refusals came just before this one and were not published. Absent when none. */
  readonly dropped?: number;
  readonly createdAt: Date;
}>() {}
