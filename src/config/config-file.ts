/**
 * What the file loaders share: reading a file with errors that name it,
 * and remembering which key of the file each config value came from, so
 * that {@link parseServerConfigs} reports `mcp_servers.a.url`, not
 * `servers[0].transport.url`.
 */
import { readFile } from 'node:fs/promises';
import { McpConfigError } from '../core/errors.js';
import { isPlainRecord } from '../core/json.js';
import { maskingTaken } from './schema-helpers.js';
import { dotted, parseServerConfigs, type ConfigSource } from './parse-server-configs.js';
import type { ResolvedServerConfig } from './server-config.js';

/** A server as a loader built it, and where its values came from. */
export interface LoadedEntry {
  /** The file's field of this server, e.g. `mcpServers.github`. */
  readonly field: string;
  /** The config in the programmatic shape, not yet checked. */
  readonly config: Record<string, unknown>;
  /** Programmatic path (`transport.url`) → the file's key (`url`). */
  readonly origins: ReadonlyMap<string, string>;
  /** The values `${VAR}` expansion took from the environment, into any field. */
  readonly taken?: readonly string[];
}

/**
 * Checks what a loader built, with errors in the file's own names. An
 * error quotes a bad value of a field that holds no secret (a permission,
 * a level, a prefix); one taken from the environment is masked there all
 * the same (a token in the wrong variable), before it is quoted.
 */
export function parseLoadedEntries(
  entries: readonly LoadedEntry[],
  file: string,
): ResolvedServerConfig[] {
  const source: ConfigSource = {
    file,
    server: (index) => entries[index]?.field ?? `[${index}]`,
    key: (index, path) => fileKey(entries[index]?.origins, path),
  };
  const taken = entries.flatMap((entry) => entry.taken ?? []);
  return maskingTaken(taken, () => [
    ...parseServerConfigs(
      entries.map((entry) => entry.config),
      source,
    ),
  ]);
}

/** The file's spelling of `path`: the longest known prefix, then the rest as it is. */
function fileKey(
  origins: ReadonlyMap<string, string> | undefined,
  path: readonly PropertyKey[],
): string {
  for (let length = path.length; length > 0; length -= 1) {
    const origin = origins?.get(dotted(path.slice(0, length)));
    if (origin === undefined) continue;
    const rest = dotted(path.slice(length));
    return rest === '' || rest.startsWith('[') ? `${origin}${rest}` : `${origin}.${rest}`;
  }
  return dotted(path);
}

/**
 * The text of `file`, or `undefined` when it does not exist.
 * @throws McpConfigError for any other read error, naming the file.
 */
export async function readConfigText(
  file: string,
  signal: AbortSignal | undefined,
  what: string,
): Promise<string | undefined> {
  try {
    const text = await readFile(
      file,
      signal === undefined ? { encoding: 'utf8' } : { encoding: 'utf8', signal },
    );
    return text.replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if ((error as Error).name === 'AbortError') throw error;
    throw new McpConfigError('(file)', `${file}: cannot read the ${what} (${code ?? 'error'})`, {
      cause: error,
    });
  }
}

/** A short rendering of a value that is not a secret. */
export { quote } from './schema-helpers.js';

/**
 * YAML and `${VAR}` make scalars of the wrong kind: `8000` in a list of
 * arguments or a map of variables. Numbers and booleans become strings;
 * anything else is left for the schema to refuse.
 */
export function coerceStrings(value: unknown): unknown {
  const one = (item: unknown): unknown =>
    typeof item === 'number' || typeof item === 'boolean' ? String(item) : item;
  if (Array.isArray(value)) return value.map(one);
  if (!isPlainRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key named `__proto__` stays a key.
    Object.defineProperty(out, key, {
      value: one(item),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** `"30000"` (a number after `${VAR}` expansion) becomes 30000. */
export function coerceNumber(value: unknown): unknown {
  return typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}
