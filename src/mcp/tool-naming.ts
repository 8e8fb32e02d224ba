import { createHash, createHmac, randomBytes } from 'node:crypto';
import { McpSchemaError } from '../core/errors.js';
import { shownOriginalName, type Tool, TOOL_NAME_PATTERN } from '../tools/tool.js';
import type { ResolvedServerConfig } from '../config/server-config.js';
import type { SecretRedactor } from './redact.js';
import { serverTextLine, type TextMasker } from './server-text.js';

const HASH_LENGTH = 8;
const MAX_NAME_LENGTH = 64;

/** The key of the suffix of a name mapped from its masked form: random, this process's own. */
const NAME_KEY = randomBytes(32);

/**
 * The bridged name of a server's tool: `${toolPrefix ?? name}_${original}`.
 * A name that would break `^[a-z0-9_-]{1,64}$` is mapped deterministically:
 * lower-cased, other characters replaced by `_`, cut to fit, and suffixed
 * with 8 hex digits of the original's SHA-256, so two different originals
 * never share a mapped name by accident. The wire always keeps the original.
 *
 * An original that holds one of the server's secrets (`secrets`) is mapped
 * too, from its masked form: the bridged name goes to the model, the
 * prompt and every event. Its suffix is then an HMAC under a key of this
 * process ({@link NAME_KEY}): a digest of the original alone, or one keyed
 * with the secrets, would let whoever sees the name test guesses of a weak
 * secret. Such a name is stable for the process, not across processes.
 */
export function bridgedToolName(
  prefix: string,
  original: string,
  secrets?: SecretRedactor,
): string {
  const plain = `${prefix}_${original}`;
  const masked = secrets?.hasSecrets === true ? secrets.redact(original) : original;
  if (masked === original && TOOL_NAME_PATTERN.test(plain)) return plain;
  const digest = masked === original ? createHash('sha256') : createHmac('sha256', NAME_KEY);
  const hash = digest.update(original).digest('hex').slice(0, HASH_LENGTH);
  const cleaned = `${prefix}_${masked}`.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return `${cleaned.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/** Applies `enabledTools` first, then `disabledTools`, to original names. */
export function isToolSelected(config: ResolvedServerConfig, original: string): boolean {
  if (config.enabledTools !== undefined && !config.enabledTools.includes(original)) return false;
  return config.disabledTools?.includes(original) !== true;
}

/**
 * Printable ASCII words separated by single spaces: text that
 * `serverTextLine` would return unchanged (other text goes through it).
 */
const CLEAN_ASCII_LINE = /^[!-~]+(?: [!-~]+)*$/;

/**
 * The server's description as the model is given it: whole (never cut, so
 * no instruction of the server's is lost), on one line with control and
 * invisible characters cleaned out, the server's secrets masked (after
 * cleaning as well as before, see `serverTextLine`), never empty. Without
 * a description, one naming the tool (its `original` name cleaned and
 * masked the same way). Only the inventory line in the prompt text is
 * capped (`renderToolsByServer`).
 */
export function bridgedDescription(
  serverName: string,
  original: string,
  description: string | undefined,
  masker: TextMasker,
): string {
  // Most servers send clean lines: a test allocates nothing, where cleaning copies.
  if (description !== undefined && CLEAN_ASCII_LINE.test(description)) {
    return masker.redact(description);
  }
  const text = serverTextLine(description ?? '', Number.POSITIVE_INFINITY, masker);
  return text.length > 0
    ? text
    : `Tool "${serverTextLine(original, 64, masker)}" of MCP server "${serverName}"`;
}

/**
 * Throws when two tools (of one server or of two) have the same bridged name.
 * @throws McpSchemaError naming both originals and their servers.
 */
export function assertUniqueToolNames(tools: readonly Tool[]): void {
  const seen = new Map<string, Tool>();
  for (const tool of tools) {
    const other = seen.get(tool.name);
    if (other !== undefined) {
      const [server, original] = serverAndOriginal(tool);
      const [otherServer, otherOriginal] = serverAndOriginal(other);
      throw new McpSchemaError(
        server,
        original,
        `bridged name "${tool.name}" is also the name of tool "${otherOriginal}" of server "${otherServer}"; ` +
          'set a different toolPrefix or disable one of them',
      );
    }
    seen.set(tool.name, tool);
  }
}

function serverAndOriginal(tool: Tool): readonly [server: string, original: string] {
  return tool.origin.kind === 'mcp'
    ? [tool.origin.server, shownOriginalName(tool.origin)]
    : ['', tool.name];
}
