import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpConnectionError } from '../core/errors.js';
import { canonicalJsonText } from '../core/json.js';
import type { McpTransportConfig } from '../config/server-config.js';
import type { Session } from '../runtime/session.js';
import { inAnyCall } from '../runtime/call-journal.js';
import { invokeTool } from '../tools/invoke-tool.js';
import { type McpTool, withSendCheck } from './bridge-tool.js';
import type { ClientHandlers } from './client-handlers.js';
import type { Endpoint, McpServerConnection } from './server-connection.js';

/** @internal A connection borrowed from a pool; `release()` gives it back. */
export interface PooledConnection {
  readonly connection: McpServerConnection;
  /** Closes the connection when nobody else holds it; idempotent. */
  release(): Promise<void>;
}

/** What a section registers for one of its servers. */
export interface PoolRegistration {
  readonly session: Session;
  /** The section's bridged tool for an original tool name. */
  find(originalName: string): McpTool | undefined;
  /** The original names of the server's tools as events show them, for error messages. */
  toolNames(): readonly string[];
  /** `text` with the server's secrets masked, as events show its tools' names. */
  masked(text: string): string;
  /**
   * How strictly the section routes the server now, for the pool to pick
   * the strictest: 2 once its calls go to isolation; 1 when it has no
   * isolation (once the session holds private data it refuses every tool
   * not declared closed-world); 0 when it isolates at a level not reached
   * yet (until then it refuses only tools declared network-capable).
   */
  strictness(): number;
}

/** Options of {@link McpConnectionPool.callTool}. */
export interface PoolCallOptions {
  readonly signal?: AbortSignal;
  /** When the call must be over: pass a native tool's `context.deadline` on. */
  readonly deadline?: Date;
  /** Whose session the call runs in, when the pool serves several. */
  readonly session?: Session;
}

function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

interface Entry {
  readonly connection: McpServerConnection;
  holders: number;
}

/**
 * Connections shared within a session: sections given the same pool open
 * one connection per server (same name, transport, environment, secrets,
 * and handlers of the server's own requests) instead of one each, and
 * native tools reach MCP servers through it:
 * `context.resources.get(McpConnectionPool)?.callTool('github', 'search', args, { session })`.
 */
export class McpConnectionPool {
  readonly #entries = new Map<string, Entry>();
  readonly #servers = new Map<string, readonly PoolRegistration[]>();
  /** The session sections registered for, while there has been only one. */
  #onlySession: WeakRef<Session> | undefined;
  /**
   * Once sections of two sessions have registered, a call must name its
   * session, even while only one of them is registered: a session whose
   * section is between connections would otherwise have its call run under
   * another session's ratchet.
   */
  #servesSeveralSessions = false;

  /** The key under which an endpoint's connection is shared. */
  static keyOf(
    serverName: string,
    endpoint: Endpoint,
    transport: McpTransportConfig,
    process: {
      readonly env: Readonly<Record<string, string>> | undefined;
      readonly inheritEnv: boolean;
      /**
       * `SecretRedactor.fingerprint` of the server's secrets: a shared
       * connection masks its errors, stderr and reasons with the redactor of
       * whoever opened it, so configs that mask differently share none.
       */
      readonly masks?: string;
      /**
       * Whose connection it is: the session, and the application's handlers
       * that answer the server's own requests on it. A connection serves one
       * session: a server's process keeps what one session's calls gave it,
       * and its logs are published to every holder, so a session that holds
       * private data must not share it with one whose calls may still reach
       * the network. A shared connection answers with the handlers of
       * whoever opened it, so holders that answer differently share none.
       */
      readonly answers?: { readonly session: object; readonly handlers: ClientHandlers };
      /**
       * Whether and when the holder stops the server's normal process for
       * good (`stopped at confidential`: a sandboxing route, or one whose
       * isolated deployment replaces a local process): a holder that does
       * not, or does at another level, would keep that process running.
       */
      readonly isolation?: string | undefined;
    },
  ): string {
    // An in-memory server is one object: share by identity, not by content.
    const transportKey =
      transport.type === 'in-memory'
        ? `in-memory:${objectId(transport.server)}`
        : canonicalJsonText(transport);
    const { answers } = process;
    const { elicitation, sampling, roots } = answers?.handlers ?? {};
    const answersKey =
      answers === undefined
        ? ''
        : [answers.session, elicitation, sampling, roots]
            .map((owner) => (owner === undefined ? '-' : String(objectId(owner))))
            .join(':');
    return `${serverName}\u0000${endpoint}\u0000${transportKey}\u0000${canonicalJsonText(process.env ?? {})}\u0000${String(process.inheritEnv)}\u0000${process.masks ?? ''}\u0000${answersKey}\u0000${process.isolation ?? ''}`;
  }

