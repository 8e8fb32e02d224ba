/**
 * What a server route tells its group, turned into session events:
 * connections opened, lost and failed, server logs, the isolation switch,
 * denied network requests.
 */
import type { LoggingLevel, LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { Session } from '../runtime/session.js';
import {
  McpIsolationFailed,
  McpNetworkDenied,
  McpSectionIsolated,
  McpServerConnected,
  McpServerDisconnected,
  McpServerUnavailable,
} from './events.js';
import { callSecretsInFlight, withoutCallSecrets } from './in-flight-secrets.js';
import type { ConnectionListener, Endpoint } from './server-connection.js';

/** What a route tells its group. */
export interface RouteListener {
  connection(endpoint: Endpoint): ConnectionListener;
  isolated(mode: IsolationMode): void;
  isolationFailed(reason: string): void;
  /** The isolated endpoint offers the normal one's tools again: what it lists counts again. */
  isolationRecovered(): void;
  /** The sandbox's egress proxy refused a destination. */
  networkDenied(host: string, port: number, reason: string): void;
  /** The route has closed: the last log and refusal held back by the rates are published. */
  closed(): void;
}

import type { IsolationMode, ServerRoute } from './server-route.js';
import {
  EventRate,
  MAX_DENIAL_EVENTS_PER_SECOND,
  MAX_LOG_EVENTS_PER_SECOND,
} from './event-rate.js';
import { isLogged, serverLogEvent } from './server-log.js';

/** What {@link routeListener} needs from the group that owns the route. */
export interface RouteListenerOptions {
  readonly session: Session;
  readonly config: ResolvedServerConfig;
  /** The key of the section (or group) the route belongs to, for isolation events. */
  readonly sectionKey: string;
  readonly serverLogLevel: LoggingLevel;
  /** The route itself; called only once it exists (connections report after connecting). */
  readonly route: () => ServerRoute;
  /** A connection's tool list changed. */
  readonly toolsChanged: (endpoint: Endpoint) => void;
  /** The route left `normal`: isolated, or failing closed. */
  readonly isolating: () => void;
}

/**
 * A route listener that publishes what happens to one server on the
 * session's bus, outside any call: it is never a call's write, even when
 * it happens while one runs.
 */
export function routeListener(options: RouteListenerOptions): RouteListener {
  const { session, config, sectionKey } = options;
  const base = { sessionId: session.sessionId, serverName: config.name };
  // One rate for the server, whichever of its connections (normal, isolated) logs.
  const logRate = new EventRate<LoggingMessageNotification['params']>(
    MAX_LOG_EVENTS_PER_SECOND,
    (message, dropped) => {
      session.dispatchOutsideCalls(
        serverLogEvent(message, options.route().redactor, base, dropped),
      );
    },
  );
  // A sandboxed server may ask again and again: the refusals hold, the events are bounded.
  const denialRate = new EventRate<Denial>(MAX_DENIAL_EVENTS_PER_SECOND, (denial, dropped) => {
    session.dispatchOutsideCalls(
      new McpNetworkDenied({
        ...base,
        host: denial.host,
        port: denial.port,
        reason: denial.reason,
        ...(dropped === 0 ? {} : { dropped }),
        createdAt: new Date(),
      }),
    );
  });
  return {
    connection: (endpoint): ConnectionListener => ({
      connected: (info) => {
        session.dispatchOutsideCalls(
          new McpServerConnected({ ...base, endpoint, ...info, createdAt: new Date() }),
        );
      },
      disconnected: (info) => {
        session.dispatchOutsideCalls(
          new McpServerDisconnected({ ...base, endpoint, ...info, createdAt: new Date() }),
        );
      },
      failed: (info) => {
        session.dispatchOutsideCalls(
          new McpServerUnavailable({
            ...base,
            transport: config.transport.type,
            reason: info.reason,
            createdAt: new Date(),
          }),
        );
      },
      toolsChanged: () => options.toolsChanged(endpoint),
      log: (message) => {
        if (!isLogged(message.level, options.serverLogLevel)) return;
        // Masked as it arrives, not as the rate publishes it: a message held
        // back is published after the call that it echoes has settled.
        const calls = callSecretsInFlight(session);
        logRate.offer(calls === undefined ? message : withoutCallSecrets(message, calls));
      },
    }),
    isolated: (mode) => {
      options.isolating();
      // Calls go to the isolated side now: what it lists is what the model is offered.
      options.toolsChanged('isolated');
      session.dispatchOutsideCalls(
        new McpSectionIsolated({
          ...base,
          sectionKey,
          mode,
          sensitivity: session.privateData.sensitivity,
          createdAt: new Date(),
        }),
      );
    },
    networkDenied: (host, port, reason) => {
      // The host is what the sandboxed server asked for: its text, masked as it
      // arrives (a denial the rate holds back is published after the calls it may echo).
      const route = options.route();
      denialRate.offer({ host: route.redact(host), port, reason: route.redact(reason) });
    },
    isolationRecovered: () => options.toolsChanged('isolated'),
    isolationFailed: (reason) => {
      options.isolating();
      session.dispatchOutsideCalls(
        new McpIsolationFailed({ ...base, sectionKey, reason, createdAt: new Date() }),
      );
    },
    closed: () => {
      logRate.flush();
      denialRate.flush();
    },
  };
}

/** A destination the egress proxy refused. */
interface Denial {
  readonly host: string;
  readonly port: number;
  readonly reason: string;
}
