/**
 * A group of MCP servers used together: it connects them, bridges their
 * tools into validated, session-aware tools under prefixed names, routes
 * calls (normal or isolated), and runs tools by the names text-protocol
 * agents use. `McpIntegrationSection` renders one for the model; a group
 * also works without a prompt (a worker, a CLI, a test).
 */
import { atLeast, type DataSensitivity } from '../core/sensitivity.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { parseServerConfigs, withDefaultIsolation } from '../config/parse-server-configs.js';
import type {
  McpIsolationConfig,
  McpServerConfig,
  ResolvedServerConfig,
} from '../config/server-config.js';
import { McpConnectionError } from '../core/errors.js';
import { SharedAttempt } from '../core/shared-attempt.js';
import { SensitivityEscalated } from '../runtime/events.js';
import type { Session } from '../runtime/session.js';
import { shownOriginalName } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';
import type { McpTool } from './bridge-tool.js';
import type { ClientHandlers } from './client-handlers.js';
import { McpConnectionPool } from './connection-pool.js';
import { McpServerUnavailable, McpToolsChanged } from './events.js';
import { executeByName, type ExecuteOptions, type ExecuteRequest } from './execute.js';
import { checkGroupOptions, GROUP_OPTION_KEYS } from './group-options.js';
import type { UnavailableServer } from './inventory.js';
import { SecretRedactor } from './redact.js';
import { serverTextLine } from './server-text.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import { routeListener } from './route-listener.js';
import { failureReason, type Endpoint, type ReconnectPolicy } from './server-connection.js';
import { DEFAULT_SERVER_LOG_LEVEL } from './server-log.js';
import { ServerRoute } from './server-route.js';
import { McpSchemaRefusal, originalName, ToolCatalog } from './tool-catalog.js';

/** Options of {@link McpClientGroup}. */
export interface McpClientGroupOptions extends ClientHandlers {
  readonly servers: readonly McpServerConfig[];
  /** The session whose bus gets events, whose state calls roll back, whose sensitivity routes calls. */
  readonly session: Session;
  /** Names the group in events (`sectionKey`) and errors. @default 'mcp.integrations' */
  readonly key?: string;
  /**
   * Isolation for every stdio server that configures none: once the session
   * reaches `at`, those servers are restarted in the sandbox. (A remote
   * server can only be isolated by its own `isolation.transport`; without
   * one, its tools not declared closed-world are refused once the session
   * holds private data.) Must not name a `transport`.
   * @default none
   */
  readonly isolation?: Omit<McpIsolationConfig, 'transport'>;
  /** `report`: list failed servers as unavailable and keep the rest. @default 'throw' */
  readonly onConnectError?: 'throw' | 'report';
  /**
   * The lowest level of a server's own log messages (`notifications/message`)
   * published as `McpServerLog`; lower ones are dropped.
   * @default 'info'
   */
  readonly serverLogLevel?: LoggingLevel;
  /** After a lost connection. @default { attempts: 3, baseDelayMs: 250 } */
  readonly reconnect?: ReconnectPolicy;
  /** Retrying a failed call once on a new session. @default { enabled: true, minDelayMs: 250, maxDelayMs: 750 } */
  readonly retry?: RetryOptions;
  /**
   * Connections shared with other groups and with native tools
   * (`context.resources.get(McpConnectionPool)`).
   * @default the session's pool, created and registered on first use
   */
  readonly pool?: McpConnectionPool;
  /** What errors call the group: `group "<key>"`, or `section "<key>"` for a section's. @default 'group' */
  readonly noun?: 'group' | 'section';
}

/** A server of the group that is connected, with its bridged tools. */
export interface AvailableServer {
  readonly name: string;
  readonly prefix: string;
  readonly tools: readonly McpTool[];
}

/** Default key of a group (and of `McpIntegrationSection`). */
export const DEFAULT_MCP_SECTION_KEY = 'mcp.integrations';

type GroupState = 'idle' | 'connecting' | 'connected';

/**
 * MCP servers connected and called together, with the isolation ratchet.
 *
 * @example
 * await using group = new McpClientGroup({ servers, session });
 * await group.connect();
 * const result = await group.execute({ name: 'files.read_file', arguments: { path: 'a.txt' } });
 */
