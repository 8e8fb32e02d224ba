/**
 * `loadMcpJson`: the server JSON that MCP clients already use — Claude
 * Code's `.mcp.json`, Claude Desktop's `claude_desktop_config.json`,
 * Cursor's `mcp.json` (all `mcpServers`) and VS Code's `mcp.json`
 * (`servers`) — read into checked server configs.
 *
 * ```json
 * {
 *   "mcpServers": {
 *     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] },
 *     "GitHub": { "type": "http", "url": "https://api.example.com/mcp",
 *                 "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" } }
 *   }
 * }
 * ```
 */
import { McpConfigError } from '../core/errors.js';
import { isPlainRecord } from '../core/json.js';
import { syntaxErrorPlace } from '../core/json-syntax.js';
import {
  coerceStrings,
  parseLoadedEntries,
  quote,
  readConfigText,
  type LoadedEntry,
} from './config-file.js';
import { expandEnv, type EnvironmentVariables } from './env-expansion.js';
import { suggestion } from './parse-server-configs.js';
import { addExpandedSecrets, type TakenValue } from './expanded-secrets.js';
import { SERVER_NAME_PATTERN, type ResolvedServerConfig } from './server-config.js';

/** Options of {@link loadMcpJson}. */
export interface LoadMcpJsonOptions {
  /**
   * Variables for `${VAR}`, `${VAR:-default}` and `${env:VAR}` in `command`,
   * `args`, `cwd`, `env`, `url` and `headers` values.
   * @default process.env
   */
  readonly env?: EnvironmentVariables;
  /**
   * What to do with a server key that breaks the server-name rule
   * (`^[a-z][a-z0-9_-]{0,31}$`): `normalize` maps it with
   * {@link normalizeServerName}; `strict` rejects it.
   * @default 'normalize'
   */
  readonly names?: 'normalize' | 'strict';
  readonly signal?: AbortSignal;
}

/** The `type` values an entry may have, and the transport each becomes. */
const TRANSPORT_BY_TYPE: Readonly<Record<string, 'stdio' | 'streamable-http' | 'sse'>> = {
  stdio: 'stdio',
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  streamableHttp: 'streamable-http',
  sse: 'sse',
};

/** The top-level keys that hold servers: most clients', then VS Code's. */
const ROOT_KEYS = ['mcpServers', 'servers'] as const;

/**
 * Loads the servers of an MCP client config, in key order.
 *
 * Per entry: `command`, `args`, `cwd` and `env` make a `stdio` server (`env`
 * is added to the safe default environment); `url` and `headers` an HTTP
 * server — `type: "http"` (or `"streamable-http"`, or no type) is streamable
 * HTTP, which falls back to SSE on a 404/405 answer, and `type: "sse"` is
 * the legacy SSE transport. An entry with `"disabled": true` is skipped;
 * other keys (`autoApprove`, `timeout`, `envFile`, ...) belong to other
 * clients and are ignored. Keys that break the server-name rule are
 * normalised (see {@link normalizeServerName}) unless `names: 'strict'`.
 *
 * @param source - a file path, or the parsed JSON object.
 * @throws {McpConfigError} whose `field` names the entry and key at fault
 *   (e.g. `mcpServers.github.url`); values that may be secrets (env, headers,
 *   URLs) are never quoted.
 * @example
 * ```ts
 * const servers = await loadMcpJson('.mcp.json');
 * const section = new McpIntegrationSection({ servers, session });
 * ```
 */
