import { createHash } from 'node:crypto';
import { McpSchemaError } from '../core/errors.js';
import { MAX_TOOL_DESCRIPTION_LENGTH, TOOL_NAME_PATTERN } from '../tools/tool.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import { serverTextLine } from './server-text.js';

const HASH_LENGTH = 8;
const MAX_NAME_LENGTH = 64;

/**
 * The bridged name of a server's tool: `${toolPrefix ?? name}_${original}`.
 * A name that would break `^[a-z0-9_-]{1,64}$` is mapped deterministically:
 * lower-cased, other characters replaced by `_`, cut to fit, and suffixed
 * with 8 hex digits of the original's SHA-256, so two different originals
 * never share a mapped name by accident. The wire always keeps the original.
 */
export function bridgedToolName(prefix: string, original: string): string {
  const plain = `${prefix}_${original}`;
  if (TOOL_NAME_PATTERN.test(plain)) return plain;
  const hash = createHash('sha256').update(original).digest('hex').slice(0, HASH_LENGTH);
  const cleaned = plain.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return `${cleaned.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/** Applies `enabledTools` first, then `disabledTools`, to original names. */
export function isToolSelected(config: ResolvedServerConfig, original: string): boolean {
  if (config.enabledTools !== undefined && !config.enabledTools.includes(original)) return false;
  return !(config.disabledTools ?? []).includes(original);
}

/** A description that fits the tool rules: trimmed, at most 200 characters, never empty. */
export function bridgedDescription(
  serverName: string,
  original: string,
  description: string | undefined,
): string {
  const text = serverTextLine(description ?? '', Number.POSITIVE_INFINITY);
  const line =
    text.length > 0 ? text : `Tool "${serverTextLine(original, 64)}" of MCP server "${serverName}"`;
  if (line.length <= MAX_TOOL_DESCRIPTION_LENGTH) return line;
  return `${line.slice(0, MAX_TOOL_DESCRIPTION_LENGTH - 1).trimEnd()}…`;
}

/**
 * Throws when two tools map to the same bridged name.
 * @throws McpSchemaError naming both originals.
 */
export function assertUniqueNames(
  serverName: string,
  entries: readonly {
    readonly bridged: string;
    readonly original: string;
    readonly serverName?: string;
  }[],
): void {
  const seen = new Map<string, { original: string; serverName: string }>();
  for (const entry of entries) {
    const owner = entry.serverName ?? serverName;
    const other = seen.get(entry.bridged);
    if (other !== undefined) {
      throw new McpSchemaError(
        owner,
        entry.original,
        `bridged name "${entry.bridged}" is also the name of tool "${other.original}" of server "${other.serverName}"; ` +
          'set a different toolPrefix or disable one of them',
      );
    }
    seen.set(entry.bridged, { original: entry.original, serverName: owner });
  }
}
