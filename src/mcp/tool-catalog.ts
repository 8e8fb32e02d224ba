/**
 * The bridged tools of a group's servers: bridged from each route's tool
 * list (reusing a tool whose definition did not change), checked for name
 * collisions within a server and across servers, and published as one
 * frozen list.
 */
import { McpSchemaError } from '../core/errors.js';
import type { Session } from '../runtime/session.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { type BridgeContext, bridgeTool, type McpTool, recordReach } from './bridge-tool.js';
import { ownValue } from '../core/own-value.js';
import { serverTextMasker } from './in-flight-secrets.js';
import { reachHistory } from './reach-history.js';
import { toAnnotations } from './tool-annotations.js';
import type { RetryOptions } from './retry-policy.js';
import { forgetSchemaObject, inputSchemaRefusal } from './schema/index.js';
import { MAX_SCHEMA_DEPTH, MAX_SCHEMA_TEXT_LENGTH } from './schema/json.js';
import { canonicalJsonText } from '../core/json.js';
import type { ServerRoute } from './server-route.js';
import type { McpToolDescription } from './server-connection.js';
import { assertUniqueToolNames, bridgedToolName, isToolSelected } from './tool-naming.js';

const NO_TOOLS: readonly McpTool[] = Object.freeze([]);

/** The name a server gave a bridged tool. */
export function originalName(tool: McpTool): string {
  return tool.origin.kind === 'mcp' ? tool.origin.originalName : tool.name;
}

/** Tools by server, and the published list of all of them. */
export class ToolCatalog {
  readonly #session: Session;
  readonly #retry: Required<RetryOptions>;
  readonly #byServer = new Map<string, readonly McpTool[]>();
  /** Each server's tools by bridged name, with the listing entry each was bridged from. */
  readonly #sources = new Map<string, ReadonlyMap<string, BridgedFrom>>();
  #all: readonly McpTool[] = Object.freeze([]);

  constructor(session: Session, retry: Required<RetryOptions>) {
    this.#session = session;
    this.#retry = retry;
  }

  /** Every published tool, in the order of the routes last published. */
  get all(): readonly McpTool[] {
    return this.#all;
  }

  /** One server's tools (none when it has no entry). */
  of(server: string): readonly McpTool[] {
    return this.#byServer.get(server) ?? NO_TOOLS;
  }

  /**
   * Bridges `route`'s current tools into the catalog and publishes the list
   * for `routes`. On any failure the server has no tools in the catalog.
   *
   * `storeUnread`: the session's store could not be read before this
   * listing, so it is read as made while the session held private data.
   *
   * @throws McpSchemaError for a schema that cannot be checked in bounded
   *   work, or a bridged name used twice (in the server or across servers).
   */
  refresh(
    route: ServerRoute,
    routes: readonly ServerRoute[],
    storeUnread = false,
  ): readonly McpTool[] {
    try {
      const refused = schemaRefusal(route);
      if (refused !== undefined) throw refused;
      const tools = this.#bridge(route, storeUnread);
      this.#byServer.set(route.name, tools);
      this.publish(routes);
      return tools;
    } catch (error) {
      this.remove(route.name, routes);
      throw error;
    }
  }

  /** Drops a server's tools and publishes the rest. */
  remove(server: string, routes: readonly ServerRoute[]): void {
    this.#byServer.delete(server);
    this.#sources.delete(server);
    this.publish(routes);
  }

  /** Forgets every tool. */
  clear(): void {
    this.#byServer.clear();
    this.#sources.clear();
    this.#all = Object.freeze([]);
  }

  /**
   * The list of every server's tools, in route order.
   * @throws McpSchemaError when two servers' tools share a bridged name.
   */
  publish(routes: readonly ServerRoute[]): void {
    const all: McpTool[] = [];
    for (const route of routes) {
      const tools = this.of(route.name);
      for (let index = 0; index < tools.length; index++) all.push(tools[index]!);
    }
    assertUniqueToolNames(all);
    this.#all = Object.freeze(all);
  }

