import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  CallToolResult,
  Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';
import { coalesce } from '../core/coalesce.js';
import { withDeadline } from '../core/deadline.js';
import { SharedAttempt } from '../core/shared-attempt.js';
import { McpConnectionError, McpTimeoutError, messageOf } from '../core/errors.js';
import { PACKAGE_VERSION } from '../core/package-version.js';
import { pause } from '../core/pause.js';
import { descendants, endProcesses } from './process-tree.js';
import {
  capabilitiesFor,
  installClientHandlers,
  type ClientHandlers,
  type RunningHandlers,
  type ServerRequestRefusal,
} from './client-handlers.js';
import { clientSchemaValidator } from './client-schema-validator.js';
import { ConnectionListeners, type ConnectionListener } from './connection-listeners.js';
import { DEFAULT_RECONNECT, reconnectDelayMs, type ReconnectPolicy } from './reconnect-policy.js';
import { callSecretsInFlight, callSecretsInFlightTail } from './in-flight-secrets.js';
import { lostAnswerReason } from './lost-answers.js';
import { deliverInOrder } from './ordered-delivery.js';
import { limitServerRequests } from './server-requests-limit.js';
import {
  listAllTools,
  NO_TOOLS,
  sendToolCall,
  type CallOptions,
  type CallHandlers,
  type ToolListing,
} from './requests.js';
import type { McpTransportConfig } from '../config/server-config.js';
import type { SecretRedactor } from './redact.js';
import type { CommandWrapper } from '../isolation/command-line.js';
import { ReadBudget } from './read-budget.js';
import { createTransport, type TransportHandle } from './transport-factory.js';
import { sdkRefusedMessage } from './json-rpc-message.js';
import { TransportErrorWatch } from './transport-errors.js';

export type { CallOptions, ConnectionListener, McpToolDescription };
export { DEFAULT_RECONNECT, reconnectDelayMs, type ReconnectPolicy };

/** Lifecycle of one connection. */
export type ConnectionState =
  'idle' | 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed';

/** Which of a server's deployments a connection reaches. */
export type Endpoint = 'normal' | 'isolated';

/** Options of {@link McpServerConnection}. */
export interface ServerConnectionOptions {
  readonly serverName: string;
  readonly endpoint: Endpoint;
  readonly transport: McpTransportConfig;
  readonly env?: Readonly<Record<string, string>>;
  /** See `McpServerConfig.inheritEnv`. */
  readonly inheritEnv?: boolean;
  readonly timeoutMs: number;
  readonly redactor: SecretRedactor;
  /**
   * The session it serves (a connection is shared within one only): its
   * calls' secret arguments are masked in the connection's errors and
   * stderr too (`in-flight-secrets.ts`).
   */
  readonly session: object;
  readonly handlers?: ClientHandlers;
  /** When `handlers` may not answer the server (see `installClientHandlers`). @default always may */
  readonly requestRefusal?: ServerRequestRefusal;
  readonly wrapCommand?: CommandWrapper;
  readonly reconnect?: ReconnectPolicy;
  /**
   * Asked before each attempt to open the connection again after it was
   * lost (not before the first connect): a rejection counts as a failed
   * attempt. A sandboxing route refuses here to start its server outside
   * the sandbox once the session, read from its store, is at that level.
   */
  readonly beforeReopen?: () => Promise<void>;
  /**
   * Asked right before each start of the server (the first connect and
   * every reopening), with nothing between the answer and the start: a
   * reason not to start it, which fails the attempt. A sandboxing route
   * refuses once the session reached the sandbox's level, which an
   * escalation in the same tick as `connect()` did.
   */
  readonly mayStart?: () => string | undefined;
  readonly listener?: ConnectionListener;
  readonly clientInfo?: { readonly name: string; readonly version: string };
}

const STDERR_TAIL_CHARS = 2_000;

/**
 * How often the processes a stdio server spawned are looked for while it
 * shuts down (the SDK gives it 2 s after its stdin ends, then 2 s after
 * SIGTERM): a process it starts then, in a session of its own, would leave
 * its group, and once the server is gone, its descendants too.
 */
