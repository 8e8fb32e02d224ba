import { PromptRenderError, PromptValidationError } from '../core/errors.js';
import {
  dedent,
  fillTemplate,
  parseTemplate,
  placeholderNames,
  type TemplatePart,
} from '../prompt/template-text.js';
import {
  Section,
  type SectionBodyRenderer,
  type SectionEnabledContext,
  type SectionRenderContext,
} from '../prompt/section.js';
import { sameItems } from '../prompt/same-items.js';
import {
  checkSummaryOption,
  type SectionSummaryContext,
  type VisibilitySelector,
} from '../prompt/visibility.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { Session } from '../runtime/session.js';
import type { ToolPolicy } from '../tools/policy/tool-policy.js';
import type { Tool } from '../tools/tool.js';
import type { ToolResult } from '../tools/tool-result.js';
import {
  type AvailableServer,
  DEFAULT_MCP_SECTION_KEY,
  McpClientGroup,
  type McpClientGroupOptions,
} from './client-group.js';
import type { ExecuteOptions, ExecuteRequest } from './execute.js';
import { checkGroupOptions, GROUP_OPTION_KEYS } from './group-options.js';
import {
  BLOCKED_MARK,
  DEFAULT_INVENTORY_DESCRIPTION_LENGTH,
  DEFAULT_INVENTORY_TEMPLATE,
  renderDefaultInventory,
  renderToolsByServer,
  renderUnavailable,
  type ToolDescriber,
  type UnavailableServer,
} from './inventory.js';
import type { ServerRoute } from './server-route.js';
import { MCP_SUMMARY_PLACEHOLDERS, renderSummaryPart } from './server-summary.js';

export { DEFAULT_MCP_SECTION_KEY };
/** Default section title. */
export const DEFAULT_MCP_SECTION_TITLE = 'MCP Integrations';
/** Placeholders a custom template may use. */
export const MCP_TEMPLATE_PLACEHOLDERS: readonly string[] = Object.freeze([
  'server_names',
  'tool_count',
  'tools_by_server',
]);

/** Every option a section takes: its group's, and its own. */
const SECTION_OPTION_KEYS: readonly string[] = [
  ...GROUP_OPTION_KEYS,
  'title',
  'template',
  'connectOnInit',
  'inventoryDescriptionLength',
  'acceptsOverrides',
  'children',
  'enabled',
  'policies',
  'visibility',
  'summary',
] satisfies readonly (keyof McpIntegrationSectionOptions)[];

/** The section's key for a message about its options, before they are checked. */
function sectionKeyOf(options: unknown): string {
  const key = (options as { key?: unknown } | null | undefined)?.key;
  return typeof key === 'string' ? key : DEFAULT_MCP_SECTION_KEY;
}

/** The options of a section that are its group's. */
function groupOptionsOf(options: McpIntegrationSectionOptions): McpClientGroupOptions {
  const picked: Record<string, unknown> = {};
  for (const key of GROUP_OPTION_KEYS) {
    if (Object.hasOwn(options, key)) picked[key] = options[key];
  }
  return picked as unknown as McpClientGroupOptions;
}

/** Options of {@link McpIntegrationSection}: its group's, and how it renders. */
export interface McpIntegrationSectionOptions extends Omit<McpClientGroupOptions, 'noun'> {
  /** @default 'MCP Integrations' */
  readonly title?: string;
  /** Body template with `${server_names}`, `${tool_count}`, `${tools_by_server}`. @default the tool inventory */
  readonly template?: string;
  /** Start connecting at construction; failures surface from `connect()`. @default false */
  readonly connectOnInit?: boolean;
  /**
   * Longest tool description on an inventory line of the prompt text, where
   * every tool takes one line; `toolDefinitions()` and the provider formats
   * always carry the whole description. @default 200
   */
  readonly inventoryDescriptionLength?: number;
  /**
   * Whether prompt overrides may replace the body template (with the same
   * placeholders; the unavailable-servers warning is always added) and the
   * descriptions of the bridged tools. The tools offered, their schemas and
   * the isolation ratchet are never theirs to change. @default false
   */
  readonly acceptsOverrides?: boolean;
  readonly children?: readonly Section[];
  readonly enabled?: (params: undefined, context: SectionEnabledContext) => boolean;
  /**
   * Rules for calls of this section's tools, run before the ratchet's own
   * checks, which they cannot loosen (docs/policies.md). @default none
   */
  readonly policies?: readonly ToolPolicy[];
  /**
   * `'summary'` shows one line per server (its key and tool count) and
   * offers no tools until the model opens the section, or one server with
   * the key `<section key>.<server>`. See docs/prompts.md. @default 'full'
   */
  readonly visibility?: VisibilitySelector<undefined>;
  /**
   * The summary's text (for the servers not opened), with `${server_names}`,
   * `${tool_count}` and `${server_summaries}` (one line per server).
   * @default an intro line and the server lines
   */
  readonly summary?: string;
}

