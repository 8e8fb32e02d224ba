/**
 * `loadMcpJson`: the `mcpServers` JSON that MCP clients already use —
 * Claude Code's `.mcp.json`, Claude Desktop's `claude_desktop_config.json`,
 * Cursor's `mcp.json` and the like — read into validated `McpServerConfig[]`.
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
import { readFile } from 'node:fs/promises';
import { McpConfigError } from '../core/errors.js';
import type {
  McpServerConfig,
  McpTransportConfig,
  SseTransportConfig,
  StdioTransportConfig,
  StreamableHttpTransportConfig,
} from '../mcp/config-types.js';
import { SERVER_NAME_PATTERN, validateServerConfigs } from '../mcp/config.js';
import { expandEnv, type EnvironmentVariables } from '../server/env-expansion.js';

/** Options of {@link loadMcpJson}. */
export interface LoadMcpJsonOptions {
  /**
   * Variables for `${VAR}` and `${VAR:-default}` in `command`, `args`,
   * `cwd`, `env`, `url` and `headers` values.
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
const TRANSPORT_BY_TYPE: Readonly<Record<string, McpTransportConfig['type']>> = {
  stdio: 'stdio',
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  streamableHttp: 'streamable-http',
  sse: 'sse',
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Loads the `mcpServers` of an MCP client config, in key order.
 *
 * Per entry: `command`, `args`, `cwd` and `env` make a `stdio` server (`env`
 * is added to the parent environment); `url` and `headers` an HTTP server —
 * `type: "http"` (or `"streamable-http"`, or no type) is streamable HTTP,
 * which falls back to SSE on a 404/405 answer, and `type: "sse"` is the
 * legacy SSE transport. An entry with `"disabled": true` is skipped; other
 * keys (`autoApprove`, `timeout`, `description`, ...) belong to other clients
 * and are ignored. Keys that break the server-name rule are normalised (see
 * {@link normalizeServerName}) unless `names: 'strict'`.
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
): Promise<McpServerConfig[]> {
  const where = typeof source === 'string' ? source : '(object)';
  const root = typeof source === 'string' ? await readJson(source, options.signal) : source;
  if (!isRecord(root) || !('mcpServers' in root)) {
    throw new McpConfigError('mcpServers', `${where}: missing the top-level "mcpServers" object`);
  }
  const servers = root['mcpServers'];
  if (!isRecord(servers)) {
    throw new McpConfigError(
      'mcpServers',
      `${where}: "mcpServers" must be an object of server name to settings`,
    );
  }
  const env = options.env ?? process.env;
  const strict = options.names === 'strict';
  const keysByName = new Map<string, string>();
  const configs: McpServerConfig[] = [];
  for (const [key, entry] of Object.entries(servers)) {
    const field = `mcpServers.${key}`;
    const fail = (at: string, message: string): never => {
      const path = at === '' ? field : `${field}.${at}`;
      throw new McpConfigError(path, `${where}: ${path} ${message}`);
    };
    if (!isRecord(entry)) fail('', 'must be an object with "command" or "url"');
    if ((entry as Record<string, unknown>)['disabled'] === true) continue;
    const name = serverName(key, strict, fail);
    const other = keysByName.get(name);
    if (other !== undefined) {
      fail('', `and mcpServers.${other} both become server name "${name}"; rename one of them`);
    }
    keysByName.set(name, key);
    configs.push(toServerConfig(name, entry as Record<string, unknown>, env, field, where, fail));
  }
  // The same checks McpIntegrationSection makes, before anything starts.
  return [...validateServerConfigs(configs)];
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

function toServerConfig(
  name: string,
  raw: Record<string, unknown>,
  variables: EnvironmentVariables,
  field: string,
  where: string,
  fail: (at: string, message: string) => never,
): McpServerConfig {
  const type = raw['type'];
  if (type !== undefined && (typeof type !== 'string' || !(type in TRANSPORT_BY_TYPE))) {
    fail(
      'type',
      `must be one of ${Object.keys(TRANSPORT_BY_TYPE).join(', ')}; got ${describe(type)}`,
    );
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
  const expand = (key: string): unknown =>
    raw[key] === undefined ? undefined : expandEnv(raw[key], variables, `${field}.${key}`, where);

  const config: Mutable<McpServerConfig> = { name, transport: { type: 'stdio', command: '' } };
  if (kind === 'stdio') {
    for (const key of ['headers'] as const) {
      if (raw[key] !== undefined) fail(key, 'applies to "url" servers only');
    }
    const stdio: Mutable<StdioTransportConfig> = {
      type: 'stdio',
      command: nonEmptyString(expand('command'), 'command', fail),
    };
    const args = stringList(expand('args'), 'args', fail);
    if (args !== undefined) stdio.args = args;
    const cwd = optionalString(expand('cwd'), 'cwd', fail);
    if (cwd !== undefined) stdio.cwd = cwd;
    config.transport = Object.freeze(stdio);
    const env = stringMap(expand('env'), 'env', fail);
    if (env !== undefined) config.env = env;
  } else {
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (raw[key] !== undefined) fail(key, 'applies to "command" (stdio) servers only');
    }
    const url = httpUrl(expand('url'), fail);
    const headers = stringMap(expand('headers'), 'headers', fail);
    const http: Mutable<StreamableHttpTransportConfig> | Mutable<SseTransportConfig> =
      kind === 'sse' ? { type: 'sse', url } : { type: 'streamable-http', url };
    if (headers !== undefined) http.headers = headers;
    config.transport = Object.freeze(http);
  }
  return Object.freeze(config);
}

async function readJson(file: string, signal: AbortSignal | undefined): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(
      file,
      signal === undefined ? { encoding: 'utf8' } : { encoding: 'utf8', signal },
    );
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'not found' : (code ?? 'error');
    throw new McpConfigError('(file)', `${file}: cannot read the config file (${why})`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, '')) as unknown;
  } catch (error) {
    // V8's message quotes the text around the error, which may hold a secret: give the place only.
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    const at = position === undefined ? '' : ` at ${lineAndColumn(text, Number(position))}`;
    throw new McpConfigError('(file)', `${file}: invalid JSON${at}`);
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).replace(/^\uFEFF/, '');
  const lines = before.split('\n');
  return `line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1}`;
}

function nonEmptyString(
  value: unknown,
  key: string,
  fail: (at: string, m: string) => never,
): string {
  if (typeof value !== 'string' || value.trim() === '') {
    return fail(key, `must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

function optionalString(
  value: unknown,
  key: string,
  fail: (at: string, m: string) => never,
): string | undefined {
  return value === undefined || value === null ? undefined : nonEmptyString(value, key, fail);
}

function stringList(
  value: unknown,
  key: string,
  fail: (at: string, m: string) => never,
): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value))
    return fail(key, `must be an array of strings, got ${describe(value)}`);
  return Object.freeze(
    value.map((item: unknown, index) =>
      typeof item === 'string'
        ? item
        : fail(`${key}[${index}]`, `must be a string, got ${describe(item)}`),
    ),
  );
}

/** A map of strings (env, headers). Values may be secrets: never quoted; numbers and booleans become strings. */
function stringMap(
  value: unknown,
  key: string,
  fail: (at: string, m: string) => never,
): Readonly<Record<string, string>> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return fail(key, 'must be an object of names to strings');
  const out: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item === 'string') out[name] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[name] = String(item);
    else fail(`${key}.${name}`, `must be a string, got ${item === null ? 'null' : typeof item}`);
  }
  return Object.freeze(out);
}

function httpUrl(value: unknown, fail: (at: string, m: string) => never): string {
  // URLs may carry credentials once expanded: describe, never quote.
  if (typeof value !== 'string')
    return fail('url', `must be an http(s) URL string, got ${typeof value}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('url', 'is not a valid absolute URL (expected e.g. http://localhost:8000/mcp)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail('url', `must use http: or https:, got ${JSON.stringify(url.protocol)}`);
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of a non-secret bad value. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