const SHUTDOWN_WATCH_MS = 50;
const CLIENT_INFO = { name: 'mcp-sections', version: PACKAGE_VERSION };
/** The handshake also waits for a stdio child to start: a short call timeout must not fail it. */
const MIN_CONNECT_TIMEOUT_MS = 10_000;

/**
 * After `tools/list_changed`, a server is listed again at most once in
 * this long: a server that announces changes without end (each listing
 * different) would otherwise keep the client re-bridging its tools and
 * publishing `McpToolsChanged` as fast as it can answer.
 */
export const MIN_RELIST_INTERVAL_MS = 1_000;

/**
 * One MCP client connection to one server endpoint: connects, lists tools
 * (following `nextCursor`), calls tools with timeout, cancellation and
 * progress, follows `tools/list_changed`, and reconnects when the
 * connection is lost. Every message it produces is redacted.
 */
export class McpServerConnection {
  readonly serverName: string;
  readonly endpoint: Endpoint;
  #state: ConnectionState = 'idle';
  #listing: ToolListing = NO_TOOLS;
  #client: Client | undefined;
  #handle: TransportHandle | undefined;
  #transportType: string;
  #useSseFallback = false;
  #sessionsOpened = 0;
  #stderrTail = '';
  /** Whether the stderr tail lost its start: it may then begin inside a secret. */
  #stderrCut = false;
  #lastError: string | undefined;
  /** What the current client's transport errors said (see TransportErrorWatch). */
  #watch: TransportErrorWatch | undefined;
  /**
   * The connect or reconnect under way, which later callers join: a
   * connect is aborted only once every caller that waits for it gave up;
   * a reconnect by nobody.
   */
  #pending: SharedAttempt<void> | undefined;
  /** The application's handlers running for this server, whichever client asked. */
  readonly #runningHandlers: RunningHandlers = { count: 0 };
  /**
   * What the server may make the client read, across reconnections: a
   * server that floods and exits was reconnected 41 times in 15 s, each
   * time with a fresh burst.
   */
  readonly #readBudget = new ReadBudget();
  /** When the last listing after `tools/list_changed` began. */
  #relistedAt = Number.NEGATIVE_INFINITY;
  /**
   * Lists again after `tools/list_changed`, at most once in
   * {@link MIN_RELIST_INTERVAL_MS}; changes that arrive meanwhile make it
   * list once more.
   */
  readonly #refreshTools = coalesce(async () => {
    const wait = this.#relistedAt + MIN_RELIST_INTERVAL_MS - performance.now();
    if (wait > 0) await pause(wait, this.#closed.signal);
    if (this.#closed.signal.aborted) return;
    this.#relistedAt = performance.now();
    let tools: readonly McpToolDescription[];
    try {
      tools = await this.listTools();
    } catch {
      // A lost connection is reported by onclose; the next connect lists again.
      return;
    }
    this.#listeners.emit('toolsChanged', tools);
  });
  readonly #options: ServerConnectionOptions;
  readonly #listeners = new ConnectionListeners();
  /** Aborted by close(): ends a reconnection's wait, and tells attempts in flight they lost. */
  readonly #closed = new AbortController();
  /** Settles once close() has ended the connection and its process (see {@link ended}). */
  readonly #ended: Promise<void>;
  #markEnded: () => void = () => undefined;