/**
 * A prompt section that plugs MCP servers in: the tools of its
 * {@link McpClientGroup} (connections, bridging, routing, the ratchet),
 * and an inventory of them for the model.
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
  /** The servers, connections and tools this section renders. */
  readonly group: McpClientGroup;
  readonly #template: string | undefined;
  readonly #templateParts: readonly TemplatePart[] | undefined;
  readonly #summaryParts: readonly TemplatePart[] | undefined;
  readonly #inventoryLength: number;
  /** The last body rendered, and what it was made of. */
  #lastBody: { readonly inputs: readonly unknown[]; readonly body: string } | undefined;
  /** The last summary rendered, and what it was made of. */
  #lastSummary: { readonly inputs: readonly unknown[]; readonly body: string } | undefined;
  /** The tools of the opened servers last offered, and their servers' tool lists. */
  #lastOpenedTools:
    { readonly lists: readonly (readonly Tool[])[]; readonly tools: readonly Tool[] } | undefined;

  /**
   * @throws McpConfigError for a bad option or server config;
   *   PromptValidationError for a bad template.
   */
  constructor(options: McpIntegrationSectionOptions) {
    checkGroupOptions(options, `section "${sectionKeyOf(options)}"`, SECTION_OPTION_KEYS);
    super({
      key: options.key ?? DEFAULT_MCP_SECTION_KEY,
      title: options.title ?? DEFAULT_MCP_SECTION_TITLE,
      ...(options.children === undefined ? {} : { children: options.children }),
      ...(options.enabled === undefined ? {} : { enabled: options.enabled }),
      ...(options.policies === undefined ? {} : { policies: options.policies }),
      ...(options.visibility === undefined ? {} : { visibility: options.visibility }),
      acceptsOverrides: options.acceptsOverrides ?? false,
    });
    this.group = new McpClientGroup({ ...groupOptionsOf(options), key: this.key, noun: 'section' });
    const length = options.inventoryDescriptionLength ?? DEFAULT_INVENTORY_DESCRIPTION_LENGTH;
    if (!Number.isInteger(length) || length < 1) {
      throw new PromptValidationError(
        `section "${this.key}": inventoryDescriptionLength must be a whole number of characters of at least 1, received ${String(length)}`,
      );
    }
    this.#inventoryLength = length;
    if (options.template !== undefined) {
      this.#template = dedent(options.template);
      this.#templateParts = this.#parseTemplate(this.#template, `section "${this.key}"`);
    }
    this.#summaryParts = parseSummary(this.key, options.summary);
    if (this.summarizable) checkServerKeys(this.key, this.servers, this.children);
    if (options.connectOnInit === true) {
      // Failures surface from connect(); the extra handler keeps them from being unhandled.
      this.connect().catch(() => undefined);
    }
  }

  /** The servers as checked: frozen, aliases resolved, the isolation default applied. */
  get servers(): readonly ResolvedServerConfig[] {
    return this.group.servers;
  }

  get session(): Session {
    return this.group.session;
  }

  /** True when every server is connected. */
  get connected(): boolean {
    return this.group.connected;
  }

  /** True once any of this section's servers was switched to isolation; never goes back. */
  get isolated(): boolean {
    return this.group.isolated;
  }

  /** Servers that failed to connect (with `onConnectError: 'report'`), sorted by name. */
  get unavailableServers(): readonly UnavailableServer[] {
    return this.group.unavailableServers;
  }

  /** Names of the servers whose calls now go to their isolated endpoint or sandbox. */
  get isolatedServers(): readonly string[] {
    return this.group.isolatedServers;
  }

  /** @internal The routes, for the health monitor and the pool. */
  get routes(): readonly ServerRoute[] {
    return this.group.routes;
  }

  /** See {@link McpClientGroup.connect}. */
  connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    return this.group.connect(options);
  }

  /** Closes every connection and stops every child process; idempotent. */
  disconnect(): Promise<void> {
    return this.group.disconnect();
  }

  /**
   * See {@link McpClientGroup.execute}; the section's own policies run
   * first, then any in `options.policies`. It reaches every tool of the
   * section's servers: a summarized server's too (disclosure only decides
   * what a render offers) — give a text agent the rendered prompt's
   * tools when it must see only those.
   */
  execute(request: ExecuteRequest, options: ExecuteOptions = {}): Promise<ToolResult> {
    const own = this.policies();
    if (own.length === 0) return this.group.execute(request, options);
    const policies = options.policies === undefined ? own : [...own, ...options.policies];
    return this.group.execute(request, { ...options, policies });
  }

  /** @internal See {@link McpClientGroup.reconnectUnavailable}. */
  reconnectUnavailable(name: string, signal?: AbortSignal): Promise<boolean> {
    return this.group.reconnectUnavailable(name, signal);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /**
   * The bridged tools of every available server.
   * @throws McpConnectionError before `connect()` has finished.
   */
  override tools(): readonly Tool[] {
    return this.group.tools();
  }

  override toolsAtCreation(): readonly Tool[] {
    return this.group.ready ? this.group.tools() : [];
  }

  /** The custom template, or the default inventory's (`${tools_by_server}` after an intro line). */
  override bodyTemplate(): string {
    return this.#template ?? DEFAULT_INVENTORY_TEMPLATE;
  }

  /** An override's text is a template with the same placeholders as `template`. */
  override compileBody(text: string): SectionBodyRenderer {
    const parts = this.#parseTemplate(dedent(text), `override of section "${this.key}"`);
    return (_params, context) => this.#body(parts, context);
  }

  override renderBody(_params: undefined, context: SectionRenderContext): string {
    return this.#body(this.#templateParts, context);
  }

  #parseTemplate(text: string, where: string): readonly TemplatePart[] {
    const parts = parseTemplate(text, where);
    for (const name of placeholderNames(parts)) {
      if (!MCP_TEMPLATE_PLACEHOLDERS.includes(name)) {
        throw new PromptValidationError(
          `${where}: placeholder "\${${name}}" is not one of ${MCP_TEMPLATE_PLACEHOLDERS.join(', ')}`,
        );
      }
    }
    return parts;
  }

  /** The body from `parts` (the default inventory when undefined), reused while its inputs are unchanged. */
  #body(parts: readonly TemplatePart[] | undefined, context: SectionRenderContext): string {
    if (!this.group.ready) {
      throw new PromptRenderError(
        `section "${context.path}" is not connected; await section.connect() before rendering`,
      );
    }
    this.#checkSession(context);
    const servers = this.group.availableServers;
    const unavailable = this.unavailableServers;
    // What the body is made of; the same as last time means the same body, and
    // the inventory of many tools is not rebuilt (a server's tool list is
    // frozen, and replaced when its tools change).
    const inputs: unknown[] = [
      parts,
      context.toolDescription,
      context.depth,
      context.path,
      // Once it holds private data, the tools the ratchet blocks are marked.
      this.session.privateData.hasPrivateData,
    ];
    for (const server of servers) inputs.push(server.name, server.tools);
    for (const server of unavailable) inputs.push(server.name, server.reason);
    const last = this.#lastBody;
    if (last !== undefined && sameItems(inputs, last.inputs)) return last.body;
    const body = this.#renderInventory(parts, servers, unavailable, context);
    this.#lastBody = { inputs, body };
    return body;
  }

  /** Always true: the default summary lists the servers. */
  override hasSummary(): boolean {
    return true;
  }

  /** The available servers, each opened alone with the key `<path>.<server>`. */
  override summaryParts(): readonly string[] {
    return this.group.ready ? this.group.availableServers.map((server) => server.name) : [];
  }

  /** The tools of the opened servers (allow and block lists and the ratchet apply as ever). */
  override summaryTools(openedParts: ReadonlySet<string>): readonly Tool[] {
    const lists = this.group.availableServers
      .filter((server) => openedParts.has(server.name))
      .map((server) => server.tools);
    const last = this.#lastOpenedTools;
    if (last !== undefined && sameItems(lists, last.lists)) return last.tools;
    const tools = Object.freeze(lists.flat());
    this.#lastOpenedTools = { lists, tools };
    return tools;
  }

  /**
   * One line per server not opened (its key and tool count), the inventory
   * of the opened ones, and the unavailable servers.
   * @throws PromptRenderError before `connect()` has finished.
   */
  override renderSummary(_params: undefined, context: SectionSummaryContext): string {
    if (!this.group.ready) {
      throw new PromptRenderError(
        `section "${context.path}" is not connected; await section.connect() before rendering`,
      );
    }
    this.#checkSession(context);
    const servers = this.group.availableServers;
    const unavailable = this.unavailableServers;
    const inputs: unknown[] = [
      context.depth,
      context.path,
      [...context.openedParts].join(','),
      context.toolDescription,
      this.session.privateData.hasPrivateData,
    ];
    for (const server of servers) inputs.push(server.name, server.tools);
    for (const server of unavailable) inputs.push(server.name, server.reason);
    const last = this.#lastSummary;
    if (last !== undefined && sameItems(inputs, last.inputs)) return last.body;
    const opened = servers.filter((server) => context.openedParts.has(server.name));
    const closed = servers.filter((server) => !context.openedParts.has(server.name));
    const body = [
      renderSummaryPart(closed, context.path, this.#summaryParts),
      renderDefaultInventory(
        opened,
        context.depth,
        this.#inventoryLength,
        this.#describer(context),
      ),
      renderUnavailable(unavailable, context.depth),
    ]
      .filter((part) => part.length > 0)
      .join('\n\n');
    this.#lastSummary = { inputs, body };
    return body;
  }

  /**
   * @throws PromptRenderError when the render is for another session: this
   * section's tools would be refused there (the ratchet follows this
   * section's session).
   */
  #checkSession(context: SectionSummaryContext | SectionRenderContext): void {
    if (context.session === undefined || context.session === this.session) return;
    throw new PromptRenderError(
      `section "${context.path}" belongs to session "${this.session.sessionId}" and cannot be rendered for session "${context.session.sessionId}": make a section for each session`,
    );
  }

  /**
   * How the inventory describes a tool: as the render says (an override's
   * description) and, once the session holds private data, with a mark on
   * the tools the ratchet now refuses. They stay offered, and a call comes
   * back refused, saying why; the mark saves the model the attempt.
   */
  #describer(context: SectionSummaryContext | SectionRenderContext): ToolDescriber | undefined {
    const own = context.toolDescription;
    if (!this.session.privateData.hasPrivateData) return own;
    return (tool) => {
      const description = own === undefined ? tool.description : own(tool);
      return tool.refusal() === undefined ? description : `${BLOCKED_MARK} ${description}`;
    };
  }

  #renderInventory(
    parts: readonly TemplatePart[] | undefined,
    servers: readonly AvailableServer[],
    unavailable: readonly UnavailableServer[],
    context: SectionRenderContext,
  ): string {
    const describe = this.#describer(context);
    const body =
      parts === undefined
        ? renderDefaultInventory(servers, context.depth, this.#inventoryLength, describe)
        : fillTemplate(
            parts,
            {
              server_names: servers.map((server) => server.name).join(', '),
              tool_count: servers.reduce((count, server) => count + server.tools.length, 0),
              tools_by_server: renderToolsByServer(
                servers,
                context.depth,
                this.#inventoryLength,
                describe,
              ),
            },
            `section "${context.path}"`,
          );
    const warning = renderUnavailable(unavailable, context.depth);
    return [body, warning].filter((part) => part.length > 0).join('\n\n');
  }
}

function parseSummary(
  key: string,
  summary: string | undefined,
): readonly TemplatePart[] | undefined {
  checkSummaryOption(key, summary);
  if (summary === undefined) return undefined;
  const parts = parseTemplate(dedent(summary), `summary of section "${key}"`);
  for (const name of placeholderNames(parts)) {
    if (!MCP_SUMMARY_PLACEHOLDERS.includes(name)) {
      throw new PromptValidationError(
        `section "${key}": summary placeholder "\${${name}}" is not one of ${MCP_SUMMARY_PLACEHOLDERS.join(', ')}`,
      );
    }
  }
  return parts;
}

/** A server opens under `<key>.<server>`: a child section with that key would be ambiguous. */
function checkServerKeys(
  key: string,
  servers: readonly ResolvedServerConfig[],
  children: readonly Section[],
): void {
  for (const child of children) {
    if (servers.some((server) => server.name === child.key)) {
      throw new PromptValidationError(
        `section "${key}": child section key "${child.key}" is also a server name; a summarized section opens a server with the key "${key}.${child.key}", so rename one`,
      );
    }
  }
}
