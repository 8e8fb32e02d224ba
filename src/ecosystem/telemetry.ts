/**
 * OpenTelemetry spans for a session's tool calls and MCP connections, made
 * from the events the session already publishes. Through `@opentelemetry/api`
 * only: without a registered tracer provider every span is a no-op.
 *
 * Never recorded: secret arguments (see `src/tools/secret-arguments.ts`), server `env`,
 * header values, URL credentials, and tool results (only their outcome, and
 * the message of a failure, scrubbed of the secrets above). Once the
 * session holds private data, a server's words are left out as a trace
 * leaves them out (`withhold-private.ts`): spans leave the process too.
 */
import { cutText } from '../core/well-formed.js';
import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { McpServerConfig } from '../config/server-config.js';
import { McpServerConnected, McpServerDisconnected, McpServerUnavailable } from '../mcp/events.js';
import { SecretRedactor } from '../mcp/redact.js';
import type { Unsubscribe } from '../runtime/event-bus.js';
import { ToolInvoked } from '../runtime/events.js';
import type { Session } from '../runtime/session.js';
import type { Tool } from '../tools/tool.js';
import { maskSecretArguments } from '../tools/secret-arguments.js';
import { scrubSecrets } from '../tools/secret-text.js';
import { withholdPrivate } from './withhold-private.js';

/** Name of the tracer used when none is given. */
export const TRACER_NAME = 'mcp-sections';
/** Longest text kept in an attribute or status message; longer text is cut. */
export const MAX_ATTRIBUTE_LENGTH = 4_096;

/**
 * Where tool schemas are found, for the `x-secret`/`writeOnly` rule: a
 * `RenderedPrompt`, an `McpIntegrationSection` (asked at each call, so a
 * changed tool list is seen), or a list of tools.
 */
export type ToolLookup =
  readonly Tool[] | { readonly tools: readonly Tool[] } | { tools(): readonly Tool[] };

/** Options of {@link instrumentSession}. */
export interface InstrumentSessionOptions {
  /** @default trace.getTracer('mcp-sections') */
  readonly tracer?: Tracer;
  /** Tools whose schemas mark secret arguments. @default none (names decide) */
  readonly tools?: ToolLookup;
  /**
   * Server configs whose `env` values, header values and URL credentials are
   * scrubbed from every recorded text (the library's own events already
   * leave them out; this is a second guard).
   */
  readonly servers?: readonly McpServerConfig[];
  /**
   * Record the arguments, secrets withheld, as `tool.arguments` (JSON).
   * @default true
   */
  readonly recordArguments?: boolean;
  /**
   * Keep a server's words (a bridged call's failure message, a tool's
   * original name that is not an identifier, connection reasons) once the
   * session holds private data, for spans that stay where the data may go.
   * @default false: left out, as a trace leaves them out
   */
  readonly includePrivateText?: boolean;
}

/** Stops the instrumentation; also `using`-disposable. Idempotent. */
export type SessionInstrumentation = Unsubscribe & Disposable;

/**
 * Creates spans for a session: one per tool call (`execute_tool <name>`,
 * from `ToolInvoked`: it starts at `createdAt` and lasts `durationMs`), one
 * per server connection (`mcp.connection <server>`, from
 * `McpServerConnected` to `McpServerDisconnected`), and one per failed
 * connection (`mcp.connect <server>`, from `McpServerUnavailable`).
 *
 * Tool spans carry `mcp.server`, `mcp.tool` (the bridged name) and
 * `mcp.tool.original` for MCP tools, and for every tool `tool.outcome`
 * (`success` | `error`), `tool.duration_ms`, `tool.source`,
 * `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id` and
 * `session.id`; a failure sets the span status to ERROR with the result's
 * message. Spans are children of the context active when the event is
 * published (the caller's, for `invokeTool`).
 *
 * @returns a function that unsubscribes and ends connection spans still open.
 * @example
 * const stop = instrumentSession(session, { tools: section });
 * // ... calls ...
 * stop();
 */
