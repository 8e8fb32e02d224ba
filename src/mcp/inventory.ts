import { cutText } from '../core/well-formed.js';
import type { Tool } from '../tools/tool.js';
import { MAX_REASON_LENGTH, serverTextLine } from './server-text.js';

/** A server's tools, for the inventory. */
export interface InventoryServer {
  readonly name: string;
  readonly tools: readonly Tool[];
}

/** A server that failed to connect, and why. */
export interface UnavailableServer {
  readonly name: string;
  /**
   * Why, masked for the server's secrets by whoever made it. The block
   * cleans it again (one line, nothing invisible) and cuts it: a reason
   * masked before it was cleaned can hold a secret that invisible
   * characters split, which that cleaning joins up; make it with
   * `serverTextLine(text, Infinity, route)`, which masks after cleaning.
   */
  readonly reason: string;
}

/**
 * Longest tool description on an inventory line of the prompt text; the
 * tool definitions given to the model carry the whole description.
 */
export const DEFAULT_INVENTORY_DESCRIPTION_LENGTH = 200;

/** The text that opens the default inventory. */
export const INVENTORY_INTRO = 'The following external tools are available via MCP:';

/** The description a tool has in this render (a prompt override's, or its own). */
export type ToolDescriber = (tool: Tool) => string;

/**
 * What starts the inventory line of a tool the isolation ratchet refuses
 * now (the session holds private data): the tool stays offered, and a call
 * of it comes back refused with the reason.
 */
export const BLOCKED_MARK = '[blocked while this session holds private data]';

const OWN_DESCRIPTION: ToolDescriber = (tool) => tool.description;

/**
 * One block per server: a sub-heading one level below the section's own
 * heading, then one bullet per tool, its description cut to
 * `maxDescriptionLength` characters (with `…`).
 */
export function renderToolsByServer(
  servers: readonly InventoryServer[],
  depth: number,
  maxDescriptionLength: number = DEFAULT_INVENTORY_DESCRIPTION_LENGTH,
  describe: ToolDescriber = OWN_DESCRIPTION,
): string {
  const hashes = '#'.repeat(depth + 3);
  return servers
    .map((server) => {
      const lines =
        server.tools.length === 0
          ? ['- (no tools)']
          : server.tools.map(
              (tool) =>
                `- \`${tool.name}\` - ${inventoryDescription(describe(tool), maxDescriptionLength)}`,
            );
      return `${hashes} ${server.name}\n\n${lines.join('\n')}`;
    })
    .join('\n\n');
}

/**
 * A description for one inventory line: its backticks made quotes (a
 * server's backtick would close the line's code spans and let it write
 * what reads as another tool's entry), cut to `max` characters, never
 * inside a surrogate pair (half of one would make the prompt text
 * ill-formed, which providers refuse).
 */
export function inventoryDescription(description: string, max: number): string {
  return cutText(description.replaceAll('`', "'"), max);
}

/**
 * The default body as a template: what a prompt override of an MCP section
 * without a template of its own replaces.
 */
export const DEFAULT_INVENTORY_TEMPLATE = `${INVENTORY_INTRO}\n\n\${tools_by_server}`;

/** The default body: the intro line and the tools by server. */
export function renderDefaultInventory(
  servers: readonly InventoryServer[],
  depth: number,
  maxDescriptionLength: number = DEFAULT_INVENTORY_DESCRIPTION_LENGTH,
  describe: ToolDescriber = OWN_DESCRIPTION,
): string {
  if (servers.length === 0) return '';
  return `${INVENTORY_INTRO}\n\n${renderToolsByServer(servers, depth, maxDescriptionLength, describe)}`;
}

/** The warning block for servers that failed to initialize, sorted by name. */
export function renderUnavailable(servers: readonly UnavailableServer[], depth: number): string {
  if (servers.length === 0) return '';
  const sorted = [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [
    `${'#'.repeat(depth + 2)} Unavailable MCP Servers`,
    '',
    'The following servers failed to initialize and their tools are NOT available:',
    ...sorted.map(
      (server) => `- **${server.name}**: ${serverTextLine(server.reason, MAX_REASON_LENGTH)}`,
    ),
    '',
    'Do not attempt to use tools from these servers.',
  ].join('\n');
}