  /** @internal Borrows the connection for `key`, creating it with `create` the first time. */
  acquire(key: string, create: () => McpServerConnection): PooledConnection {
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { connection: create(), holders: 0 };
      this.#entries.set(key, entry);
    }
    entry.holders += 1;
    const held = entry;
    let released = false;
    return {
      connection: held.connection,
      release: async () => {
        if (released) return;
        released = true;
        held.holders -= 1;
        if (held.holders > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await held.connection.close();
      },
    };
  }

  /** Number of distinct connections open or opening. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * @internal Called by a section for each of its servers: `find` returns
   * the section's bridged tool for an original tool name. Returns the
   * function that removes the registration.
   */
  register(serverName: string, registration: PoolRegistration): () => void {
    const only = this.#onlySession?.deref();
    if (only === undefined) this.#onlySession = new WeakRef(registration.session);
    else if (only !== registration.session) this.#servesSeveralSessions = true;
    const list = this.#servers.get(serverName) ?? [];
    this.#servers.set(serverName, [...list, registration]);
    return () => {
      const now = (this.#servers.get(serverName) ?? []).filter((entry) => entry !== registration);
      if (now.length === 0) this.#servers.delete(serverName);
      else this.#servers.set(serverName, now);
    };
  }

  /**
   * Calls `toolName` (its name on the server) of `serverName` the way the
   * section's bridged tool does, through `invokeTool`: arguments validated,
   * the call refused when the ratchet blocks it (the server is not
   * reached), routed to the isolated endpoint or sandbox once the session
   * is escalated, rolled back on failure, and published as `ToolInvoked`.
   * A refusal or failure comes back as an `isError` result. When several
   * sections of the session configure the server, the one that routes it
   * most strictly runs the call; if another comes to route it more
   * strictly before the call is sent, the call is refused there (a
   * `ToolInvoked` failure) and runs once more on the new choice; a retry
   * so refused is not run elsewhere (its first attempt may have reached
   * the server).
   *
   * @throws McpConnectionError when no connected section of this pool has
   *   the server (of `options.session`, when given), or when the pool has
   *   served sections of several sessions and `options.session` does not
   *   say which.
   * @throws McpFatalToolError when the tool failed with the `[FATAL] ` tier.
   */
  callTool(
    serverName: string,
    toolName: string,
    args: Record<string, unknown>,
    options: PoolCallOptions = {},
  ): Promise<CallToolResult> {
    return this.#call(serverName, toolName, args, options, false);
  }

  async #call(
    serverName: string,
    toolName: string,
    args: Record<string, unknown>,
    options: PoolCallOptions,
    rechosen: boolean,
  ): Promise<CallToolResult> {
    const { registration, tool, weaker } = this.#registration(
      serverName,
      options.session,
      toolName,
    );
    // A tool of another session (a resource registry its sessions share) would
    // run this call under this session's ratchet: it must say whose it is.
    if (
      options.session === undefined &&
      inAnyCall() &&
      registration.session.currentCall() === undefined
    ) {
      throw new McpConnectionError(
        serverName,
        'none',
        `server "${serverName}" is pooled for another session than the tool call asking for it; pass { session: context.session } to say whose ratchet the call runs under`,
      );
    }
    if (tool === undefined && weaker !== undefined) {
      return errorResult(
        `server "${serverName}" runs "${registration.masked(toolName)}" only through the section that routes it most strictly, which has no such tool now (it is connecting, or the server is unavailable to it); a section that routes it less strictly is not used in its place`,
      );
    }
    if (tool === undefined) {
      return errorResult(
        `server "${serverName}" has no tool "${registration.masked(toolName)}"; its tools: ${registration.toolNames().join(', ') || '(none)'}`,
      );
    }
    // The choice holds until the call is sent: a section that came to route
    // the server more strictly meanwhile (the session's private data rose
    // past its level) takes the call, chosen again once. Not a retry: its
    // first attempt may have reached the server, and is not sent a third time.
    let overtaken = false;
    const check = (retry: boolean): string | undefined => {
      if (this.#strictestNow(serverName, registration.session) <= registration.strictness())
        return undefined;
      if (retry) {
        return `server "${serverName}" was not called again: before the retry was sent, another section of the session came to route the server more strictly (the first attempt may have reached it)`;
      }
      overtaken = true;
      return `server "${serverName}" was not called through the section chosen when the call started: before it was sent, another section of the session came to route the server more strictly`;
    };
    const result = await invokeTool(withSendCheck(tool, check), args, {
      session: registration.session,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.deadline === undefined ? {} : { deadline: options.deadline }),
    });
    if (overtaken && !rechosen) return this.#call(serverName, toolName, args, options, true);
    if (!result.success) return errorResult(result.message);
    const value = result.value;
    return {
      content: value?.content ?? [],
      ...(value?.structuredContent === undefined
        ? {}
        : { structuredContent: value.structuredContent }),
    };
  }

  /** How strictly the most strict of the session's sections that configure the server routes it now. */
  #strictestNow(serverName: string, session: Session): number {
    let strictest = -1;
    for (const candidate of this.#servers.get(serverName) ?? []) {
      if (candidate.session === session) strictest = Math.max(strictest, candidate.strictness());
    }
    return strictest;
  }

  /**
   * The section that runs a call of `toolName`, and its tool: of the
   * sections of the session that configure the server, those that route it
   * most strictly now ({@link PoolRegistration.strictness}), and of those
   * the last that has the tool (another, still connecting or without the
   * server, has none yet), else the last one (whose tools the refusal
   * lists), with `weaker` naming a less strict section that has it. The
   * last alone let the weakest routing a section configures win by the
   * order of connects: a section that does not isolate the server took a
   * call of a session at `confidential` to its normal deployment while
   * another had switched to isolation; and a strict section without the
   * tool (reconnecting, its endpoint down) must not pass the call on.
   */
  #registration(
    serverName: string,
    session: Session | undefined,
    toolName: string,
  ): {
    readonly registration: PoolRegistration;
    readonly tool: McpTool | undefined;
    readonly weaker?: PoolRegistration;
  } {
    const all = this.#servers.get(serverName) ?? [];
    const candidates =
      session === undefined ? all : all.filter((entry) => entry.session === session);
    const strictness = candidates.map((candidate) => candidate.strictness());
    const strictest = Math.max(-1, ...strictness);
    let chosen: PoolRegistration | undefined;
    let tool: McpTool | undefined;
    let weaker: PoolRegistration | undefined;
    for (let index = candidates.length - 1; index >= 0; index -= 1) {
      const candidate = candidates[index]!;
      if (strictness[index] !== strictest) {
        if (weaker === undefined && candidate.find(toolName) !== undefined) weaker = candidate;
        continue;
      }
      chosen ??= candidate;
      if (tool !== undefined) continue;
      tool = candidate.find(toolName);
      if (tool !== undefined) chosen = candidate;
    }
    if (chosen === undefined) {
      const known = [...this.#servers.keys()];
      throw new McpConnectionError(
        serverName,
        'none',
        `no pooled connection to server "${serverName}"; pooled servers: ${known.length === 0 ? '(none)' : known.join(', ')}`,
      );
    }
    if (session === undefined && this.#servesSeveralSessions) {
      throw new McpConnectionError(
        serverName,
        'none',
        `server "${serverName}" is pooled for several sessions; pass { session } to say whose ratchet the call runs under`,
      );
    }
    return tool === undefined && weaker !== undefined
      ? { registration: chosen, tool, weaker }
      : { registration: chosen, tool };
  }

  /** Closes every connection, whoever holds it. */
  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.connection.close()));
  }
}

const ids = new WeakMap<object, number>();
let nextId = 1;

function objectId(value: object): number {
  let id = ids.get(value);
  if (id === undefined) {
    id = nextId++;
    ids.set(value, id);
  }
  return id;
}
