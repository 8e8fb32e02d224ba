import {
  McpConfigError,
  McpConnectionError,
  McpSchemaError,
  PromptRenderError,
  PromptValidationError,
} from '../core/errors.js';
import {
  dedent,
  fillTemplate,
  parseTemplate,
  placeholderNames,
  type TemplatePart,
} from '../prompt/template-text.js';
import {
  Section,
  type SectionEnabledContext,
  type SectionRenderContext,
} from '../prompt/section.js';
import { SensitivityEscalated } from '../runtime/events.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Session } from '../runtime/session.js';
import type { Tool } from '../tools/tool.js';
import { ToolResult } from '../tools/tool-result.js';
import { bridgeTool, type McpTool } from './bridge-tool.js';
import type { ClientHandlers } from './client-handlers.js';
import { inputSchemaRefusal } from './schema/index.js';
import { canonicalJsonText } from './schema/json.js';
import { McpConnectionPool } from './connection-pool.js';
import { executeByName, type ExecuteOptions, type ExecuteRequest } from './execute.js';
import { parseServerConfigs } from '../config/parse-server-configs.js';
import type {
  McpIsolationConfig,
  McpServerConfig,
  ResolvedServerConfig,
} from '../config/server-config.js';
import {
  McpIsolationFailed,
  McpNetworkDenied,
  McpSectionIsolated,
  McpServerConnected,
  McpServerDisconnected,
  McpServerUnavailable,
  McpToolsChanged,
} from './events.js';
import {
  renderDefaultInventory,
  renderToolsByServer,
  renderUnavailable,
  type UnavailableServer,
} from './inventory.js';
import { SecretRedactor } from './redact.js';
import { DEFAULT_SERVER_LOG_LEVEL, serverLogEvent } from './server-log.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
import {
  failureReason,
  type ConnectionListener,
  type Endpoint,
  type ReconnectPolicy,
} from './server-connection.js';
import { ServerRoute, type RouteListener } from './server-route.js';
import { assertUniqueNames, bridgedToolName, isToolSelected } from './tool-naming.js';

/** Default section title. */
export const DEFAULT_MCP_SECTION_TITLE = 'MCP Integrations';
/** Default section key. */
export const DEFAULT_MCP_SECTION_KEY = 'mcp.integrations';
/** Placeholders a custom template may use. */
export const MCP_TEMPLATE_PLACEHOLDERS: readonly string[] = Object.freeze([
  'server_names',
  'tool_count',
  'tools_by_server',
]);

/** Options of {@link McpIntegrationSection}. */
export interface McpIntegrationSectionOptions extends ClientHandlers {
  readonly servers: readonly McpServerConfig[];
  /** The session whose bus gets events, whose state calls roll back, whose sensitivity routes calls. */
  readonly session: Session;
  /** @default 'MCP Integrations' */
  readonly title?: string;
  /** @default 'mcp.integrations' */
  readonly key?: string;
  /** Body template with `${server_names}`, `${tool_count}`, `${tools_by_server}`. @default the tool inventory */
  readonly template?: string;
  /** Start connecting at construction; failures surface from `connect()`. @default false */
  readonly connectOnInit?: boolean;
  /** @default false */
  readonly acceptsOverrides?: boolean;
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
   * Connections shared with other sections and with native tools
   * (`context.resources.get(McpConnectionPool)`).
   * @default the session's pool, created and registered on first use
   */
  readonly pool?: McpConnectionPool;
  readonly children?: readonly Section[];
  readonly enabled?: (params: undefined, context: SectionEnabledContext) => boolean;
}

type SectionState = 'idle' | 'connecting' | 'connected';

/**
 * A prompt section that plugs MCP servers in: it connects to them, bridges
 * their tools into validated, session-aware tools under prefixed names, and
 * renders an inventory of them for the model.
 *
 * @example
 * await using section = new McpIntegrationSection({
 *   servers: [{ name: 'everything', transport: { type: 'stdio', command: 'node', args: [path] } }],
 *   session,
 * });
 * await section.connect();
 * const result = await invokeTool(section.tools()[0], { message: 'hi' }, { session });
 */