  /** Bridges a route's current tools, reusing tools whose definition did not change. */
  #bridge(route: ServerRoute, storeUnread: boolean): readonly McpTool[] {
    const config = route.config;
    const prefix = config.toolPrefix ?? config.name;
    const previous = this.#sources.get(route.name);
    const shared = listsSharedObjects(config);
    const sources = new Map<string, BridgedFrom>();
    const tools: McpTool[] = [];
    const history = reachHistory(this.#session, route.name, config.transport);
    // A session with a store may have met this server in an earlier life or
    // on another worker: the reaches seen there are not stored.
    const seenBefore = history.seenBefore || this.#session.store !== undefined;
    // Read once, as the listing arrives: the calls in flight may have had a server copy one's
    // secret argument into the descriptions and titles it lists.
    const masker = serverTextMasker(this.#session, route.redactor);
    const context: BridgeContext = {
      session: this.#session,
      route,
      masker,
      retry: this.#retry,
      reaches: history.reaches,
      listedWhilePrivate: storeUnread || (seenBefore && this.#session.privateData.hasPrivateData),
    };
    const listed = route.tools;
    for (let index = 0; index < listed.length; index++) {
      const description = listed[index]!;
      if (!isToolSelected(config, description.name)) {
        const configured = ownValue(config.permissions, description.name);
        recordReach(description.name, configured, toAnnotations(description, masker), context);
        continue;
      }
      // Names are identifiers (the model calls tools by them): masked for the server's
      // secrets alone, never renamed by what a call happens to have in flight.
      const name = bridgedToolName(prefix, description.name, route.redactor);
      const from = previous?.get(name);
      // Reused only when the server lists it exactly as before: a changed
      // description, title, output schema or hint makes a new tool.
      const text = from === undefined ? undefined : canonicalText(description);
      if (from !== undefined && text !== null && text === textOf(from)) {
        // An in-process server may have edited the entry's nested objects in
        // place (read as they are now, both texts agree): the tool's checks
        // are made again from what its schema holds now.
        if (shared) {
          forgetSchemaObject(from.description.inputSchema);
          forgetSchemaObject(from.description.outputSchema);
          from.tool.forgetParams();
        }
        sources.set(name, from);
        tools.push(from.tool);
        continue;
      }
      const tool = bridgeTool(description, name, context);
      // Its text is written when it is first compared (a first connect writes none).
      sources.set(name, text === undefined ? { tool, description } : { tool, description, text });
      tools.push(tool);
    }
    // Names used twice within the server are found by publish, with the same message
    // (and the server's tools and sources are then removed).
    this.#sources.set(route.name, sources);
    return Object.freeze(tools);
  }
}

/**
 * Whether a route's listings hand over objects its server still holds: an
 * in-process server (the in-memory transport, normal or isolated), which
 * may edit them in place and then announce `tools/list_changed`. Listings
 * read from JSON are fresh objects every time.
 */
function listsSharedObjects(config: ResolvedServerConfig): boolean {
  return config.transport.type === 'in-memory' || config.isolation?.transport?.type === 'in-memory';
}

/**
 * The refusal of a schema that cannot be checked in bounded work (not a
 * name collision): its server is left out, whatever `onConnectError` says.
 * Callers see an `McpSchemaError`.
 */
export class McpSchemaRefusal extends McpSchemaError {}

/**
 * Most RE2 instructions the patterns of one server's listed schemas may
 * compile to together at connect (≈ 2 µs each here): a listing of many
 * schemas, each under its own bound, is bounded too.
 */
export const MAX_LISTING_PATTERN_INSTRUCTIONS = 200_000;

/** The first of a route's tools whose input schema is refused outright, as an error. */
function schemaRefusal(route: ServerRoute): McpSchemaError | undefined {
  const budget = {
    instructions: MAX_LISTING_PATTERN_INSTRUCTIONS,
    instructionsLeft: MAX_LISTING_PATTERN_INSTRUCTIONS,
  };
  const { tools, schemas } = route.listing;
  for (let index = 0; index < tools.length; index++) {
    const description = tools[index]!;
    if (!isToolSelected(route.config, description.name)) continue;
    const reason = inputSchemaRefusal(description.inputSchema, budget, schemas[index]);
    if (reason !== undefined) return new McpSchemaRefusal(route.name, description.name, reason);
  }
  return undefined;
}

/** A bridged tool, the listing entry it was bridged from, and that entry's canonical text once written. */
interface BridgedFrom {
  readonly tool: McpTool;
  readonly description: McpToolDescription;
  /** Null when the entry is not JSON (an in-process server's object). */
  text?: string | null;
}

function textOf(from: BridgedFrom): string | null {
  from.text ??= canonicalText(from.description);
  return from.text;
}

/**
 * How much of a listing entry is written to compare it: its input schema
 * is bounded alone, but an in-process server's getter may give another
 * value on a second read, and its output schema and `_meta` only by the
 * whole listing's bound. An entry past it is not reused.
 */
const ENTRY_TEXT_LIMITS = { maxDepth: MAX_SCHEMA_DEPTH + 2, maxChars: 4 * MAX_SCHEMA_TEXT_LENGTH };

/** A listing entry as canonical JSON text, or null when it is not JSON or past its limits: never reused then. */
function canonicalText(description: McpToolDescription): string | null {
  try {
    return canonicalJsonText(description, ENTRY_TEXT_LIMITS);
  } catch {
    return null;
  }
}
