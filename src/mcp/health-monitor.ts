/**
 * Background health checks for the servers of an `McpIntegrationSection`.
 *
 * A lost connection already reconnects on its own (3 tries, doubling
 * backoff), but only when the transport notices the loss. A server that
 * hangs, or one that stayed down after those tries, is only found by asking
 * it something. The monitor asks every server for its tools at an interval,
 * tries one reconnection for a server that does not answer, and keeps what
 * it learned for dashboards and `/health` endpoints.
 */
import { abortReason, untilAborted, withDeadline } from '../core/deadline.js';
import { McpConfigError, McpTimeoutError } from '../core/errors.js';
import { defineEvent } from '../runtime/define-event.js';
import type { McpClientGroup } from './client-group.js';
import type { McpIntegrationSection } from './section.js';
import {
  failureReason,
  type McpServerConnection,
  type McpToolDescription,
} from './server-connection.js';
import type { ServerRoute } from './server-route.js';

/** Default {@link McpHealthMonitorOptions.intervalMs}: 15 s. */
export const DEFAULT_HEALTH_INTERVAL_MS = 15_000;

/** Default {@link McpHealthMonitorOptions.timeoutMs}: 5 s. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 5_000;

// setTimeout fires at once for delays above 2^31 - 1 ms.
const MAX_DELAY_MS = 2_147_483_647;

/** Options of {@link McpHealthMonitor}. */
export interface McpHealthMonitorOptions {
  /**
   * Pause between the end of one check and the start of the next, so checks
   * never overlap however slow a server is.
   * @default 15_000
   */
  readonly intervalMs?: number;
  /**
   * Bound on one server's `tools/list`, and separately on its reconnection
   * when the listing failed.
   * @default 5_000
   */
  readonly timeoutMs?: number;
}

/** What the monitor knows about one server. */
export interface McpServerHealth {
  readonly name: string;
  /** False until the server's first check succeeded. */
  readonly healthy: boolean;
  /**
   * Why the last check failed, redacted; absent when healthy. Once the
   * session holds private data, the server's words in it are
   * {@link WITHHELD_HEALTH_TEXT}.
   */
  readonly lastError?: string;
  /** When the server's last check finished; absent before the first one. */
  readonly lastCheck?: Date;
  /** Number of tools in the last successful listing (kept while unhealthy); 0 before one. */
  readonly toolCount: number;
}

/**
 * A server's health changed: published on the section's session after a
 * server's first check and whenever `healthy` flips. A failure whose reason
 * changes while the server stays unhealthy is not a change.
 */
export class McpServerHealthChanged extends defineEvent<{
  readonly sessionId: string;
  readonly serverName: string;
  readonly healthy: boolean;
  /** The value before this check; absent after the server's first check. */
  readonly previous?: boolean;
  /** Why the check failed, as {@link McpServerHealth.lastError} says it; absent when healthy. */
  readonly reason?: string;
  readonly toolCount: number;
  readonly createdAt: Date;
}>() {}

type Outcome =
  | { readonly name: string; readonly tools: readonly McpToolDescription[]; readonly at: Date }
  | { readonly name: string; readonly error: string; readonly at: Date };

/**
 * Checks the servers of one section: `tools/list` on each server's active
 * connection (bounded by `timeoutMs`); when that fails, one
 * `connection.reconnect()` (also bounded), whose own policy makes up to 3
 * tries with doubling backoff. A server the section reports unavailable is
 * unhealthy without a reconnection, since the section would not offer its
 * tools anyway; a section that is not connected makes every server
 * unhealthy.
 *
 * Checks run one at a time: `start()` runs the first at once and each next
 * one `intervalMs` after the previous finished, on an `unref()`ed timer, so a
 * forgotten monitor never keeps the process alive.
 *
 * @example
 * ```ts
 * await section.connect();
 * using monitor = new McpHealthMonitor(section, { intervalMs: 30_000 });
 * monitor.start();
 * app.get('/health', (_req, res) => {
 *   res.status(monitor.isHealthy() ? 200 : 503).json({ warnings: monitor.warnings() });
 * });
 * ```
 */