  constructor(options: ServerConnectionOptions) {
    this.#options = options;
    if (options.listener !== undefined) this.#listeners.add(options.listener);
    this.serverName = options.serverName;
    this.endpoint = options.endpoint;
    this.#transportType = options.transport.type;
    this.#ended = new Promise((resolve) => {
      this.#markEnded = resolve;
    });
  }

  /**
   * Resolves once `close()` has ended the connection and what it started
   * (the server's process and its group); never while it may still run. A
   * pooled connection ends when its last holder releases it.
   */
  get ended(): Promise<void> {
    return this.#ended;
  }

  /** Adds a listener (a pool shares one connection among sections); returns its remover. */
  addListener(listener: ConnectionListener): () => void {
    return this.#listeners.add(listener);
  }

  /** Current lifecycle state. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** The tools the server listed, unchanged. */
  get tools(): readonly McpToolDescription[] {
    return this.#listing.tools;
  }

  /** The last listing whole: its tools, and what its read found of their input schemas. */
  get listing(): ToolListing {
    return this.#listing;
  }

  /** The transport in use (`sse` after a fallback from streamable HTTP). */
  get transportType(): string {
    return this.#transportType;
  }

  /** How many MCP sessions this connection has opened; a larger number means a newer session. */
  get sessionsOpened(): number {
    return this.#sessionsOpened;
  }

  /** The last connection error, redacted. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /**
   * Why the current client's transport closed itself, when it said so (a
   * stdio line past the read buffer): read as the calls on it fail.
   */
  get lostBecause(): string | undefined {
    return this.#watch?.closedBecause;
  }

  /** Process id of a stdio server, while it runs. */
  get pid(): number | null {
    return this.#handle?.pid() ?? null;
  }

  /**
   * Connects and lists the tools, or joins the connect or reconnect under
   * way. `signal` ends this caller's wait; the attempt itself ends early
   * only when every caller waiting for it gave up (another section on a
   * pooled connection, a health check), so one caller's cancellation or
   * time limit never fails another's connect.
   * @throws McpConnectionError when the server cannot be reached, or
   *   naming the signal's reason when this caller gave up first.
   */
  async connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#state === 'connected') return;
    let attempt = this.#pending;
    if (attempt?.abandoned === true) {
      // Every caller of that one gave up: it ends, and this caller starts anew.
      await attempt.promise.catch(() => undefined);
      return this.connect(options);
    }
    if (attempt === undefined) {
      if (this.#state === 'closed') throw this.#error('the connection was closed');
      this.#state = 'connecting';
      attempt = this.#begin((signal) => this.#open(false, signal));
    }
    return attempt.join(options.signal, (reason) =>
      this.#error(`cannot connect: ${this.#options.redactor.message(reason)}`, reason),
    );
  }

  /** Starts `run` as the attempt under way, until it settles. */
  #begin(
    run: (signal: AbortSignal) => Promise<void>,
    options: { pinned?: boolean } = {},
  ): SharedAttempt<void> {
    const attempt: SharedAttempt<void> = new SharedAttempt(
      (signal) =>
        run(signal).finally(() => {
          if (this.#pending === attempt) this.#pending = undefined;
        }),
      options,
    );
    this.#pending = attempt;
    return attempt;
  }

  /** Lists every tool, page by page; also refreshes {@link tools}. */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<readonly McpToolDescription[]> {
    return this.#list(await this.#ready(), options.signal);
  }

  async #list(
    client: Client,
    signal: AbortSignal | undefined,
  ): Promise<readonly McpToolDescription[]> {
    this.#listing = await listAllTools(client, {
      timeoutMs: this.#options.timeoutMs,
      signal,
      broken: (problem) => this.#error(problem),
    });
    return this.#listing.tools;
  }

  /**
   * Calls a tool by its wire name, now or not at all: while the connection
   * is (re)connecting nothing is sent (see {@link whenReady}). Its outcome
   * goes to `handlers` (by default: the result, or a rejection).
   * Failures: McpTimeoutError after the timeout (the server is told to
   * cancel); McpConnectionError when not ready; the SDK's McpError for
   * JSON-RPC errors; the signal's reason when aborted.
   */
  callTool<T = CallToolResult>(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
    handlers?: CallHandlers<T>,
  ): Promise<T> {
    // Sent only in the turn the caller decided in: a call that waited for a
    // (re)connect would go out after whatever changed meanwhile (an
    // escalation, a switch). A caller waits with whenReady() and decides again.
    const client = this.#client;
    if (!this.isReady || client === undefined) {
      const refused = Promise.reject(this.#notConnected());
      return handlers === undefined
        ? refused
        : refused.then(undefined, (error: unknown) => handlers.failed(error));
    }
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const call = { serverName: this.serverName, name, args };
    return sendToolCall(client, call, options, timeoutMs, handlers);
  }

  /** True when a call would be sent at once: connected, with no reconnect under way. */
  get isReady(): boolean {
    return this.#state === 'connected' && this.#pending === undefined && this.#client !== undefined;
  }

  /**
   * Resolves once a call could be sent at once (a connect or reconnect
   * under way has ended), sending nothing: a caller that waited checks
   * again what may have changed meanwhile before it sends.
   * @throws the signal's reason when it aborts first; McpTimeoutError
   *   after `timeoutMs`; McpConnectionError when the server is unavailable
   *   or the connection closed.
   */
  async whenReady(signal: AbortSignal | undefined, timeoutMs: number): Promise<void> {
    if (this.isReady && signal?.aborted !== true) return;
    await withDeadline(() => this.#ready(), {
      timeoutMs,
      signal,
      onTimeout: () => notReconnected(this.serverName, timeoutMs),
    });
  }

  /** Sends a ping; resolves when the server answers. */
  async ping(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const client = await this.#ready();
    await client.ping({
      timeout: options.timeoutMs ?? this.#options.timeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Drops the current connection, if any, and connects again. */
  async reconnect(): Promise<void> {
    if (this.#state === 'closed') throw this.#error('the connection was closed');
    if (this.#pending !== undefined) return this.#pending.promise;
    // A session given up while connected ends as a lost one does, announced before the new one.
    const wasConnected = this.#state === 'connected';
    this.#state = 'reconnecting';
    if (wasConnected) {
      this.#listeners.emit('disconnected', {
        expected: false,
        reason: 'the session was given up after a failure, and a new one is opened',
      });
    }
    return this.#begin(() => this.#retryOpen(), { pinned: true }).promise;
  }

  /** Closes the connection and its transport; idempotent. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#client !== undefined;
    this.#state = 'closed';
    this.#closed.abort();
    try {
      await this.#teardown();
    } finally {
      this.#markEnded();
    }
    if (wasOpen) this.#listeners.emit('disconnected', { expected: true });
  }

  async #ready(): Promise<Client> {
    if (this.#pending !== undefined) await this.#pending.promise.catch(() => undefined);
    if (this.#state === 'connected' && this.#client !== undefined) return this.#client;
    throw this.#notConnected();
  }

  /** Why nothing can be sent now. */
  #notConnected(): McpConnectionError {
    switch (this.#state) {
      case 'failed':
        return this.#error(
          `the server is unavailable${this.#lastError ? `: ${this.#lastError}` : ''}`,
        );
      case 'closed':
        return this.#error('the connection was closed');
      case 'idle':
        return this.#error('not connected; call connect() first');
      default:
        // Connecting, reconnecting, or connected while its tools are listed again.
        return this.#error(
          'nothing was sent: the connection is not ready; wait with whenReady() and decide again',
        );
    }
  }

  async #open(reconnect: boolean, signal?: AbortSignal): Promise<void> {
    try {
      await this.#openOnce(signal);
    } catch (error) {
      const fallback =
        !this.#useSseFallback &&
        this.#options.transport.type === 'streamable-http' &&
        this.#options.transport.sseFallback !== false &&
        error instanceof StreamableHTTPError &&
        (error.code === 404 || error.code === 405);
      if (!fallback) throw this.#connectFailure(error);
      // Only "this endpoint does not speak streamable HTTP" justifies the
      // legacy transport; 401/403 and network errors never do.
      this.#useSseFallback = true;
      try {
        await this.#openOnce(signal);
      } catch (sseError) {
        // Both failures count: a wrong path answers 404 to both, and the SSE one alone misled.
        throw this.#connectFailure(
          new Error(
            `the endpoint answered HTTP ${String(error.code)} to streamable HTTP, and the SSE fallback failed too: ${messageOf(sseError)}`,
            { cause: sseError },
          ),
        );
      }
    }
    if (this.#state === 'closed') {
      // close() won while this attempt was opening: what it opened goes too.
      await this.#teardown();
      throw this.#error('the connection was closed while it was opening');
    }
    this.#state = 'connected';
    this.#sessionsOpened += 1;
    this.#lastError = undefined;
    this.#listeners.emit('connected', {
      transport: this.#transportType,
      toolCount: this.#listing.tools.length,
      reconnect,
    });
    // Opened again (a reconnect, or a connect after the connection failed),
    // it listed the tools again, and a server may come back with others
    // (other hints, other schemas, tools added): as after a
    // tools/list_changed, before any call can be sent on the new session.
    if (this.#sessionsOpened > 1) this.#listeners.emit('toolsChanged', this.#listing.tools);
  }

  async #openOnce(signal?: AbortSignal): Promise<void> {
    await this.#teardown();
    this.#stderrTail = '';
    this.#stderrCut = false;
    this.#watch = undefined; // what an earlier client's transport said is no reason for this attempt
    const handlers = this.#options.handlers ?? {};
    const client = new Client(this.#options.clientInfo ?? CLIENT_INFO, {
      capabilities: capabilitiesFor(handlers),
      jsonSchemaValidator: clientSchemaValidator(),
    });
    installClientHandlers(client, {
      serverName: this.serverName,
      endpoint: this.endpoint,
      handlers,
      notifications: {
        toolListChanged: () => this.#refreshTools(),
        log: (message) => this.#listeners.emit('log', message),
      },
      running: this.#runningHandlers,
      ...(this.#options.requestRefusal === undefined
        ? {}
        : { refusal: this.#options.requestRefusal }),
    });
    const handle = await createTransport(this.#options.transport, {
      ...(this.#options.env === undefined ? {} : { env: this.#options.env }),
      ...(this.#options.inheritEnv === true ? { inheritEnv: true } : {}),
      ...(this.#options.wrapCommand === undefined
        ? {}
        : { wrapCommand: this.#options.wrapCommand }),
      useSseFallback: this.#useSseFallback,
      readBudget: this.#readBudget,
      onStderr: (chunk) => {
        const text = this.#stderrTail + chunk;
        // The cut may fall inside a secret: #describeExit then masks with redactTail.
        this.#stderrCut ||= text.length > STDERR_TAIL_CHARS;
        this.#stderrTail = text.slice(-STDERR_TAIL_CHARS);
      },
    });
    if (this.#state === 'closed') {
      await handle.dispose().catch(() => undefined);
      throw this.#error('the connection was closed while it was opening');
    }
    this.#client = client;
    this.#handle = handle;
    this.#transportType = handle.type;
    client.onclose = () => this.#onClientClosed(client);
    const watch = new TransportErrorWatch(client, {
      timeoutMs: this.#options.timeoutMs,
      isLive: () => client === this.#client && this.#state === 'connected',
    });
    this.#watch = watch;
    client.onerror = (error) => watch.onError(error);
    const handshakeMs = Math.max(this.#options.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
    try {
      // The SDK bounds only the initialize request: not the transport's start
      // (an SSE server that never names its endpoint) nor the initialized
      // notification (an HTTP server that never answers its POST). The
      // whole handshake is bounded here, and the caller's signal ends it.
      await withDeadline(
        (stop) => {
          const refused = this.#options.mayStart?.();
          if (refused !== undefined) throw this.#error(refused);
          const connecting = client.connect(handle.transport, {
            timeout: handshakeMs,
            signal: stop,
          });
          // The client has set its message handler by now: a call's last progress
          // must not be dropped when it arrives with the call's response.
          deliverInOrder(handle.transport);
          // A server's own requests can make the client hold only so many answers.
          limitServerRequests(handle.transport);
          // A request whose answer stream ends without its answer fails at once.
          handle.answers?.watch(handle.transport);
          // A server's unasked messages are read at a bounded rate.
          handle.budget?.count(handle.transport);
          // The child is spawned by now. Its pid is remembered: a failed handshake makes
          // the SDK drop its process handle, and the child and its own must still be ended.
          handle.pid();
          return connecting;
        },
        {
          timeoutMs: handshakeMs,
          signal,
          onTimeout: () =>
            new Error(
              `the handshake (initialize, and for SSE the endpoint event) did not finish within ${handshakeMs} ms`,
            ),
        },
      );
      await this.#list(client, signal);
    } catch (error) {
      // A child that never answered initialize is still running: end it and its own.
      await this.#teardown();
      throw error;
    }
  }

  #onClientClosed(client: Client): void {
    if (client !== this.#client) return; // an old client, already replaced
    this.#client = undefined;
    // The server is gone (a crash): what it spawned must not outlive it.
    const handle = this.#handle;
    const pid = handle?.pid() ?? null;
    if (pid !== null && handle?.processGroup === true) void endProcesses([], pid);
    if (this.#state !== 'connected') return; // closing on purpose, or still connecting
    const closedBecause = this.#watch?.closedBecause;
    const reason = this.#describeExit(
      `the connection was lost${closedBecause === undefined ? '' : `: ${closedBecause}`}`,
    );
    this.#lastError = reason;
    this.#listeners.emit('disconnected', { expected: false, reason });
    this.#state = 'reconnecting';
    const attempt = this.#begin(() => this.#retryOpen(), { pinned: true });
    // Waiters observe the outcome through #ready(); nothing else awaits this.
    attempt.promise.catch(() => undefined);
  }

  async #retryOpen(): Promise<void> {
    const policy = this.#options.reconnect ?? DEFAULT_RECONNECT;
    let lastError: unknown;
    for (let attempt = 0; attempt < policy.attempts; attempt += 1) {
      await pause(reconnectDelayMs(policy, attempt), this.#closed.signal);
      if (this.#state === 'closed') throw this.#error('the connection was closed');
      try {
        await this.#options.beforeReopen?.();
        // Closed while it was asked (a sandboxing route lets go of its normal side).
        if (this.#closed.signal.aborted) throw this.#error('the connection was closed');
        await this.#open(true);
        return;
      } catch (error) {
        lastError = error;
      }
    }
    if (this.#state === 'closed') throw this.#error('the connection was closed');
    this.#state = 'failed';
    const reason =
      policy.attempts === 0
        ? 'the connection was lost, and reconnection is off (reconnect.attempts is 0)'
        : `gave up after ${policy.attempts} reconnection attempts: ${this.#masked(this.#options.redactor.message(lastError))}`;
    this.#lastError = reason;
    this.#listeners.emit('failed', { reason });
    throw this.#error(reason, lastError);
  }

  async #teardown(): Promise<void> {
    const client = this.#client;
    const handle = this.#handle;
    this.#client = undefined;
    this.#handle = undefined;
    // Taken before closing, and again while the server shuts down (it may
    // spawn a process of its own session when its stdin ends, or on SIGTERM):
    // once the server is gone, its children are orphans, no longer found.
    const pid = handle?.pid() ?? null;
    const spawned = new Set(pid === null ? [] : descendants(pid));
    const watch =
      pid === null
        ? undefined
        : setInterval(() => {
            for (const child of descendants(pid)) spawned.add(child);
          }, SHUTDOWN_WATCH_MS);
    try {
      if (client !== undefined) await client.close().catch(() => undefined);
      else if (handle !== undefined) await handle.transport.close().catch(() => undefined);
    } finally {
      clearInterval(watch);
    }
    if (handle !== undefined) await handle.dispose().catch(() => undefined);
    // The SDK ended the server itself (and Node reaped it, so its pid is not ours
    // to signal any more); what it spawned is ended here.
    if (pid !== null) {
      await endProcesses([...spawned], handle?.processGroup === true ? pid : undefined);
    }
  }

  #connectFailure(error: unknown): McpConnectionError {
    if (this.#state !== 'closed') this.#state = 'failed';
    // An error this connection already made names the server: keep only its reason.
    const own = error instanceof McpConnectionError && error.serverName === this.serverName;
    const said = withHttpStatus(error);
    const unread = this.#watch?.unreadLines;
    // A handshake or listing whose answer never came (see lost-answers.ts) says why.
    const lost = lostAnswerReason((error as { data?: unknown } | null | undefined)?.data);
    const reason = this.#describeExit(
      (this.#watch?.closedBecause ??
        (own
          ? error.reason
          : (sdkRefusedMessage(said) ?? this.#options.redactor.message(withCauses(said))))) +
        (lost === undefined ? '' : ` (${this.#options.redactor.redact(lost)})`) +
        (unread === undefined ? '' : `; ${unread}`),
    );
    this.#lastError = reason;
    return this.#error(`cannot connect: ${reason}`, error);
  }

  #describeExit(said: string): string {
    const { redactor } = this.#options;
    // A server that fails over a call's secret argument may write it as it
    // goes (`bad password hunter2`), in its error or its stderr: masked as
    // in its log while it is in flight, or settled within the grace.
    const calls = this.#callSecrets();
    const reason = calls === undefined ? said : calls(said);
    // A tail cut from a longer stream may begin inside a secret, in any of
    // its forms: its cut first line is dropped (the whole tail, when it has
    // no line break), and redactTail masks what is left of a secret that
    // spans lines.
    const firstBreak = this.#stderrTail.indexOf('\n');
    if (this.#stderrCut && firstBreak < 0) {
      return `${reason} (server stderr: its last line is longer than ${STDERR_TAIL_CHARS} characters, not shown)`;
    }
    // The session's calls' secrets first, on the tail as it came: a multi-line
    // one (a PEM key) may begin before the cut.
    const callsTail = this.#stderrCut ? callSecretsInFlightTail(this.#options.session) : calls;
    const kept = this.#stderrCut ? this.#stderrTail.slice(firstBreak + 1) : this.#stderrTail;
    const callsMasked = callsTail === undefined ? kept : callsTail(kept);
    const tail = (
      this.#stderrCut ? redactor.redactTail(callsMasked) : redactor.redact(callsMasked)
    ).trim();
    if (tail.length === 0) return reason;
    const lastLines = tail.split('\n').slice(-5).join('\n');
    return `${reason} (server stderr: ${lastLines})`;
  }

  /** What masks the secret arguments of the session's calls in flight, if any. */
  #callSecrets(): ((text: string) => string) | undefined {
    return callSecretsInFlight(this.#options.session);
  }

  /** `text` without the server's secrets, nor the session's calls' secret arguments. */
  #masked(text: string): string {
    const calls = this.#callSecrets();
    const masked = this.#options.redactor.redact(text);
    return calls === undefined ? masked : calls(masked);
  }

  #error(message: string, cause?: unknown): McpConnectionError {
    const reason = this.#masked(message);
    return new McpConnectionError(
      this.serverName,
      this.#transportType,
      `server "${this.serverName}" (${this.#transportType}${this.endpoint === 'isolated' ? ', isolated' : ''}): ${reason}`,
      {
        reason,
        // The cause may hold secrets (a URL with a token, headers): keep only a redacted copy.
        ...(cause === undefined
          ? {}
          : { cause: new Error(this.#masked(this.#options.redactor.message(cause))) }),
      },
    );
  }
}

/** A failure's message that names no reason: what its cause says is added. */
const TERSE_MESSAGE = /^(?:TypeError: )?fetch failed$/;

/**
 * `error` with what its causes say added to its message, where the message
 * does not say it already: `fetch` fails with "fetch failed" and keeps
 * "connect ECONNREFUSED 127.0.0.1:8080" in its cause.
 */
function withCauses(error: unknown): unknown {
  if (!(error instanceof Error) || !(error.cause instanceof Error)) return error;
  // Only a message that says nothing of its own (the CLI's fetch already says where and why).
  if (!TERSE_MESSAGE.test(error.message)) return error;
  let message = error.message;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth++, cause = cause.cause) {
    if (cause.message.length > 0 && !message.includes(cause.message))
      message = `${message}: ${cause.message}`;
  }
  return new Error(message);
}

/** An error's reason without the server's name, which the caller's text already gives. */
export function failureReason(error: unknown): string {
  if (error instanceof McpConnectionError) return error.reason;
  return messageOf(error);
}

/** The error of a call that waited `timeoutMs` for its server to be connected again. */
export function notReconnected(serverName: string, timeoutMs: number): McpTimeoutError {
  return new McpTimeoutError(
    serverName,
    timeoutMs,
    `server "${serverName}" was not connected again within ${timeoutMs} ms`,
  );
}

/**
 * A streamable-HTTP failure with the status its answer had: the SDK's
 * message gives the body alone (`Error POSTing to endpoint: …`), and a 401
 * read like a server's own error.
 */
function withHttpStatus(error: unknown): unknown {
  if (!(error instanceof StreamableHTTPError) || (error.code ?? 0) < 400) return error;
  const prefix = 'Streamable HTTP error: Error POSTing to endpoint: ';
  if (!error.message.startsWith(prefix)) return error;
  const hint = error.code === 401 || error.code === 403 ? ' (check its credentials)' : '';
  return new Error(
    `the endpoint answered HTTP ${String(error.code)}${hint}: ${error.message.slice(prefix.length)}`,
    { cause: error },
  );
}