export function instrumentSession(
  session: Session,
  options: InstrumentSessionOptions = {},
): SessionInstrumentation {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const recordArguments = options.recordArguments ?? true;
  const redactors = (options.servers ?? []).map((server) => SecretRedactor.forServer(server));
  const redact = (text: string, secrets: readonly string[] = []): string =>
    cut(
      scrubSecrets(
        redactors.reduce((out, redactor) => redactor.redact(out), text),
        secrets,
      ),
    );
  const ours = (event: { readonly sessionId: string }): boolean =>
    event.sessionId === session.sessionId;
  const keepPrivate = options.includePrivateText === true;
  /**
   * `event`'s fields as a span may keep them now (see withhold-private.ts):
   * the event itself while the session holds no private data.
   */
  const spanFields = (event: object): Readonly<Record<string, unknown>> => {
    const fields = event as Readonly<Record<string, unknown>>;
    return keepPrivate || !session.privateData.hasPrivateData
      ? fields
      : withholdPrivate(event.constructor.name, fields);
  };
  const connections = new Map<string, Span>();

  const onToolInvoked = (event: ToolInvoked): void => {
    if (!ours(event)) return;
    const tool = findToolIn(options.tools, event.toolName);
    const { masked, secrets } = maskSecretArguments(event.params, tool?.inputSchema);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': event.toolName,
      'gen_ai.tool.call.id': event.callId,
      'session.id': event.sessionId,
      'tool.source': event.source,
      'tool.outcome': event.result.success ? 'success' : 'error',
      'tool.duration_ms': event.durationMs,
    };
    const kept = spanFields(event);
    const originalName = kept['originalName'] as string | undefined;
    const message = (kept['result'] as { readonly message?: string }).message ?? '';
    if (event.source === 'mcp') {
      if (event.mcpServer !== undefined) attributes['mcp.server'] = event.mcpServer;
      attributes['mcp.tool'] = event.toolName;
      // The server's name for it: masked and cut like every other text.
      if (originalName !== undefined) attributes['mcp.tool.original'] = redact(originalName);
    }
    if (recordArguments) {
      const json = safeJson(masked);
      if (json !== undefined) attributes['tool.arguments'] = redact(json, secrets);
    }
    const start = event.createdAt.getTime();
    const span = tracer.startSpan(
      `execute_tool ${event.toolName}`,
      { kind: SpanKind.INTERNAL, startTime: start, attributes },
      context.active(),
    );
    if (!event.result.success) {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: redact(message, secrets),
      });
    }
    span.end(start + Math.max(0, event.durationMs));
  };

  /** A client span about one server, starting when `event` happened. */
  const serverSpan = (
    name: string,
    event: McpServerConnected | McpServerUnavailable,
    attributes: Attributes,
  ): Span =>
    tracer.startSpan(
      `${name} ${event.serverName}`,
      {
        kind: SpanKind.CLIENT,
        startTime: event.createdAt,
        attributes: {
          'session.id': event.sessionId,
          'mcp.server': event.serverName,
          'mcp.transport': event.transport,
          ...attributes,
        },
      },
      context.active(),
    );

  const onConnected = (event: McpServerConnected): void => {
    if (!ours(event)) return;
    const key = `${event.serverName}\u0000${event.endpoint}`;
    // A reconnect may arrive without a disconnect: the old connection ended then.
    connections.get(key)?.end(event.createdAt);
    const span = serverSpan('mcp.connection', event, {
      'mcp.endpoint': event.endpoint,
      'mcp.tool_count': event.toolCount,
      'mcp.reconnect': event.reconnect,
    });
    connections.set(key, span);
  };

  const onDisconnected = (event: McpServerDisconnected): void => {
    if (!ours(event)) return;
    const key = `${event.serverName}\u0000${event.endpoint}`;
    const span = connections.get(key);
    if (span === undefined) return;
    connections.delete(key);
    span.setAttribute('mcp.disconnect.expected', event.expected);
    const reason = spanFields(event)['reason'] as string | undefined;
    if (reason !== undefined) span.setAttribute('mcp.disconnect.reason', redact(reason));
    if (!event.expected) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: redact(reason ?? 'connection lost'),
      });
    }
    span.end(event.createdAt);
  };

  const onUnavailable = (event: McpServerUnavailable): void => {
    if (!ours(event)) return;
    const span = serverSpan('mcp.connect', event, { 'error.type': 'unavailable' });
    const reason = spanFields(event)['reason'] as string;
    span.setStatus({ code: SpanStatusCode.ERROR, message: redact(reason) });
    span.end(event.createdAt);
  };

  const unsubscribes = [
    session.bus.subscribe(ToolInvoked, onToolInvoked),
    session.bus.subscribe(McpServerConnected, onConnected),
    session.bus.subscribe(McpServerDisconnected, onDisconnected),
    session.bus.subscribe(McpServerUnavailable, onUnavailable),
  ];
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    for (const unsubscribe of unsubscribes) unsubscribe();
    // Connections still open are reported as open until now, not lost.
    for (const span of connections.values()) {
      span.setAttribute('mcp.connection.open_at_dispose', true);
      span.end();
    }
    connections.clear();
  };
  return Object.assign(dispose, { [Symbol.dispose]: dispose });
}

/** The tools a lookup holds now; none when it cannot answer (a section not connected). */
export function listTools(lookup: ToolLookup): readonly Tool[] {
  try {
    if (Array.isArray(lookup)) return lookup as readonly Tool[];
    const holder = lookup as { readonly tools: unknown };
    return typeof holder.tools === 'function'
      ? (lookup as { tools(): readonly Tool[] }).tools()
      : (lookup as { readonly tools: readonly Tool[] }).tools;
  } catch {
    // A section that is not connected has no tools to look at; names still decide.
    return [];
  }
}

/** The tool named `name` in `lookup`, if it holds one now. */
export function findToolIn(lookup: ToolLookup | undefined, name: string): Tool | undefined {
  return lookup === undefined ? undefined : listTools(lookup).find((tool) => tool.name === name);
}

function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function cut(text: string): string {
  return cutText(text, MAX_ATTRIBUTE_LENGTH);
}