export async function loadMcpJson(
  source: string | object,
  options: LoadMcpJsonOptions = {},
): Promise<ResolvedServerConfig[]> {
  const where = typeof source === 'string' ? source : '(object)';
  const root = typeof source === 'string' ? await readJson(source, options.signal) : source;
  const rootKey = isPlainRecord(root)
    ? ROOT_KEYS.find((key) => Object.hasOwn(root, key))
    : undefined;
  if (!isPlainRecord(root) || rootKey === undefined) {
    throw new McpConfigError(
      'mcpServers',
      `${where}: missing the top-level "mcpServers" object (or VS Code's "servers")`,
    );
  }
  const servers = root[rootKey];
  if (!isPlainRecord(servers)) {
    throw new McpConfigError(
      rootKey,
      `${where}: "${rootKey}" must be an object of server name to settings`,
    );
  }
  const env = options.env ?? process.env;
  const strict = options.names === 'strict';
  const keysByName = new Map<string, string>();
  const entries: LoadedEntry[] = [];
  for (const [key, entry] of Object.entries(servers)) {
    const field = `${rootKey}.${key}`;
    const fail = (at: string, message: string): never => {
      const path = at === '' ? field : `${field}.${at}`;
      throw new McpConfigError(path, `${where}: ${path} ${message}`);
    };
    if (!isPlainRecord(entry)) return fail('', 'must be an object with "command" or "url"');
    const disabled = entry['disabled'];
    if (disabled !== undefined && typeof disabled !== 'boolean') {
      fail('disabled', `must be true or false; got ${quote(disabled)}`);
    }
    if (disabled === true) continue;
    checkEntryKeys(entry, fail);
    const name = serverName(key, strict, fail);
    const other = keysByName.get(name);
    if (other !== undefined) {
      fail('', `and ${rootKey}.${other} both become server name "${name}"; rename one of them`);
    }
    keysByName.set(name, key);
    entries.push(toEntry(name, entry, env, field, where, fail));
  }
  return parseLoadedEntries(entries, where);
}

/**
 * Maps an MCP client's server key to a valid server name, deterministically:
 * a valid name is kept as it is; otherwise accents are dropped, letters
 * lower-cased, every run of other characters becomes `_`, leading characters
 * before the first letter and trailing `_` are dropped, and the result is
 * cut to 32 characters. `undefined` when nothing valid is left.
 *
 * @example
 * normalizeServerName('GitHub');         // 'github'
 * normalizeServerName('brave search');   // 'brave_search'
 * normalizeServerName('@acme/tools.v2'); // 'acme_tools_v2'
 * normalizeServerName('42');             // undefined
 */
export function normalizeServerName(key: string): string | undefined {
  if (SERVER_NAME_PATTERN.test(key)) return key;
  const name = key
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 32)
    .replace(/_+$/, '');
  return SERVER_NAME_PATTERN.test(name) ? name : undefined;
}

function serverName(
  key: string,
  strict: boolean,
  fail: (at: string, message: string) => never,
): string {
  if (SERVER_NAME_PATTERN.test(key)) return key;
  if (strict) {
    return fail(
      '',
      `is not a valid server name: ${JSON.stringify(key)} must match ${SERVER_NAME_PATTERN.source}`,
    );
  }
  return (
    normalizeServerName(key) ??
    fail(
      '',
      `cannot be made a valid server name (${SERVER_NAME_PATTERN.source}): it has no letter to start with`,
    )
  );
}

/** The keys this loader reads from an entry. */
const ENTRY_KEYS = ['command', 'args', 'cwd', 'env', 'url', 'headers', 'type', 'disabled'];

/**
 * Keys of the library's own server config that no MCP client config uses:
 * in an entry they were ignored without a word, a server's `isolation`
 * with them (someone copying the programmatic shape lost it).
 */
const LIBRARY_ONLY_KEYS = [
  'isolation',
  'permissions',
  'sensitiveTools',
  'secrets',
  'inheritEnv',
  'timeoutMs',
  'maxTotalTimeoutMs',
  'maxResultChars',
  'toolPrefix',
];

/**
 * Keys other MCP clients give an entry (Claude Desktop, Cursor, Cline, VS
 * Code, Windsurf, Gemini CLI, ...), ignored here: some are a letter or two
 * from one of this loader's own (VS Code's `dev`, `env`).
 */
const OTHER_CLIENTS_KEYS = [
  'autoApprove',
  'alwaysAllow',
  'timeout',
  'transportType',
  'envFile',
  'dev',
  'trust',
  'includeTools',
  'excludeTools',
  'disabledTools',
  'httpUrl',
  'serverUrl',
  'description',
  'oauth',
  'name',
  'id',
];

/**
 * Refuses a key of the library's own config, and one that is a
 * misspelling of a key this loader reads (`arg`, `evn`, `Headers`); other
 * clients' keys (`autoApprove`, `timeout`, `envFile`, ...) pass.
 */