export class McpHealthMonitor {
  /** The servers checked: a section's group, or a group on its own. */
  readonly section: McpIntegrationSection | McpClientGroup;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly #statuses = new Map<string, McpServerHealth>();
  readonly #tools = new Map<string, readonly McpToolDescription[]>();
  #running = false;
  #generation = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #checking: Promise<readonly McpServerHealth[]> | undefined;
  #controller: AbortController | undefined;

  /** @throws McpConfigError when `intervalMs` or `timeoutMs` is not a positive number of milliseconds. */
  constructor(
    section: McpIntegrationSection | McpClientGroup,
    options: McpHealthMonitorOptions = {},
  ) {
    this.section = section;
    this.intervalMs = checkDuration('intervalMs', options.intervalMs ?? DEFAULT_HEALTH_INTERVAL_MS);
    this.timeoutMs = checkDuration('timeoutMs', options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS);
    for (const { name } of section.servers) {
      this.#statuses.set(name, Object.freeze({ name, healthy: false, toolCount: 0 }));
    }
  }

  /** True between `start()` and `stop()`. */
  get running(): boolean {
    return this.#running;
  }

  /** Runs a check now, then one every `intervalMs` after the previous finished; idempotent. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#tick(this.#generation);
  }

  /**
   * Stops the timer and cancels a check in progress (its results are
   * dropped); no timer of the monitor is left behind. Idempotent; `start()`
   * may be called again.
   */
  stop(): void {
    this.#running = false;
    this.#generation += 1;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#controller?.abort(new Error('the health monitor was stopped'));
    this.#controller = undefined;
    this.#checking = undefined;
  }

  /** Same as `stop()`. */
  [Symbol.dispose](): void {
    this.stop();
  }