export class McpClientGroup {
  /** The servers as checked: frozen, aliases resolved, the isolation default applied. */
  readonly servers: readonly ResolvedServerConfig[];
  readonly session: Session;
  readonly key: string;
  readonly #options: McpClientGroupOptions;
  readonly #noun: 'group' | 'section';
  readonly #onConnectError: 'throw' | 'report';
  readonly #redactors: ReadonlyMap<string, SecretRedactor>;
  readonly #pool: McpConnectionPool;
  #state: GroupState = 'idle';
  /** The connect under way, which a second `connect()` joins (see {@link connect}). */
  #connecting: SharedAttempt<void> | undefined;
  /** The disconnect under way, which a `connect()` waits for (see {@link disconnect}). */
  #disconnecting: Promise<void> | undefined;
  #routes: ServerRoute[] = [];
  readonly #catalog: ToolCatalog;
  #unavailable = new Map<string, string>();
  #isolated = false;
  #unsubscribe: (() => void) | undefined;
  #unregister: (() => void)[] = [];

  /** @throws McpConfigError for a bad option or server config. */
  constructor(options: McpClientGroupOptions) {
    const noun = (options as Partial<McpClientGroupOptions> | undefined)?.noun ?? 'group';
    const key = (options as Partial<McpClientGroupOptions> | undefined)?.key;
    checkGroupOptions(
      options,
      `${noun} "${typeof key === 'string' ? key : DEFAULT_MCP_SECTION_KEY}"`,
      [...GROUP_OPTION_KEYS, 'noun'],
    );
    this.servers = withDefaultIsolation(parseServerConfigs(options.servers), options.isolation);
    this.session = options.session;
    this.key = options.key ?? DEFAULT_MCP_SECTION_KEY;
    this.#options = options;
    this.#noun = options.noun ?? 'group';
    this.#onConnectError = options.onConnectError ?? 'throw';
    this.#catalog = new ToolCatalog(options.session, { ...DEFAULT_RETRY, ...options.retry });
    this.#pool = sessionPool(options.session, options.pool);
    this.#redactors = new Map(
      this.servers.map((server) => [server.name, SecretRedactor.forServer(server)]),
    );
  }

  /** How messages name the group: `group "<key>"`, or `section "<key>"` for a section's. */
  get label(): string {
    return `${this.#noun} "${this.key}"`;
  }

  /** True once `connect()` has finished (some servers may be unavailable). */
  get ready(): boolean {
    return this.#state === 'connected';
  }

  /** True when every server is connected. */
  get connected(): boolean {
    return (
      this.#state === 'connected' &&
      this.#unavailable.size === 0 &&
      this.#routes.every((route) => route.active.state === 'connected')
    );
  }

  /** True once any server was switched to isolation; never goes back. */
  get isolated(): boolean {
    return this.#isolated;
  }

  /** Servers that failed to connect (with `onConnectError: 'report'`), sorted by name. */
  get unavailableServers(): readonly UnavailableServer[] {
    return [...this.#unavailable]
      .map(([name, reason]) => ({ name, reason }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Names of the servers whose calls now go to their isolated endpoint or sandbox. */
  get isolatedServers(): readonly string[] {
    return this.#routes.filter((route) => route.switched).map((route) => route.name);
  }

  /** The connected servers, in config order, with their bridged tools. */
  get availableServers(): readonly AvailableServer[] {
    return this.#routes
      .filter((route) => !this.#unavailable.has(route.name))
      .map((route) => ({
        name: route.name,
        prefix: route.config.toolPrefix ?? route.name,
        tools: this.#catalog.of(route.name),
      }));
  }

  /** @internal The routes, for the health monitor and the pool. */
  get routes(): readonly ServerRoute[] {
    return this.#routes;
  }

  /**
   * Connects every server in parallel and bridges their tools. Calling it
   * again while connecting joins the connect under way: each call's
   * `signal` ends its own wait (rejecting with the signal's reason), and
   * the connect itself is cancelled only once every call waiting for it
   * gave up.
   *
   * @throws McpConnectionError (with `onConnectError: 'throw'`) for the first server that failed.
   * @throws McpSchemaError when two tools map to the same name.
   */
  async connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    const disconnecting = this.#disconnecting;
    if (this.#state === 'connected' && disconnecting === undefined) return;
    let attempt = this.#connecting;
    if (attempt?.abandoned === true) {
      // Every caller of that one gave up: it ends, and this caller starts anew.
      await attempt.promise.catch(() => undefined);
      return this.connect(options);
    }
    if (attempt === undefined) {
      this.#state = 'connecting';
      // A connect after a disconnect starts anew once everything is closed; it
      // is under way from now on, so that a disconnect after it closes it too.
      // Started at once when nothing is closing: the section listens for
      // escalations from this tick on (see #connectAll).
      const start = (signal: AbortSignal): Promise<void> =>
        disconnecting === undefined
          ? this.#connectAll(signal)
          : disconnecting.catch(() => undefined).then(() => this.#connectAll(signal));
      const started: SharedAttempt<void> = new SharedAttempt((signal) =>
        start(signal).finally(() => {
          if (this.#connecting === started) this.#connecting = undefined;
        }),
      );
      this.#connecting = attempt = started;
    }
    return attempt.join(options.signal, (reason) => reason);
  }

  /**
   * Closes every connection and stops every child process; idempotent. A
   * connect under way is finished, then closed; a `connect()` called after
   * this one waits for it, and starts anew (it joined the connect being
   * closed, and resolved with nothing connected).
   */
  disconnect(): Promise<void> {
    const connecting = this.#connecting;
    this.#connecting = undefined;
    const previous = this.#disconnecting;
    const closing = (async (): Promise<void> => {
      await previous;
      await connecting?.promise.catch(() => undefined);
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
      for (const unregister of this.#unregister.splice(0)) unregister();
      const routes = this.#routes;
      this.#routes = [];
      this.#state = 'idle';
      await Promise.all(routes.map((route) => route.close()));
    })();
    this.#disconnecting = closing;
    return closing.finally(() => {
      if (this.#disconnecting === closing) this.#disconnecting = undefined;
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /**
   * The bridged tools of every available server.
   * @throws McpConnectionError before `connect()` has finished.
   */
  tools(): readonly McpTool[] {
    if (this.#state !== 'connected') {
      throw new McpConnectionError(
        '*',
        'none',
        `${this.label} is not connected; await ${this.#noun}.connect() before asking for its tools`,
      );
    }
    return this.#catalog.all;
  }

  /**
   * Invokes a tool named the way text-protocol agents name it — `server.tool`,
   * `server__tool` or the bridged name — with an object or ActionInput text.
   * Routing errors come back as error results listing what is available.
   */
  async execute(request: ExecuteRequest, options: ExecuteOptions = {}): Promise<ToolResult> {
    if (this.#state !== 'connected') {
      return ToolResult.error(
        `${this.label} is not connected; await ${this.#noun}.connect() first`,
      );
    }
    const servers = this.availableServers.map(({ name, prefix }) => ({ name, prefix }));
    return executeByName(this.#catalog.all, servers, request, this.session, options);
  }

  /**
   * @internal Tries again to connect a server that failed at `connect()`
   * (the health monitor does this). On success its tools come back into the
   * prompt and `tools()`, with `McpServerConnected` and `McpToolsChanged`.
   *
   * @returns false when the server is not unavailable (nothing to do).
   * @throws whatever connecting or bridging its tools throws, and
   *   McpConnectionError when its route refuses every call (fail closed);
   *   the server stays unavailable.
   */
  async reconnectUnavailable(name: string, signal?: AbortSignal): Promise<boolean> {
    const route = this.#routes.find((candidate) => candidate.name === name);
    if (this.#state !== 'connected' || route === undefined || !this.#unavailable.has(name)) {
      return false;
    }
    await route.connect(signal);
    // Disconnected meanwhile: the route is closed and its tools must not come back.
    if (!this.#routes.includes(route)) return false;
    // Another check (a second monitor, a manual call) brought it back meanwhile: announced once.
    if (!this.#unavailable.has(name)) return true;
    // A route that refuses every call (its isolated side, switched to while
    // the server was unavailable, offers other tools than the normal one)
    // offers none: that list is not shown to the model.
    // Refusing since an earlier try, it is compared again first: the endpoints may match now.
    if (route.failClosedReason !== undefined) await route.recoverIsolation(signal);
    const refusing = route.failClosedReason;
    if (refusing !== undefined) {
      const reason = serverTextLine(
        `calls are refused (fail closed): ${refusing}`,
        Number.POSITIVE_INFINITY,
        route,
      );
      this.#unavailable.set(name, reason);
      throw new McpConnectionError(name, route.active.transportType, reason);
    }
    const tools = this.#catalog.refresh(route, this.#routes);
    this.#unavailable.delete(name);
    route.noteSensitivity(this.session.privateData.sensitivity);
    this.#toolsChanged(name, new Set(), tools);
    return true;
  }

  /**
   * The session's level, once its store (when it has one) is loaded and
   * read: what a route notes before it starts a process.
   * @throws SessionStoreError when the store cannot be read (fail closed).
   */
  async #levelNow(signal: AbortSignal | undefined): Promise<DataSensitivity> {
    if (this.session.store !== undefined) {
      await this.session.ready;
      await this.session.syncFromStore(signal === undefined ? {} : { signal });
    }
    return this.session.privateData.sensitivity;
  }

  async #connectAll(signal?: AbortSignal): Promise<void> {
    const routes = this.servers.map((config) => this.#createRoute(config));
    this.#routes = routes;
    // The pool's callTool runs this section's bridged tools: the same checks and routing.
    this.#unregister = routes.map((route) =>
      this.#pool.register(route.name, {
        session: this.session,
        find: (original) =>
          this.#catalog.of(route.name).find((tool) => originalName(tool) === original),
        toolNames: () =>
          this.#catalog
            .of(route.name)
            .map((tool) =>
              tool.origin.kind === 'mcp' ? shownOriginalName(tool.origin) : tool.name,
            ),
        // A tool name, the caller's: masked as names are, for the server's secrets alone.
        masked: (text) => route.redactor.redact(text),
        strictness: () => {
          if (route.switched) return 2;
          if (route.isolateAt === undefined) return 1;
          // A route not told the level yet (connecting, its store not read)
          // ranks by the session's level: it would switch at once.
          return atLeast(this.session.privateData.sensitivity, route.isolateAt) ? 2 : 0;
        },
      }),
    );
    this.#unavailable.clear();
    this.#catalog.clear();
    // From before any server starts: an escalation while they connect (even in
    // the same tick as connect()) switches their routes before a process starts.
    this.#unsubscribe?.();
    this.#unsubscribe = this.session.bus.subscribe(SensitivityEscalated, (event) => {
      if (event.sessionId !== this.session.sessionId) return;
      for (const route of routes) route.noteSensitivity(event.sensitivity);
    });
    const outcomes = await Promise.allSettled(routes.map((route) => route.connect(signal)));
    const failures: { route: ServerRoute; error: unknown }[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected')
        failures.push({ route: routes[index] as ServerRoute, error: outcome.reason });
    });
    try {
      // Every caller gave up (the signal): nothing is reported unavailable for
      // it, and nothing connected stays; whoever comes next starts anew.
      if (failures.length > 0 && (this.#onConnectError === 'throw' || signal?.aborted === true)) {
        throw (failures[0] as { error: unknown }).error;
      }
      for (const { route, error } of failures) this.#markUnavailable(route, error);
      for (const route of routes) {
        if (this.#unavailable.has(route.name)) continue;
        try {
          this.#catalog.refresh(route, routes);
        } catch (error) {
          // A server whose schemas cannot be checked in bounded work is left out,
          // whatever onConnectError says: the other servers stay usable.
          if (this.#onConnectError === 'throw' && !(error instanceof McpSchemaRefusal)) throw error;
          this.#markUnavailable(route, error);
        }
      }
    } catch (error) {
      this.#routes = [];
      this.#state = 'idle';
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
      for (const unregister of this.#unregister.splice(0)) unregister();
      await Promise.all(routes.map((route) => route.close()));
      throw error;
    }
    this.#state = 'connected';
    // A session that already holds private data isolates before the first call.
    for (const route of routes) route.noteSensitivity(this.session.privateData.sensitivity);
  }

  #markUnavailable(route: ServerRoute, error: unknown): void {
    // The block already names the server, so a connection error gives its reason alone.
    // One line, masked after it is cleaned: invisible characters can split a secret.
    // The route masks the secret arguments of the calls in flight too: a name the
    // server lists, quoted here, may hold one.
    const reason = serverTextLine(failureReason(error), Number.POSITIVE_INFINITY, route);
    this.#unavailable.set(route.name, reason);
    this.session.dispatchOutsideCalls(
      new McpServerUnavailable({
        sessionId: this.session.sessionId,
        serverName: route.name,
        transport: route.config.transport.type,
        reason,
        createdAt: new Date(),
      }),
    );
  }

  #onToolsChanged(route: ServerRoute, endpoint: Endpoint): void {
    // Either list changing can make the isolated deployment differ from the normal one.
    route.checkIsolatedTools();
    if (!this.#offersListing(route, endpoint)) return;
    if (this.session.store === undefined) {
      this.#applyListing(route);
      return;
    }
    // Whether the listing came while the session held private data is read
    // from the store first: another worker may have escalated the session
    // (which also switches the route). Unread (down, or past the route's
    // timeout), it is taken as private.
    void route
      .noteLevelNow()
      .then(
        () => false,
        () => true,
      )
      .then((storeUnread) => {
        if (this.#offersListing(route, endpoint)) this.#applyListing(route, storeUnread);
      });
  }

  /**
   * Whether a listing of `endpoint` is offered: only the connection that
   * calls go to decides what the model sees, and not while the route
   * refuses every call (a list that made it fail closed, the isolated
   * endpoint offering tools the normal one does not, is not offered; the
   * tools from before stay until it recovers). A route of an earlier
   * connect(), or a server still unavailable, offers nothing here: its
   * tools come back through reconnectUnavailable(), announced there.
   */
  #offersListing(route: ServerRoute, endpoint: Endpoint): boolean {
    return (
      this.#state === 'connected' &&
      endpoint === route.active.endpoint &&
      route.failClosedReason === undefined &&
      this.#routes.includes(route) &&
      !this.#unavailable.has(route.name)
    );
  }

  /** Bridges the route's current listing and announces what changed. */
  #applyListing(route: ServerRoute, storeUnread = false): void {
    const previous = this.#catalog.of(route.name);
    try {
      this.#catalog.refresh(route, this.#routes, storeUnread);
    } catch (error) {
      // A refreshed list that cannot be bridged (a name collision) takes the server out, closed.
      this.#markUnavailable(route, error);
    }
    const tools = this.#catalog.of(route.name);
    // A reconnect or a recovery that lists the same tools changes nothing.
    if (tools.length === previous.length && tools.every((tool, i) => tool === previous[i])) return;
    this.#toolsChanged(route.name, new Set(previous.map((tool) => tool.name)), tools);
  }

  #toolsChanged(server: string, before: ReadonlySet<string>, tools: readonly McpTool[]): void {
    const after = tools.map((tool) => tool.name);
    this.session.dispatchOutsideCalls(
      new McpToolsChanged({
        sessionId: this.session.sessionId,
        serverName: server,
        added: after.filter((name) => !before.has(name)),
        removed: [...before].filter((name) => !after.includes(name)),
        toolNames: after,
        createdAt: new Date(),
      }),
    );
  }

  #createRoute(config: ResolvedServerConfig): ServerRoute {
    const { elicitation, sampling, roots } = this.#options;
    const route: ServerRoute = new ServerRoute({
      config,
      redactor: this.#redactors.get(config.name) ?? new SecretRedactor([]),
      handlers: {
        ...(elicitation === undefined ? {} : { elicitation }),
        ...(sampling === undefined ? {} : { sampling }),
        ...(roots === undefined ? {} : { roots }),
      },
      session: this.session,
      normalEndpointRefusal: (signal) => normalEndpointRefusal(this.session, signal),
      ...(this.#options.reconnect === undefined ? {} : { reconnect: this.#options.reconnect }),
      levelNow: (signal) => this.#levelNow(signal),
      listener: routeListener({
        session: this.session,
        config,
        sectionKey: this.key,
        serverLogLevel: this.#options.serverLogLevel ?? DEFAULT_SERVER_LOG_LEVEL,
        route: () => route,
        toolsChanged: (endpoint) => this.#onToolsChanged(route, endpoint),
        isolating: () => {
          this.#isolated = true;
        },
      }),
      pool: this.#pool,
    });
    return route;
  }
}

/** How long a server's request waits for the store to say whether the session holds private data. */
const STORE_CHECK_TIMEOUT_MS = 10_000;

/**
 * Why the application's handlers may not answer a server's normal
 * endpoint now: once the session holds private data (here, or stored by
 * another worker), a sampling result, an elicited answer or the roots
 * would carry it to a deployment that is not isolated. Fails closed when
 * the store cannot be read. The text goes to the server: it names no data.
 */
async function normalEndpointRefusal(
  session: Session,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (!session.privateData.hasPrivateData && session.store !== undefined) {
    try {
      // Bounded: a store that never answers must not keep the request waiting.
      await session.syncFromStore({
        signal: AbortSignal.any([signal, AbortSignal.timeout(STORE_CHECK_TIMEOUT_MS)]),
      });
    } catch {
      return 'the session store could not be read to check for private data';
    }
  }
  if (!session.privateData.hasPrivateData) return undefined;
  return 'the session holds private data, and this endpoint of the server is not isolated';
}

/** The session's pool, registered as a resource the first time a section asks. */
function sessionPool(session: Session, given: McpConnectionPool | undefined): McpConnectionPool {
  const registered = session.resources.get(McpConnectionPool);
  const pool = given ?? registered ?? new McpConnectionPool();
  if (registered === undefined) session.resources.set(McpConnectionPool, pool);
  return pool;
}
