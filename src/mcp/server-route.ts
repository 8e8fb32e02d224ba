import { withDeadline } from '../core/deadline.js';
import { McpConnectionError, McpTimeoutError } from '../core/errors.js';
import { atLeast, type DataSensitivity, sensitivityRank } from '../core/sensitivity.js';
import { launchSandbox, type SandboxLaunch } from '../isolation/sandbox-launch.js';
import { compareToolLists } from './endpoint-check.js';
import type { McpConnectionPool } from './connection-pool.js';
import {
  clearForIsolatedWrites,
  endsWithin,
  NORMAL_END_MS,
  noteStopping,
  stoppingEnds,
  workingDirectoryOf,
} from './local-processes.js';
import { routeConnection } from './route-connection.js';
import type { ClientHandlers, ServerRequestRefusal } from './client-handlers.js';
import { DEFAULT_TIMEOUT_MS, type ResolvedServerConfig } from '../config/server-config.js';
import type { SecretRedactor } from './redact.js';
import { callSecretsInFlight } from './in-flight-secrets.js';
import type { CommandWrapper } from '../isolation/command-line.js';
import type { RouteListener } from './route-listener.js';
import type { ToolListing } from './requests.js';
import type {
  Endpoint,
  McpServerConnection,
  McpToolDescription,
  ReconnectPolicy,
} from './server-connection.js';

/** How a server is isolated once the session reaches its threshold. */
export type IsolationMode = 'endpoint' | 'sandbox';

/**
 * Where a route sends calls: `normal` until the session reaches the
 * threshold, then `switching` (calls wait), then `isolated` or
 * `fail-closed`. There is no edge back to `normal`; `fail-closed` and
 * `isolated` may trade places as the isolated side breaks and recovers.
 */
export type IsolationPhase = 'normal' | 'switching' | 'isolated' | 'fail-closed';

/** Options of {@link ServerRoute}. */
export interface ServerRouteOptions {
  readonly config: ResolvedServerConfig;
  readonly redactor: SecretRedactor;
  readonly handlers: ClientHandlers;
  /** Whose data decides whether `handlers` may answer the server. */
  readonly session: object;
  /**
   * When `handlers` may not answer the normal endpoint: its answers carry
   * what the session knows to a deployment that is not isolated. The
   * isolated endpoint and the sandbox are always answered.
   */
  readonly normalEndpointRefusal?: ServerRequestRefusal;
  readonly reconnect?: ReconnectPolicy;
  /**
   * The session's level now, read from its store first when it has one
   * (loaded, then synced): asked before the route starts any process, at
   * connect and before a lost normal connection of a sandboxing route is
   * opened again, so that a level another worker stored decides which.
   * @throws when the store cannot be read: nothing is started (fail closed).
   */
  readonly levelNow?: (signal?: AbortSignal) => Promise<DataSensitivity>;
  readonly listener: RouteListener;
  /** Share connections with other sections of the session. */
  readonly pool?: McpConnectionPool;
}

/**
 * Everything a section holds for one server: its normal connection, its
 * isolated one (a second deployment, or the same stdio server restarted in
 * a sandbox), and the one-way switch between them.
 */
export class ServerRoute {
  readonly config: ResolvedServerConfig;
  readonly timeoutMs: number;
  /** The level at which calls switch, or undefined without isolation. */
  readonly isolateAt: DataSensitivity | undefined;
  readonly mode: IsolationMode | undefined;
  #normal: McpServerConnection;
  #isolated: McpServerConnection | undefined;
  /** Where calls go; it only ever moves forward (see {@link IsolationPhase}). */
  #phase: IsolationPhase = 'normal';
  /** The switch while it runs (phase `switching`); cleared once it has settled. */
  #switching: Promise<void> | undefined;
  /**
   * What is wrong with the isolated side, once known (possibly before the
   * switch: an endpoint down at `connect()`). From the switch on it makes
   * the route fail closed; {@link recoverIsolation} can clear it.
   */
  #problem: string | undefined;
  /** Whether {@link #problem} quotes a server's words, which may carry the session's data. */
  #problemQuotesServer = false;
  /** The sandbox's proxy and temporary files, while the sandboxed server runs. */
  #sandbox: SandboxLaunch | undefined;
  /** The highest sensitivity this route has been told of. */
  #level: DataSensitivity = 'public';
  #inflight = 0;
  #closed = false;
  readonly #releases = new Map<McpServerConnection, () => Promise<void>>();
  #drained: (() => void) | undefined;
  readonly #options: ServerRouteOptions;