  /**
   * Checks every server now; resolves with the new statuses. A check already
   * in progress is joined rather than started twice. `signal` stops this
   * caller's wait (rejecting with its reason), not the check itself.
   */
  check(options: { signal?: AbortSignal } = {}): Promise<readonly McpServerHealth[]> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    const running = this.#checking ?? this.#startCheck();
    return signal === undefined ? running : untilAborted(running, signal);
  }

  /** Every server of the section, in configuration order. */
  statuses(): readonly McpServerHealth[] {
    return Object.freeze([...this.#statuses.values()]);
  }

  /** True when every server's last check succeeded (false before the first check). */
  isHealthy(): boolean {
    return [...this.#statuses.values()].every((status) => status.healthy);
  }

  /**
   * One line per server whose last check failed:
   * `MCP server "github" is unhealthy: <reason>`. Servers not checked yet
   * have no warning.
   */
  warnings(): readonly string[] {
    return Object.freeze(
      [...this.#statuses.values()]
        .filter((status) => !status.healthy && status.lastCheck !== undefined)
        .map((status) => `MCP server "${status.name}" is unhealthy: ${status.lastError ?? ''}`),
    );
  }

  /**
   * The tools of the server's last successful listing (kept while it is
   * unhealthy), or undefined: the server's words, as it listed them.
   */
  cachedTools(serverName: string): readonly McpToolDescription[] | undefined {
    return this.#tools.get(serverName);
  }

  #tick(generation: number): void {
    this.#timer = undefined;
    this.check()
      .catch(() => undefined)
      .finally(() => {
        // A stale tick (stop() ran meanwhile) must not arm a second timer chain.
        if (!this.#running || generation !== this.#generation || this.#timer !== undefined) return;
        const timer = setTimeout(() => this.#tick(generation), this.intervalMs);
        timer.unref?.();
        this.#timer = timer;
      })
      .catch(() => undefined);
  }

  #startCheck(): Promise<readonly McpServerHealth[]> {
    const controller = new AbortController();
    this.#controller = controller;
    const promise: Promise<readonly McpServerHealth[]> = this.#runCheck(controller.signal).finally(
      () => {
        if (this.#checking !== promise) return;
        this.#checking = undefined;
        this.#controller = undefined;
      },
    );
    this.#checking = promise;
    return promise;
  }

  async #runCheck(signal: AbortSignal): Promise<readonly McpServerHealth[]> {
    const routes = new Map(this.section.routes.map((route) => [route.name, route]));
    const unavailable = new Map(
      this.section.unavailableServers.map((server) => [server.name, server.reason]),
    );
    const outcomes = await Promise.all(
      [...this.#statuses.keys()].map((name) =>
        this.#checkServer(name, routes.get(name), unavailable.get(name), signal),
      ),
    );
    if (signal.aborted) return this.statuses();
    for (const outcome of outcomes) this.#record(outcome);
    return this.statuses();
  }

  async #checkServer(
    name: string,
    route: ServerRoute | undefined,
    unavailableReason: string | undefined,
    signal: AbortSignal,
  ): Promise<Outcome> {
    if (route === undefined) {
      const group = 'group' in this.section ? this.section.group : this.section;
      return { name, error: `${group.label} is not connected`, at: new Date() };
    }
    if (unavailableReason !== undefined) {
      // A server that failed at connect() is initialised again; on success it
      // is back in the section's prompt and tools.
      try {
        await this.#bounded(
          route,
          (inner) => this.section.reconnectUnavailable(name, inner),
          signal,
          `connecting again did not finish within ${this.timeoutMs} ms`,
        );
      } catch (error) {
        if (signal.aborted) return { name, error: 'check cancelled', at: new Date() };
        const again = this.#reasonOf(route, error);
        return {
          name,
          error: `unavailable: ${this.#serverText(unavailableReason)}; connecting again failed: ${again}`,
          at: new Date(),
        };
      }
      return { name, tools: route.tools, at: new Date() };
    }
    // A switch to isolation under way stops the normal side: checked (and, when
    // gone, opened again) is the side it switches to.
    const beforeSwitch = await this.#switchSettled(route, signal);
    if (beforeSwitch !== undefined) return { name, at: new Date(), ...beforeSwitch };
    const connection = route.upkeep;
    if (connection === undefined)
      return { name, error: this.#failingClosed(route), at: new Date() };
    try {
      // A ping: cheap for the server, and the tool list is kept current by list_changed.
      await this.#bounded(
        route,
        (inner) => connection.ping({ signal: inner }),
        signal,
        `ping did not answer within ${this.timeoutMs} ms`,
      );
    } catch (pingError) {
      if (signal.aborted) return { name, error: 'check cancelled', at: new Date() };
      // The side pinged was left by a switch that began meanwhile (it stopped a
      // normal process): not opened again; what the switch ends in decides, below.
      const left = route.phase === 'switching' || route.upkeep !== connection;
      if (!left) {
        const outcome = await this.#pingFailed(route, connection, pingError, signal);
        if (outcome !== undefined) return { name, at: new Date(), ...outcome };
      }
    }
    // An isolated endpoint that was down (or different) at connect() comes back here.
    if (route.mode === 'endpoint') {
      await this.#bounded(
        route,
        (inner) => route.recoverIsolation(inner),
        signal,
        `the isolated endpoint did not answer within ${this.timeoutMs} ms`,
      ).catch(() => false);
    }
    // A switch that began while the check ran (the session escalated meanwhile)
    // decides: one that fails closed refuses every call.
    const duringCheck = await this.#switchSettled(route, signal);
    if (duringCheck !== undefined) return { name, at: new Date(), ...duringCheck };
    // Reachable, but every call is refused: not healthy.
    if (route.failClosedReason !== undefined) {
      return { name, error: this.#failingClosed(route), at: new Date() };
    }
    return { name, tools: route.tools, at: new Date() };
  }

  /**
   * After a failed ping: the error to report, or undefined once the lost
   * connection was opened again. A slow answer is not a lost connection: a
   * server busy with a long call answers late, and reconnecting would kill
   * that call. Only a connection that is really gone is opened again.
   */
  async #pingFailed(
    route: ServerRoute,
    connection: McpServerConnection,
    pingError: unknown,
    signal: AbortSignal,
  ): Promise<{ readonly error: string } | undefined> {
    const pingReason = this.#reasonOf(route, pingError);
    if (connection.state === 'connected' || route.inflight > 0) {
      const busy = route.inflight > 0 ? ` (${route.inflight} calls in flight)` : '';
      return { error: `${pingReason}; the connection is open${busy}, not reconnected` };
    }
    try {
      await this.#bounded(
        route,
        () => connection.reconnect(),
        signal,
        `reconnecting did not finish within ${this.timeoutMs} ms`,
      );
      return undefined;
    } catch (reconnectError) {
      return {
        error: `${pingReason}; reconnecting failed: ${this.#reasonOf(route, reconnectError)}`,
      };
    }
  }

  /**
   * Waits (within the timeout) for a switch to isolation under way on
   * `route`; the error to report when the wait did not end it.
   */
  async #switchSettled(
    route: ServerRoute,
    signal: AbortSignal,
  ): Promise<{ readonly error: string } | undefined> {
    if (route.phase !== 'switching') return undefined;
    try {
      await this.#bounded(
        route,
        () => route.switchSettled(),
        signal,
        `the switch to isolation did not finish within ${this.timeoutMs} ms`,
      );
      return undefined;
    } catch (error) {
      return { error: signal.aborted ? 'check cancelled' : this.#reasonOf(route, error) };
    }
  }

  /**
   * An error's reason, redacted, without the server's name (warnings name
   * the server). Once the session holds private data only the monitor's
   * own words are kept: its timeouts; anything else may be the server's.
   */
  #reasonOf(route: ServerRoute, error: unknown): string {
    if (error instanceof McpTimeoutError && this.#isPrivate()) return error.message;
    // Masked for the calls in flight too: a server may write one's secret argument
    // into its answer to a ping, as into its log.
    return this.#serverText(route.redact(failureReason(error)));
  }

  /** The status of a route that refuses every call, as the section's unavailable servers say it. */
  #failingClosed(route: ServerRoute): string {
    const reason = route.redact(route.failClosedReason ?? 'unknown reason');
    return `calls are refused (fail closed): ${route.failClosedQuotesServer ? this.#serverText(reason) : reason}`;
  }

  /** `text` (a server's words, or quoting them), unless the session holds private data now. */
  #serverText(text: string): string {
    return this.#isPrivate() ? WITHHELD_HEALTH_TEXT : text;
  }

  #isPrivate(): boolean {
    return this.section.session.privateData.hasPrivateData;
  }

  /** `run` within this monitor's timeout and `outer`; a timeout names the server. */
  #bounded<T>(
    route: ServerRoute,
    run: (signal: AbortSignal) => Promise<T>,
    outer: AbortSignal,
    timeoutMessage: string,
  ): Promise<T> {
    return withDeadline(run, {
      timeoutMs: this.timeoutMs,
      signal: outer,
      onTimeout: () => new McpTimeoutError(route.name, this.timeoutMs, timeoutMessage),
    });
  }

  #record(outcome: Outcome): void {
    const { name, at } = outcome;
    const previous = this.#statuses.get(name);
    const healthy = 'tools' in outcome;
    if (healthy) this.#tools.set(name, outcome.tools);
    const toolCount = this.#tools.get(name)?.length ?? 0;
    const reason = 'error' in outcome ? outcome.error : undefined;
    this.#statuses.set(
      name,
      Object.freeze({
        name,
        healthy,
        ...(reason === undefined ? {} : { lastError: reason }),
        lastCheck: at,
        toolCount,
      }),
    );
    const first = previous?.lastCheck === undefined;
    if (!first && previous.healthy === healthy) return;
    const { session } = this.section;
    const changed = new McpServerHealthChanged({
      sessionId: session.sessionId,
      serverName: name,
      healthy,
      ...(first ? {} : { previous: previous.healthy }),
      ...(reason === undefined ? {} : { reason }),
      toolCount,
      createdAt: new Date(),
    });
    session.dispatchOutsideCalls(changed);
  }
}

function checkDuration(field: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_DELAY_MS) {
    throw new McpConfigError(
      field,
      `${field} must be a positive number of milliseconds up to ${MAX_DELAY_MS}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * What a status shows in place of a server's words once the session holds
 * private data: the server that holds the data (an isolated endpoint, a
 * sandbox without network) may write it into any error it answers, and
 * `warnings()` and `statuses()` are made for `/health`.
 */
export const WITHHELD_HEALTH_TEXT =
  "the server's message is withheld: the session holds private data";