export class McpIntegrationSection extends Section<undefined> {
  /** The servers as checked: frozen, aliases resolved, the section's isolation default applied. */
  readonly servers: readonly ResolvedServerConfig[];
  readonly session: Session;
  readonly #options: McpIntegrationSectionOptions;
  readonly #templateParts: readonly TemplatePart[] | undefined;
  readonly #redactors: ReadonlyMap<string, SecretRedactor>;
  #state: SectionState = 'idle';
  #connecting: Promise<void> | undefined;
  #routes: ServerRoute[] = [];
  #toolsByServer = new Map<string, readonly McpTool[]>();
  #tools: readonly McpTool[] = Object.freeze([]);
  #unavailable = new Map<string, string>();
  #isolated = false;
  #unsubscribe: (() => void) | undefined;
  readonly #retry: Required<RetryOptions>;
  readonly #pool: McpConnectionPool;
  #unregister: (() => void)[] = [];

  /** @throws McpConfigError for a bad server config; PromptValidationError for a bad template. */
  constructor(options: McpIntegrationSectionOptions) {
    super({
      key: options.key ?? DEFAULT_MCP_SECTION_KEY,
      title: options.title ?? DEFAULT_MCP_SECTION_TITLE,
      ...(options.children === undefined ? {} : { children: options.children }),
      ...(options.enabled === undefined ? {} : { enabled: options.enabled }),
      acceptsOverrides: options.acceptsOverrides ?? false,
    });
    this.servers = Object.freeze(
      withDefaultIsolation(parseServerConfigs(options.servers), options.isolation),
    );
    this.session = options.session;
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#pool = sessionPool(options.session, options.pool);
    this.#redactors = new Map(
      this.servers.map((server) => [server.name, SecretRedactor.forServer(server)]),
    );
    if (options.template !== undefined) {
      const parts = parseTemplate(dedent(options.template), `section "${this.key}"`);
      for (const name of placeholderNames(parts)) {
        if (!MCP_TEMPLATE_PLACEHOLDERS.includes(name)) {
          throw new PromptValidationError(
            `section "${this.key}": placeholder "\${${name}}" is not one of ${MCP_TEMPLATE_PLACEHOLDERS.join(', ')}`,
          );
        }
      }
      this.#templateParts = parts;
    }
    if (options.connectOnInit === true) {
      // Failures surface from connect(); the extra handler keeps them from being unhandled.
      this.connect().catch(() => undefined);
    }
  }

  /** True when every server is connected. */
  get connected(): boolean {
    return (
      this.#state === 'connected' &&
      this.#unavailable.size === 0 &&
      this.#routes.every((route) => route.active.state === 'connected')
    );
  }

  /** True once any of this section's servers was switched to isolation; never goes back. */
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

  /** @internal The routes, for the health monitor and the pool. */
  get routes(): readonly ServerRoute[] {
    return this.#routes;
  }

  /**
   * Connects every server in parallel and bridges their tools. Calling it
   * again while connecting returns the same promise.
   *
   * @throws McpConnectionError (with `onConnectError: 'throw'`) for the first server that failed.
   * @throws McpSchemaError when two tools map to the same name.
   */
  connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#state === 'connected') return Promise.resolve();
    if (this.#connecting !== undefined) return this.#connecting;
    this.#state = 'connecting';
    this.#connecting = this.#connectAll(options.signal).finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Closes every connection and stops every child process; idempotent. */
  async disconnect(): Promise<void> {
    if (this.#connecting !== undefined) await this.#connecting.catch(() => undefined);
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const unregister of this.#unregister.splice(0)) unregister();
    const routes = this.#routes;
    this.#routes = [];
    this.#state = 'idle';
    await Promise.all(routes.map((route) => route.close()));
  }

  /**
   * Invokes a tool named the way text-protocol agents name it — `server.tool`,
   * `server__tool` or the bridged name — with an object or ActionInput text.
   * Routing errors come back as error results listing what is available.
   */
  async execute(request: ExecuteRequest, options: ExecuteOptions = {}): Promise<ToolResult> {
    if (this.#state !== 'connected') {
      return ToolResult.error(
        `section "${this.key}" is not connected; await section.connect() first`,
      );
    }
    const servers = this.#routes
      .filter((route) => !this.#unavailable.has(route.name))
      .map((route) => ({ name: route.name, prefix: route.config.toolPrefix ?? route.name }));
    return executeByName(this.#tools, servers, request, this.session, options);
  }

  /**
   * @internal Tries again to connect a server that failed at `connect()`
   * (the health monitor does this). On success its tools come back into the
   * prompt and `tools()`, with `McpServerConnected` and `McpToolsChanged`.
   *
   * @returns false when the server is not unavailable (nothing to do).
   * @throws whatever connecting or bridging its tools throws; the server stays unavailable.
   */
  async reconnectUnavailable(name: string, signal?: AbortSignal): Promise<boolean> {
    const route = this.#routes.find((candidate) => candidate.name === name);
    if (this.#state !== 'connected' || route === undefined || !this.#unavailable.has(name)) {
      return false;
    }
    await route.connect(signal);
    // Disconnected meanwhile: the route is closed and its tools must not come back.
    if (!this.#routes.includes(route)) return false;
    const refused = schemaRefusal(route);
    if (refused !== undefined) throw refused;
    const tools = this.#bridge(route);
    this.#toolsByServer.set(name, tools);
    this.#unavailable.delete(name);
    this.#publishTools();
    route.noteSensitivity(this.session.privateData.sensitivity);
    this.session.dispatch(
      new McpToolsChanged({
        sessionId: this.session.sessionId,
        serverName: name,
        added: tools.map((tool) => tool.name),
        removed: [],
        toolNames: tools.map((tool) => tool.name),
        createdAt: new Date(),
      }),
    );
    return true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /**
   * The bridged tools of every available server.
   * @throws McpConnectionError before `connect()` has finished.
   */
  override tools(): readonly Tool[] {
    if (this.#state !== 'connected') {
      throw new McpConnectionError(
        '*',
        'none',
        `section "${this.key}" is not connected; await section.connect() before asking for its tools`,
      );
    }
    return this.#tools;
  }

  override toolsAtCreation(): readonly Tool[] {
    return this.#state === 'connected' ? this.#tools : [];
  }

  override renderBody(_params: undefined, context: SectionRenderContext): string {
    if (this.#state !== 'connected') {
      throw new PromptRenderError(
        `section "${context.path}" is not connected; await section.connect() before rendering`,
      );
    }
    const servers = this.#routes
      .filter((route) => !this.#unavailable.has(route.name))
      .map((route) => ({ name: route.name, tools: this.#toolsByServer.get(route.name) ?? [] }));
    const body =
      this.#templateParts === undefined
        ? renderDefaultInventory(servers, context.depth)
        : fillTemplate(
            this.#templateParts,
            {
              server_names: servers.map((server) => server.name).join(', '),
              tool_count: this.#tools.length,
              tools_by_server: renderToolsByServer(servers, context.depth),
            },
            `section "${context.path}"`,
          );
    const unavailable = renderUnavailable(this.unavailableServers, context.depth);
    return [body, unavailable].filter((part) => part.length > 0).join('\n\n');
  }

  async #connectAll(signal?: AbortSignal): Promise<void> {
    const routes = this.servers.map((config) => this.#createRoute(config));
    this.#routes = routes;
    // The pool's callTool runs this section's bridged tools: the same checks and routing.
    this.#unregister = routes.map((route) =>
      this.#pool.register(route.name, {
        session: this.session,
        find: (original) =>
          this.#toolsByServer.get(route.name)?.find((tool) => originalName(tool) === original),
        toolNames: () => (this.#toolsByServer.get(route.name) ?? []).map(originalName),
      }),
    );
    this.#unavailable.clear();
    this.#toolsByServer.clear();
    const outcomes = await Promise.allSettled(routes.map((route) => route.connect(signal)));
    const failures: { route: ServerRoute; error: unknown }[] = [];
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'rejected')
        failures.push({ route: routes[index] as ServerRoute, error: outcome.reason });
    });
    try {
      if (failures.length > 0 && (this.#options.onConnectError ?? 'throw') === 'throw') {
        throw (failures[0] as { error: unknown }).error;
      }
      for (const { route, error } of failures) this.#markUnavailable(route, error);
      for (const route of routes) {
        if (this.#unavailable.has(route.name)) continue;
        // A server whose schemas cannot be checked in bounded work is left out,
        // whatever onConnectError says: the other servers stay usable.
        const refused = schemaRefusal(route);
        if (refused !== undefined) {
          this.#markUnavailable(route, refused);
          continue;
        }
        try {
          this.#toolsByServer.set(route.name, this.#bridge(route));
        } catch (error) {
          if ((this.#options.onConnectError ?? 'throw') === 'throw') throw error;
          this.#markUnavailable(route, error);
        }
      }
      this.#publishTools();
    } catch (error) {
      this.#routes = [];
      this.#state = 'idle';
      for (const unregister of this.#unregister.splice(0)) unregister();
      await Promise.all(routes.map((route) => route.close()));
      throw error;
    }
    this.#state = 'connected';
    this.#unsubscribe = this.session.bus.subscribe(SensitivityEscalated, (event) => {
      if (event.sessionId !== this.session.sessionId) return;
      for (const route of this.#routes) route.noteSensitivity(event.sensitivity);
    });
    // A session that already holds private data isolates before the first call.
    for (const route of routes) route.noteSensitivity(this.session.privateData.sensitivity);
  }

  #markUnavailable(route: ServerRoute, error: unknown): void {
    // The block already names the server, so a connection error gives its reason alone.
    const reason = route.redact(failureReason(error));
    this.#unavailable.set(route.name, reason);
    this.session.dispatch(
      new McpServerUnavailable({
        sessionId: this.session.sessionId,
        serverName: route.name,
        transport: route.config.transport.type,
        reason,
        createdAt: new Date(),
      }),
    );
  }

  /** Bridges a route's current tools, reusing tools whose definition did not change. */
  #bridge(route: ServerRoute): readonly McpTool[] {
    const config = route.config;
    const prefix = config.toolPrefix ?? config.name;
    const previous = new Map(
      (this.#toolsByServer.get(route.name) ?? []).map((tool) => [tool.name, tool]),
    );
    const tools: McpTool[] = [];
    for (const description of route.tools) {
      if (!isToolSelected(config, description.name)) continue;
      const name = bridgedToolName(prefix, description.name);
      const old = previous.get(name);
      const unchanged =
        old !== undefined &&
        old.origin.kind === 'mcp' &&
        old.origin.originalName === description.name &&
        canonicalJsonText(old.inputSchema) === canonicalJsonText(description.inputSchema) &&
        canonicalJsonText(old.annotations) === canonicalJsonText(description.annotations ?? {});
      tools.push(
        unchanged
          ? old
          : bridgeTool(description, name, { session: this.session, route, retry: this.#retry }),
      );
    }
    assertUniqueNames(
      route.name,
      tools.map((tool) => ({ bridged: tool.name, original: originalName(tool) })),
    );
    return Object.freeze(tools);
  }

  #publishTools(): void {
    const all: McpTool[] = [];
    const entries: { bridged: string; original: string; serverName: string }[] = [];
    for (const route of this.#routes) {
      for (const tool of this.#toolsByServer.get(route.name) ?? []) {
        all.push(tool);
        entries.push({ bridged: tool.name, original: originalName(tool), serverName: route.name });
      }
    }
    assertUniqueNames('', entries);
    this.#tools = Object.freeze(all);
  }

  #onToolsChanged(route: ServerRoute, endpoint: Endpoint): void {
    // Either list changing can make the isolated deployment differ from the normal one.
    route.checkIsolatedTools();
    // Only the connection that calls go to decides what the model sees.
    if (this.#state !== 'connected' || endpoint !== route.active.endpoint) return;
    const before = new Set((this.#toolsByServer.get(route.name) ?? []).map((tool) => tool.name));
    try {
      const refused = schemaRefusal(route);
      if (refused !== undefined) throw refused;
      this.#toolsByServer.set(route.name, this.#bridge(route));
      this.#publishTools();
    } catch (error) {
      // A refreshed list that cannot be bridged (a name collision) takes the server out, closed.
      this.#toolsByServer.delete(route.name);
      this.#markUnavailable(route, error);
      this.#publishTools();
    }
    const after = (this.#toolsByServer.get(route.name) ?? []).map((tool) => tool.name);
    this.session.dispatch(
      new McpToolsChanged({
        sessionId: this.session.sessionId,
        serverName: route.name,
        added: after.filter((name) => !before.has(name)),
        removed: [...before].filter((name) => !after.includes(name)),
        toolNames: after,
        createdAt: new Date(),
      }),
    );
  }

  #createRoute(config: ResolvedServerConfig): ServerRoute {
    const session = this.session;
    const base = { sessionId: session.sessionId, serverName: config.name };
    const listener: RouteListener = {
      connection: (endpoint): ConnectionListener => ({
        connected: (info) => {
          session.dispatch(
            new McpServerConnected({ ...base, endpoint, ...info, createdAt: new Date() }),
          );
        },
        disconnected: (info) => {
          session.dispatch(
            new McpServerDisconnected({ ...base, endpoint, ...info, createdAt: new Date() }),
          );
        },
        failed: (info) => {
          session.dispatch(
            new McpServerUnavailable({
              ...base,
              transport: config.transport.type,
              reason: info.reason,
              createdAt: new Date(),
            }),
          );
        },
        // Runs only after the route below exists: connections report changes once connected.
        toolsChanged: () => this.#onToolsChanged(route, endpoint),
        log: (message) => {
          const level = this.#options.serverLogLevel ?? DEFAULT_SERVER_LOG_LEVEL;
          const event = serverLogEvent(message, level, route, base);
          if (event !== undefined) session.dispatch(event);
        },
      }),
      isolated: (mode) => {
        this.#isolated = true;
        session.dispatch(
          new McpSectionIsolated({
            ...base,
            sectionKey: this.key,
            mode,
            sensitivity: session.privateData.sensitivity,
            createdAt: new Date(),
          }),
        );
      },
      networkDenied: (host, port, reason) => {
        session.dispatch(
          new McpNetworkDenied({ ...base, host, port, reason, createdAt: new Date() }),
        );
      },
      isolationFailed: (reason) => {
        this.#isolated = true;
        session.dispatch(
          new McpIsolationFailed({ ...base, sectionKey: this.key, reason, createdAt: new Date() }),
        );
      },
    };
    const { elicitation, sampling, roots } = this.#options;
    const route: ServerRoute = new ServerRoute({
      config,
      redactor: this.#redactors.get(config.name) ?? new SecretRedactor([]),
      handlers: {
        ...(elicitation === undefined ? {} : { elicitation }),
        ...(sampling === undefined ? {} : { sampling }),
        ...(roots === undefined ? {} : { roots }),
      },
      ...(this.#options.reconnect === undefined ? {} : { reconnect: this.#options.reconnect }),
      listener,
      pool: this.#pool,
    });
    return route;
  }
}

/** The session's pool, registered as a resource the first time a section asks. */
function sessionPool(session: Session, given: McpConnectionPool | undefined): McpConnectionPool {
  const registered = session.resources.get(McpConnectionPool);
  const pool = given ?? registered ?? new McpConnectionPool();
  if (registered === undefined) session.resources.set(McpConnectionPool, pool);
  return pool;
}

function originalName(tool: McpTool): string {
  return tool.origin.kind === 'mcp' ? tool.origin.originalName : tool.name;
}

/** The first of a route's tools whose input schema is refused outright, as an error. */
function schemaRefusal(route: ServerRoute): McpSchemaError | undefined {
  for (const description of route.tools) {
    if (!isToolSelected(route.config, description.name)) continue;
    const reason = inputSchemaRefusal(description.inputSchema);
    if (reason !== undefined) return new McpSchemaError(route.name, description.name, reason);
  }
  return undefined;
}

/** `servers` with the section's isolation default given to each stdio server that has none. */
function withDefaultIsolation(
  servers: readonly ResolvedServerConfig[],
  isolation: Omit<McpIsolationConfig, 'transport'> | undefined,
): ResolvedServerConfig[] {
  if (isolation === undefined) return [...servers];
  if ('transport' in isolation) {
    throw new McpConfigError(
      'isolation.transport',
      'isolation.transport cannot be a section default: each server names its own isolated deployment',
    );
  }
  const applied = servers.map((server) =>
    server.isolation === undefined && server.transport.type === 'stdio'
      ? { ...server, isolation: { ...isolation } }
      : server,
  );
  // Checked again: the default's fields follow the same rules as a server's own.
  return [...parseServerConfigs(applied)];
}