  constructor(options: ServerRouteOptions) {
    const { config } = options;
    this.#options = options;
    this.config = config;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.isolateAt =
      config.isolation === undefined ? undefined : (config.isolation.at ?? 'confidential');
    this.mode =
      config.isolation === undefined
        ? undefined
        : config.isolation.transport !== undefined
          ? 'endpoint'
          : 'sandbox';
    this.#normal = this.#connection('normal', config.transport);
    if (config.isolation?.transport !== undefined) {
      this.#isolated = this.#connection('isolated', config.isolation.transport);
    }
  }

  get name(): string {
    return this.config.name;
  }

  /**
   * Whether the switch stops the normal deployment for good: a sandboxing
   * route's server, or a normal deployment that is a local process.
   */
  get #stopsNormal(): boolean {
    return (
      this.mode === 'sandbox' ||
      (this.mode === 'endpoint' && this.config.transport.type === 'stdio')
    );
  }

  /** True once calls go to the isolated endpoint or sandbox. */
  get switched(): boolean {
    return this.#phase !== 'normal';
  }

  /** See {@link IsolationPhase}. */
  get phase(): IsolationPhase {
    return this.#phase;
  }

  /** Why calls fail closed, when they do (only once switched: before, the normal connection serves). */
  get failClosedReason(): string | undefined {
    return this.#phase === 'fail-closed' ? this.#problem : undefined;
  }

  /**
   * Whether {@link failClosedReason} quotes what a server sent (its error,
   * its stderr, its tools), or is the library's own words.
   */
  get failClosedQuotesServer(): boolean {
    return this.#problemQuotesServer;
  }

  /**
   * `text` without this server's secrets, nor the secret arguments of the
   * session's calls in flight or within their grace (`in-flight-secrets.ts`).
   */
  redact(text: string): string {
    const calls = callSecretsInFlight(this.#options.session);
    const masked = this.#options.redactor.redact(text);
    return calls === undefined ? masked : calls(masked);
  }

  /** What masks this server's secrets, for data as well as text. */
  get redactor(): SecretRedactor {
    return this.#options.redactor;
  }

  /**
   * The connection of `endpoint` (the isolated one: the second deployment
   * or the sandbox, once made), whatever calls use now: to look at one side
   * (its process, its state).
   */
  connectionAt(endpoint: Endpoint): McpServerConnection | undefined {
    return endpoint === 'normal' ? this.#normal : this.#isolated;
  }

  /** The connection calls use now. */
  get active(): McpServerConnection {
    return this.#phase !== 'normal' && this.#isolated !== undefined ? this.#isolated : this.#normal;
  }

  /** Settles when no switch to isolation is under way (at once when none is). */
  async switchSettled(): Promise<void> {
    await this.#switching;
  }

  /**
   * The connection a health check keeps up: the one calls use, or none
   * once a sandboxed route fails closed (its normal process is stopped for
   * good, and a sandbox that could not be made is not made again). Ask
   * after {@link switchSettled}: during a switch it is the side being left.
   */
  get upkeep(): McpServerConnection | undefined {
    if (this.mode === 'sandbox' && this.#phase === 'fail-closed') return undefined;
    return this.active;
  }

  /** The server's tools as listed by the active connection. */
  get tools(): readonly McpToolDescription[] {
    return this.active.tools;
  }

  /** The active connection's listing whole: its tools, and what its read found of their schemas. */
  get listing(): ToolListing {
    return this.active.listing;
  }

  /**
   * Opens the normal connection and, for an isolated deployment, the
   * isolated one too, so the switch needs no reconnection; checks that both
   * offer the same tools. Once a sandboxed route has switched, opens the
   * sandboxed server only; failing closed, nothing (see
   * {@link failClosedReason}).
   *
   * @throws McpConnectionError when the normal connection cannot be opened.
   */
  async connect(signal?: AbortSignal): Promise<void> {
    // The level first: a session that holds private data starts no server
    // outside its isolation, not even for the handshake.
    await this.#noteLevelNow(signal);
    // A sandboxed route that has switched never starts its server unsandboxed
    // again (a server unavailable since connect() is tried again here).
    if (this.#stopsNormal && this.#phase !== 'normal') return this.#connectSwitched(signal);
    const isolated = this.#isolated;
    const [normal, second] = await Promise.allSettled([
      this.#normal.connect(signal ? { signal } : {}),
      isolated?.connect(signal ? { signal } : {}),
    ]);
    // Switched while the normal side opened (the session escalated meanwhile):
    // the isolated side is the server now, and the normal side's failure is its doing.
    if (this.#stopsNormal && this.#phase !== 'normal') return this.#connectSwitched(signal);
    // A normal endpoint that failed is tried again by the health monitor, with the
    // isolated one kept for it (close() releases both).
    if (normal.status === 'rejected') throw normal.reason;
    if (isolated === undefined) return;
    if (second.status === 'rejected') {
      this.#failClose(
        `the isolated endpoint cannot be reached: ${this.#options.redactor.message(second.reason)}`,
      );
      return;
    }
    const difference = compareToolLists(this.#normal.tools, isolated.tools);
    if (difference !== undefined)
      this.#failClose(`the isolated endpoint does not offer the same tools: ${difference}`);
  }

  /** Connects a sandboxed route that has switched: its sandboxed server, once the switch is done. */
  async #connectSwitched(signal?: AbortSignal): Promise<void> {
    await this.#switching;
    if (this.#phase === 'isolated') await this.#isolated?.connect(signal ? { signal } : {});
  }

  /** Starts the switch when `sensitivity` reached the threshold; never switches back. */
  noteSensitivity(sensitivity: DataSensitivity): void {
    // Every call passes here: the common one, at the level already noted, ranks nothing.
    if (
      sensitivity !== this.#level &&
      sensitivityRank(sensitivity) > sensitivityRank(this.#level)
    ) {
      this.#level = sensitivity;
      // What the sandbox's proxy let through at the old level is held to the new one.
      this.#sandbox?.levelRaised();
    }
    if (this.isolateAt === undefined || this.#phase !== 'normal') return;
    if (!atLeast(sensitivity, this.isolateAt)) return;
    if (this.#closed) {
      // Nothing is started for a closed route (a tool kept from before a disconnect).
      this.#problem ??= 'the route was closed before it could switch';
      this.#phase = 'fail-closed';
      return;
    }
    this.#phase = 'switching';
    // Never rejects: failures surface through failClosedReason.
    this.#switching = this.#switch()
      .catch((error: unknown) => {
        this.#failClose(`the switch failed: ${this.#options.redactor.message(error)}`);
        if (this.#phase === 'switching' && !this.#closed) this.#failSwitch();
      })
      .finally(() => {
        // A switch that ended without a verdict (closed meanwhile) is closed for calls.
        if (this.#phase === 'switching') {
          this.#problem ??= 'the route was closed while it was switching';
          this.#phase = 'fail-closed';
        }
        this.#switching = undefined;
      });
  }

  /**
   * The connection for the next call when it is known without waiting (no
   * switch under way, not failing closed); otherwise undefined, and
   * {@link connectionFor} waits.
   */
  connectionNow(sensitivity: DataSensitivity): McpServerConnection | undefined {
    this.noteSensitivity(sensitivity);
    if (this.#phase === 'switching' || this.#phase === 'fail-closed') return undefined;
    return this.active;
  }

  /**
   * The connection for the next call, after any switch in progress.
   * @throws McpConnectionError when the server fails closed.
   */
  async connectionFor(sensitivity: DataSensitivity): Promise<McpServerConnection> {
    this.noteSensitivity(sensitivity);
    if (this.#switching !== undefined) await this.#switching;
    // A broken isolated endpoint found at connect() matters from the switch on.
    if (this.#phase === 'fail-closed') {
      throw new McpConnectionError(
        this.name,
        this.active.transportType,
        `calls to server "${this.name}" are refused (fail closed): ${this.#problem ?? 'unknown reason'}`,
      );
    }
    return this.active;
  }

  /**
   * Makes sure the next call runs on a fresh MCP session: waits for a
   * reconnection already under way, or starts one. `failedSession` is the
   * active connection's `sessionsOpened` when the call failed: a connection
   * that has reconnected by itself since then is not torn down again.
   */
  async renewSession(failedSession?: number): Promise<void> {
    const connection = this.active;
    const wasReconnecting = connection.state === 'reconnecting';
    if (wasReconnecting) await connection.connect().catch(() => undefined);
    // Read again after the await: the state has moved on meanwhile.
    const connected = (): boolean => connection.state === 'connected';
    if (wasReconnecting && connected()) return;
    const renewed = failedSession !== undefined && connection.sessionsOpened > failedSession;
    if (renewed && connected()) return;
    await connection.reconnect();
  }

  /**
   * Compares the two endpoints' tool lists again, after either changed: an
   * isolated deployment that now offers other tools (more, fewer, other
   * schemas) than the normal one makes the route fail closed, as at
   * `connect()`. {@link recoverIsolation} lifts it once they match again.
   */
  checkIsolatedTools(): void {
    const isolated = this.#isolated;
    if (this.mode !== 'endpoint' || isolated === undefined || isolated.state !== 'connected')
      return;
    // A normal endpoint that never listed (down since connect()) has nothing
    // to compare with: connect() compares once it answers.
    if (this.#normal.sessionsOpened === 0) return;
    const difference = compareToolLists(this.#normal.tools, isolated.tools);
    if (difference !== undefined) {
      this.#failClose(`the isolated endpoint does not offer the same tools: ${difference}`);
    }
  }

  /** How many calls are on the wire now. */
  get inflight(): number {
    return this.#inflight;
  }

  /**
   * Tries again an isolated endpoint that made the route fail closed at
   * `connect()` (down, or offering other tools): once it answers with the
   * same tools as the normal endpoint, calls after the switch go to it.
   * A sandbox that could not be made is not retried.
   *
   * @returns true when the route no longer fails closed.
   */
  async recoverIsolation(signal?: AbortSignal): Promise<boolean> {
    const isolated = this.#isolated;
    if (this.#problem === undefined) return true;
    if (this.mode !== 'endpoint' || isolated === undefined || this.#closed) return false;
    try {
      if (isolated.state !== 'connected') await isolated.connect(signal ? { signal } : {});
    } catch {
      return false;
    }
    if (compareToolLists(this.#normal.tools, isolated.tools) !== undefined) return false;
    if (this.#phase === 'fail-closed') {
      // Switched: as a switch would, only with the normal process gone and the directory clear.
      if (this.#stopsNormal && !(await endsWithin(this.#normal.ended, 0))) return false;
      if ((await this.#clearForWrites(this.#isolatedDirectory)) !== undefined) return false;
      if (this.#closed || this.#phase !== 'fail-closed') return false;
    }
    this.#problem = undefined;
    this.#problemQuotesServer = false;
    if (this.#phase === 'fail-closed') this.#phase = 'isolated';
    // The tools offered were kept from before the endpoints differed: its list counts again.
    this.#options.listener.isolationRecovered();
    return true;
  }

  /**
   * Counts a call as in flight, so a sandbox restart waits for it; the
   * caller must call {@link ServerRoute.callSettled} once it settles.
   */
  callStarted(): void {
    this.#inflight += 1;
  }

  /** Ends what {@link ServerRoute.callStarted} began. */
  callSettled(): void {
    this.#inflight -= 1;
    if (this.#inflight === 0) this.#drained?.();
  }

  /** Closes every connection; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    // A sandbox restart under way must not start a process after this: stop
    // its wait for calls in flight and let it see the flag before releasing.
    this.#drained?.();
    await this.#switching;
    await Promise.all([
      this.#release(this.#normal),
      this.#isolated && this.#release(this.#isolated),
    ]);
    await this.#sandbox?.dispose();
    this.#sandbox = undefined;
    // Nothing reaches the listener any more: what the rates held back is told now.
    this.#options.listener.closed();
  }

  async #switch(): Promise<void> {
    // A local process on either side: the normal one is stopped, the directory checked.
    if (this.mode === 'endpoint' && (this.#stopsNormal || this.#isolatedDirectory !== undefined)) {
      await this.#switchEndpoint();
      return;
    }
    if (this.#problem !== undefined) {
      // Failing closed, a sandboxing route's server still never runs unsandboxed again.
      if (this.#stopsNormal) await this.#stopNormal();
      this.#failSwitch();
      return;
    }
    if (this.mode === 'endpoint') {
      // Between two remote deployments nothing is waited for: calls go to the isolated one at once.
      this.#phase = 'isolated';
      this.#options.listener.isolated('endpoint');
      return;
    }
    // Sandbox: restart the stdio server under bubblewrap (see docs/isolation.md).
    // (Config validation already refuses other transports without isolation.transport.)
    if (this.config.transport.type !== 'stdio') {
      this.#failClose(
        `server "${this.name}" (${this.config.transport.type}) has no isolation.transport, and only stdio servers can be sandboxed`,
        'own',
      );
      this.#failSwitch();
      return;
    }
    // The server is never run unsandboxed again, whether a sandbox can be made
    // or not: its connection goes as soon as the calls on it have settled
    // (they finish on the old process), while the sandbox is made. Held
    // longer, a crash would have it started again by its own reconnection.
    const normalStopped = this.#stopNormal();
    let launch: SandboxLaunch | { readonly unavailable: string };
    let stopped: string | undefined;
    try {
      launch = await launchSandbox({
        serverName: this.name,
        transport: this.config.transport,
        isolation: this.config.isolation,
        level: () => this.#level,
        onDenied: (host, port, reason) => this.#options.listener.networkDenied(host, port, reason),
      });
    } finally {
      stopped = await normalStopped;
    }
    if ('unavailable' in launch || stopped !== undefined) {
      if ('unavailable' in launch) this.#failClose(launch.unavailable, 'own');
      else await launch.dispose();
      if (stopped !== undefined) this.#failClose(stopped, 'own');
      this.#failSwitch();
      return;
    }
    this.#sandbox = launch;
    // No sandbox of the session starts while an unsandboxed process of it that
    // is being stopped still runs (two sections of one session with one
    // server), nor while one that is not being stopped runs where it writes.
    await Promise.all(stoppingEnds(this.#options.session));
    // Bubblewrap writes on the host in the declared workspace only; `unshare` where it runs.
    const { transport } = this.config;
    const writes =
      transport.type !== 'stdio' || (launch.writes === 'workspace' && transport.cwd === undefined)
        ? undefined
        : workingDirectoryOf(transport);
    const refused = await this.#clearForWrites(writes);
    if (refused !== undefined) {
      this.#sandbox = undefined;
      await launch.dispose();
      this.#failClose(refused, 'own');
      this.#failSwitch();
      return;
    }
    if (this.#closed) return;
    const sandboxed = this.#connection('isolated', this.config.transport, launch.wrap);
    try {
      await sandboxed.connect();
    } catch (error) {
      await this.#release(sandboxed);
      this.#failClose(
        `the sandboxed server did not start: ${this.#options.redactor.message(error)}`,
      );
      this.#failSwitch();
      return;
    }
    if (this.#closed) {
      // Closed while the sandboxed server started: it goes, and nothing is announced.
      await this.#release(sandboxed);
      return;
    }
    this.#isolated = sandboxed;
    this.#phase = 'isolated';
    this.#options.listener.isolated('sandbox');
  }

  /**
   * The switch to an isolated deployment. A normal deployment that is a
   * local process (stdio) is stopped first, as a sandboxing route stops
   * its server, and never started again: it could read what an isolated
   * deployment writes in a directory they share, and send it out.
   */
  async #switchEndpoint(): Promise<void> {
    // Stopped even when the switch fails closed: the normal side serves no call again.
    const stopped = this.#stopsNormal ? await this.#stopNormal() : undefined;
    if (this.#closed) return;
    if (stopped !== undefined) this.#failClose(stopped, 'own');
    if (this.#problem === undefined) {
      const refused = await this.#clearForWrites(this.#isolatedDirectory);
      if (this.#closed) return;
      if (refused !== undefined) this.#failClose(refused, 'own');
    }
    if (this.#problem !== undefined) {
      this.#failSwitch();
      return;
    }
    this.#phase = 'isolated';
    this.#options.listener.isolated('endpoint');
  }

  /**
   * Stops the normal connection for good once the calls on it have settled
   * (they finish on the old process), and waits for its process to end.
   * Other isolated sides of the session wait for that end, as the process
   * may live on meanwhile: its kill grace, or pooled for another section
   * that isolates it the same way and is switching too, whose calls in
   * flight finish first (each within its timeout, or its total timeout
   * while it reports progress). The wait is bounded by those, plus
   * {@link NORMAL_END_MS}.
   *
   * @returns why the switch cannot go on (the process did not end in
   *   time: another holder keeps it), or undefined once it has ended.
   */
  #stopNormal(): Promise<string | undefined> {
    const normal = this.#normal;
    const boundMs = Math.max(this.timeoutMs, this.config.maxTotalTimeoutMs ?? 0) + NORMAL_END_MS;
    const ended = this.#waitForInflight()
      .then(() => this.#release(normal))
      .then(() => endsWithin(normal.ended, boundMs));
    noteStopping(
      this.#options.session,
      normal,
      ended.then(() => undefined),
    );
    return ended.then((done) =>
      done
        ? undefined
        : `the normal process of server "${this.name}" did not end within ${boundMs} ms of its release, so its isolated side is not used beside it`,
    );
  }

  /**
   * Waits until the isolated side may write in `directory` (see
   * `local-processes.ts`): why it may not, or undefined when it may, or
   * when it writes nowhere that is checked.
   */
  async #clearForWrites(directory: string | undefined): Promise<string | undefined> {
    if (directory === undefined) return undefined;
    return clearForIsolatedWrites(this.#options.session, this.name, directory);
  }

  /**
   * Where an isolated deployment that is a local process writes: its
   * declared `cwd` (one without a `cwd` is not checked: where a container
   * mounts is its own). Undefined for a remote one.
   */
  get #isolatedDirectory(): string | undefined {
    const transport = this.config.isolation?.transport;
    if (transport?.type !== 'stdio' || transport.cwd === undefined) return undefined;
    return workingDirectoryOf(transport);
  }

  /** Ends a switch as fail-closed, with the problem already recorded. */
  #failSwitch(): void {
    this.#phase = 'fail-closed';
    this.#options.listener.isolationFailed(this.#problem ?? 'unknown reason');
  }

  async #waitForInflight(): Promise<void> {
    if (this.#inflight === 0) return;
    // Calls in flight finish on the old process; a bound keeps a hung call from blocking forever.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.timeoutMs);
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#drained = undefined;
  }

  /**
   * Records what is wrong with the isolated side; once isolated, calls stop
   * at once. `words`: whose the reason is, the library's alone or quoting
   * what a server sent (an error, its stderr, its tools).
   */
  #failClose(reason: string, words: 'own' | 'quoting a server' = 'quoting a server'): void {
    if (this.#problem === undefined) {
      this.#problem = this.redact(reason);
      this.#problemQuotesServer = words !== 'own';
    }
    if (this.#phase === 'isolated') this.#phase = 'fail-closed';
  }

  #connection(
    endpoint: Endpoint,
    transport: ResolvedServerConfig['transport'],
    wrapCommand?: CommandWrapper,
  ): McpServerConnection {
    const opened = routeConnection({
      config: this.config,
      endpoint,
      transport,
      timeoutMs: this.timeoutMs,
      redactor: this.#options.redactor,
      handlers: this.#options.handlers,
      session: this.#options.session,
      ...(endpoint === 'normal' && this.#options.normalEndpointRefusal !== undefined
        ? { requestRefusal: this.#options.normalEndpointRefusal }
        : {}),
      reconnect: this.#options.reconnect,
      ...(endpoint === 'normal' && this.#stopsNormal
        ? {
            beforeReopen: () => this.#beforeNormalReopens(),
            mayStart: () =>
              this.#phase === 'normal'
                ? undefined
                : `the session's private data reached the isolation level of "${this.name}", so it is not started outside its isolation`,
          }
        : {}),
      pool: this.#options.pool,
      listener: this.#options.listener.connection(endpoint),
      ...(wrapCommand === undefined ? {} : { wrapCommand }),
    });
    this.#releases.set(opened.connection, () => opened.release());
    return opened.connection;
  }

  /**
   * Refuses to start the normal (unsandboxed) process again once the
   * session is at the sandbox's level, as another worker may have made it
   * while the server was down: the level is read first.
   */
  async #beforeNormalReopens(): Promise<void> {
    await this.noteLevelNow();
    if (this.#phase !== 'normal') {
      throw new McpConnectionError(
        this.name,
        this.config.transport.type,
        `server "${this.name}" is not started again outside its isolation: the session is at its isolation level`,
      );
    }
  }

  /**
   * Notes the session's level as {@link ServerRouteOptions.levelNow} reads
   * it, within the route's timeout, as a call is bounded: a store that
   * never answers must not hold a reconnection or a listing for ever.
   * @throws McpTimeoutError past it; the store's error when it cannot be read.
   */
  async noteLevelNow(): Promise<void> {
    await withDeadline((signal) => this.#noteLevelNow(signal), {
      timeoutMs: this.timeoutMs,
      onTimeout: () =>
        new McpTimeoutError(
          this.name,
          this.timeoutMs,
          `the session's level could not be read within ${this.timeoutMs} ms`,
        ),
    });
  }

  /** Notes the session's level as {@link ServerRouteOptions.levelNow} reads it. */
  async #noteLevelNow(signal?: AbortSignal): Promise<void> {
    const levelNow = this.#options.levelNow;
    if (levelNow !== undefined) this.noteSensitivity(await levelNow(signal));
  }

  async #release(connection: McpServerConnection): Promise<void> {
    const release = this.#releases.get(connection);
    this.#releases.delete(connection);
    if (release !== undefined) await release();
  }
}