function checkEntryKeys(
  entry: Record<string, unknown>,
  fail: (at: string, message: string) => never,
): void {
  for (const key of Object.keys(entry)) {
    if (ENTRY_KEYS.includes(key) || OTHER_CLIENTS_KEYS.includes(key)) continue;
    if (LIBRARY_ONLY_KEYS.includes(key)) {
      fail(
        key,
        `is not read from an MCP client config, whose entries have ${ENTRY_KEYS.join(', ')}; give the server its ${key} in the library's own config (config.yaml, or the section's options: docs/config.md)`,
      );
    }
    const guess = suggestion(key, ENTRY_KEYS, {});
    if (guess !== undefined) fail(key, `is not a key of an entry; did you mean ${guess}?`);
  }
}

/** One entry in the programmatic shape; the schema checks the values. */
function toEntry(
  name: string,
  raw: Record<string, unknown>,
  variables: EnvironmentVariables,
  field: string,
  where: string,
  fail: (at: string, message: string) => never,
): LoadedEntry {
  const type = raw['type'];
  if (type !== undefined && (typeof type !== 'string' || !Object.hasOwn(TRANSPORT_BY_TYPE, type))) {
    fail('type', `must be one of ${Object.keys(TRANSPORT_BY_TYPE).join(', ')}; got ${quote(type)}`);
  }
  const hasCommand = raw['command'] !== undefined;
  const hasUrl = raw['url'] !== undefined;
  if (hasCommand === hasUrl) {
    fail(
      '',
      hasCommand
        ? 'has both "command" and "url"; keep one'
        : 'needs "command" (stdio) or "url" (HTTP)',
    );
  }
  const kind =
    typeof type === 'string' ? TRANSPORT_BY_TYPE[type] : hasCommand ? 'stdio' : 'streamable-http';
  if (kind === 'stdio' && !hasCommand)
    fail('type', `is "${String(type)}" but the entry has "url", not "command"`);
  if (kind !== 'stdio' && !hasUrl)
    fail('type', `is "${String(type)}" but the entry has "command", not "url"`);

  // Expand only the values that are ours to read; other clients' keys stay untouched.
  const taken: TakenValue[] = [];
  const expand = (key: string): unknown =>
    raw[key] === undefined
      ? undefined
      : expandEnv(raw[key], variables, `${field}.${key}`, where, (value, at) => {
          taken.push({ value, field: at });
        });
  const origins = new Map<string, string>();
  const transport: Record<string, unknown> = { type: kind };
  const config: Record<string, unknown> = { name, transport };
  const take = (
    key: string,
    into: Record<string, unknown>,
    as: string,
    path: string,
    adjust: (value: unknown) => unknown = (value) => value,
  ): void => {
    const value = expand(key);
    if (value === undefined || value === null) return;
    into[as] = adjust(value);
    origins.set(path, key);
  };
  if (kind === 'stdio') {
    if (raw['headers'] !== undefined) fail('headers', 'applies to "url" servers only');
    take('command', transport, 'command', 'transport.command');
    take('args', transport, 'args', 'transport.args');
    take('cwd', transport, 'cwd', 'transport.cwd');
    take('env', config, 'env', 'env', coerceStrings);
  } else {
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (raw[key] !== undefined) fail(key, 'applies to "command" (stdio) servers only');
    }
    take('url', transport, 'url', 'transport.url');
    take('headers', transport, 'headers', 'transport.headers', coerceStrings);
  }
  addExpandedSecrets(config, taken);
  return { field, config, origins, taken: taken.map((piece) => piece.value) };
}

async function readJson(file: string, signal: AbortSignal | undefined): Promise<unknown> {
  const text = await readConfigText(file, signal, 'config file');
  if (text === undefined) {
    throw new McpConfigError('(file)', `${file}: cannot read the config file (not found)`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // V8's message quotes the text around the error, which may hold a secret:
    // the place and what was expected there, never what was found.
    throw new McpConfigError(
      '(file)',
      `${file}: invalid JSON${syntaxErrorPlace(text, ' (nested too deeply to say where)')}`,
    );
  }
}
