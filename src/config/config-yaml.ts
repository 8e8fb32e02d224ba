/**
 * `loadMcpConfig`: reads the `mcp_servers` section of a `config.yaml` into
 * checked server configs, expanding `${VAR}` from the environment (and
 * from a `.env` beside the file, which never overrides the real
 * environment). Other top-level sections belong to the application and are
 * neither read nor expanded.
 *
 * Three shapes of entry are read, and may not be mixed within one entry:
 *
 * ```yaml
 * mcp_servers:
 *   data_tools:                   # the seeds' client entry
 *     type: client
 *     url: http://data-tools:8000/mcp
 *     url_isolated: http://data-tools-isolated:8000/mcp
 *     read_timeout: 60            # seconds
 *   files:                        # a stdio server, keys as in McpServerConfig (snake_case)
 *     command: node
 *     args: [server.js, /data]
 *     permissions: { fetch_url: [connect] }
 *     sensitive_tools: { load_records: confidential }
 *   kubernetes:                   # TARSy's transport block
 *     transport: { type: stdio, command: npx, args: [-y, kubernetes-mcp-server] }
 * ```
 */
import path from 'node:path';
import { isMap, isNode, parseDocument, type Document } from 'yaml';
import { McpConfigError, messageOf } from '../core/errors.js';
import { isPlainRecord } from '../core/json.js';
import {
  coerceNumber,
  coerceStrings,
  parseLoadedEntries,
  quote,
  readConfigText,
  type LoadedEntry,
} from './config-file.js';
import { parseDotenv } from './dotenv.js';
import { expandEnv, type EnvironmentVariables } from './env-expansion.js';
import { maskingTaken } from './schema-helpers.js';
import { addExpandedSecrets, type TakenValue } from './expanded-secrets.js';
import { suggestion, unknownKeyText } from './parse-server-configs.js';
import type { ResolvedServerConfig } from './server-config.js';

/** Options of {@link loadMcpConfig}. */
export interface LoadMcpConfigOptions {
  /** Variables for `${VAR}`. @default process.env */
  readonly env?: EnvironmentVariables;
  /** Read `.env` beside the config file for variables the environment lacks. @default true */
  readonly dotenv?: boolean;
  readonly signal?: AbortSignal;
}

/** A file key, where its value goes in the programmatic config, and how it is read. */
interface KeyRule {
  readonly to: string;
  readonly read?: (value: unknown) => unknown;
}

/** Entry keys that map one to one onto a programmatic field. */
const SIMPLE_KEYS: Readonly<Record<string, KeyRule>> = {
  tool_prefix: { to: 'toolPrefix' },
  enabled_tools: { to: 'enabledTools' },
  disabled_tools: { to: 'disabledTools' },
  timeout_ms: { to: 'timeoutMs', read: coerceNumber },
  max_total_timeout_ms: { to: 'maxTotalTimeoutMs', read: coerceNumber },
  max_result_chars: { to: 'maxResultChars', read: coerceNumber },
  env: { to: 'env', read: coerceStrings },
  inherit_env: { to: 'inheritEnv' },
  permissions: { to: 'permissions' },
  sensitive_tools: { to: 'sensitiveTools' },
  isolation_at: { to: 'isolation.at' },
};

/** Keys of the seeds' client entry and of a stdio entry, read into `transport`. */
const TRANSPORT_KEYS = ['url', 'headers', 'command', 'args', 'cwd'] as const;
const OTHER_KEYS = ['type', 'url_isolated', 'read_timeout', 'transport', 'isolation'] as const;
const ENTRY_KEYS: readonly string[] = [
  ...TRANSPORT_KEYS,
  ...OTHER_KEYS,
  ...Object.keys(SIMPLE_KEYS),
];
const ISOLATION_KEYS = ['at', 'unshare_fallback', 'read_only_paths', 'network'] as const;
/** TARSy's `transport:` block. */
const TARSY_KEYS = [
  'type',
  'command',
  'args',
  'env',
  'url',
  'bearer_token',
  'verify_ssl',
  'timeout',
] as const;
const TARSY_TYPES: Readonly<Record<string, string>> = {
  stdio: 'stdio',
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  sse: 'sse',
};

const HINTS: Readonly<Record<string, string>> = {
  timeout: 'read_timeout (seconds) or timeout_ms',
  enabled: 'remove the entry instead',
};

/**
 * Loads the MCP servers of a `config.yaml`, in file order.
 *
 * Per server: `url` becomes a `streamable-http` transport and `url_isolated`
 * its `isolation.transport` (`headers` applies to both); `command`, `args`,
 * `cwd` and `env` a `stdio` transport; `read_timeout` is the seeds'
 * per-request timeout in seconds; the other keys are the snake_case of
 * {@link McpServerConfig}'s (`tool_prefix`, `timeout_ms`, `sensitive_tools`,
 * `isolation: { at, unshare_fallback, read_only_paths, network: { allow } }`,
 * …). A `transport:` block (TARSy's form: `type: stdio | http | sse`,
 * `command`, `args`, `env`, `url`, `bearer_token`, `timeout` in seconds)
 * replaces the top-level transport keys.
 *
 * @throws {McpConfigError} whose `field` names the key at fault (e.g.
 *   `mcp_servers.template.timeout_ms`) for an unreadable file, bad YAML, an
 *   unknown key (with the key it probably meant), a bad value or an unset
 *   `${VAR}`. Values that may be secrets (URLs, headers, env) are never quoted.
 * @example
 * ```ts
 * const servers = await loadMcpConfig('config.yaml');
 * const section = new McpIntegrationSection({ servers, session });
 * ```
 */
export async function loadMcpConfig(
  configPath: string,
  options: LoadMcpConfigOptions = {},
): Promise<ResolvedServerConfig[]> {
  const source = configPath;
  const text = await readConfigText(configPath, options.signal, 'config file');
  if (text === undefined) {
    throw new McpConfigError('(file)', `${source}: cannot read the config file (not found)`);
  }
  const env = await environment(configPath, options);

  const document = parseDocument(text, { uniqueKeys: true });
  const yamlError = document.errors[0];
  if (yamlError !== undefined) {
    const where = yamlError.linePos?.[0];
    const at = where === undefined ? '' : ` at line ${where.line}, column ${where.col}`;
    throw new McpConfigError('(file)', `${source}: invalid YAML${at}: ${yamlError.code}`);
  }
  const root = document.contents;
  if (!isMap(root) || !root.has('mcp_servers')) {
    throw new McpConfigError('mcp_servers', `${source}: missing the top-level mcp_servers key`);
  }
  const servers = serversToJS(document, root.get('mcp_servers', true), source);
  if (servers === null || servers === undefined) return [];
  if (!isPlainRecord(servers)) {
    throw new McpConfigError(
      'mcp_servers',
      `${source}: mcp_servers must be a map of server name to settings`,
    );
  }
  const entries = Object.entries(servers).map(([name, entry]) => {
    const field = `mcp_servers.${name}`;
    const taken: TakenValue[] = [];
    const expanded = expandEnv(entry, env, field, source, (value, at) => {
      taken.push({ value, field: at });
    });
    const values = taken.map((piece) => piece.value);
    // Its own checks quote values too: those taken from the environment are masked there.
    const loaded = maskingTaken(values, () => toEntry(name, expanded, field, source));
    addExpandedSecrets(loaded.config, taken);
    return { ...loaded, taken: values };
  });
  return parseLoadedEntries(entries, source);
}

/** Alias uses allowed in `mcp_servers` (nested ones multiplied), yaml's default. */
const MAX_ALIAS_COUNT = 100;

/**
 * The `mcp_servers` section as plain data. Only this section is converted:
 * the others belong to the application. yaml refuses an alias that expands
 * too much (a "billion laughs" file) or names no anchor with a
 * `ReferenceError`; that becomes an {@link McpConfigError}.
 */
function serversToJS(document: Document, node: unknown, source: string): unknown {
  if (!isNode(node)) return node;
  try {
    return node.toJS(document, { maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (error) {
    // yaml's own words may quote the file (an alias's name): each kind gets a sentence of ours.
    const problem = !(error instanceof ReferenceError)
      ? /merge sources/i.test(messageOf(error))
        ? 'a merge key `<<` of something other than a map'
        : 'a value it cannot convert'
      : /excessive alias count/i.test(error.message)
        ? `its aliases expand too much (over ${MAX_ALIAS_COUNT} alias uses, nested ones ` +
          'multiplied; a guard against resource exhaustion); repeat the values or use fewer aliases'
        : 'an alias names no anchor set before it';
    throw new McpConfigError('mcp_servers', `${source}: invalid YAML in mcp_servers: ${problem}`, {
      cause: error,
    });
  }
}

async function environment(
  configPath: string,
  options: LoadMcpConfigOptions,
): Promise<EnvironmentVariables> {
  const real = options.env ?? process.env;
  if (options.dotenv === false) return real;
  const dotenvPath = path.join(path.dirname(configPath), '.env');
  const text = await readConfigText(dotenvPath, options.signal, '.env file');
  if (text === undefined) return real;
  const merged: Record<string, string | undefined> = parseDotenv(text, dotenvPath);
  for (const [key, value] of Object.entries(real)) {
    // The real environment wins: .env only fills gaps.
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** Builds one entry in the programmatic shape; the schema checks the values. */
function toEntry(name: string, entry: unknown, field: string, source: string): LoadedEntry {
  const fail = (key: string, message: string): never => {
    const at = key === '' ? field : `${field}.${key}`;
    throw new McpConfigError(at, `${source}: ${at} ${message}`);
  };
  if (!isPlainRecord(entry)) return fail('', 'must be a map of settings (url or command, ...)');
  refuseUnknown(entry, ENTRY_KEYS, '', fail);
  if (entry['type'] !== undefined && entry['type'] !== 'client') {
    fail('type', `must be "client" when present, got ${quote(entry['type'])}`);
  }

  const config: Record<string, unknown> = { name };
  // The name is the entry's key: an error about it names the entry.
  const origins = new Map<string, string>([['name', '']]);
  const put = (to: string, value: unknown, from: string): void => {
    if (value === undefined || value === null) return;
    const keys = to.split('.');
    let target = config;
    for (const key of keys.slice(0, -1)) {
      target[key] ??= {};
      target = target[key] as Record<string, unknown>;
    }
    target[keys.at(-1) ?? to] = value;
    origins.set(to, from);
  };

  readTransport(entry, put, fail);
  for (const [key, rule] of Object.entries(SIMPLE_KEYS)) {
    put(rule.to, rule.read === undefined ? entry[key] : rule.read(entry[key]), key);
  }
  const readTimeout = entry['read_timeout'];
  if (readTimeout !== undefined && readTimeout !== null) {
    if (entry['timeout_ms'] !== undefined)
      fail('read_timeout', 'and timeout_ms both set the timeout; keep one');
    put('timeoutMs', seconds(readTimeout, 'read_timeout', fail), 'read_timeout');
  }
  readIsolation(entry, put, fail);
  return { field, config, origins };
}

type Put = (to: string, value: unknown, from: string) => void;
type Fail = (key: string, message: string) => never;

/** The transport: the seeds' `url`, a stdio `command`, or TARSy's `transport:` block. */
function readTransport(entry: Record<string, unknown>, put: Put, fail: Fail): void {
  const block = entry['transport'];
  if (block !== undefined && block !== null) {
    for (const key of TRANSPORT_KEYS) {
      if (entry[key] !== undefined)
        fail(key, 'and transport both describe the transport; keep one');
    }
    readTarsyTransport(block, entry, put, fail);
    return;
  }
  const url = entry['url'];
  const command = entry['command'];
  if ((url === undefined) === (command === undefined)) {
    fail(
      '',
      url === undefined
        ? 'needs url (HTTP server), command (stdio server) or a transport block'
        : 'has both url and command; keep one',
    );
  }
  if (url !== undefined) {
    for (const key of ['args', 'cwd'] as const) {
      if (entry[key] !== undefined) fail(key, 'applies to command (stdio) servers only');
    }
    if (entry['env'] !== undefined) fail('env', 'applies to command (stdio) servers only');
    put('transport', { type: 'streamable-http' }, 'url');
    put('transport.url', url, 'url');
    put('transport.headers', coerceStrings(entry['headers']), 'headers');
    return;
  }
  if (entry['headers'] !== undefined) fail('headers', 'applies to url servers only');
  if (entry['url_isolated'] !== undefined) {
    fail('url_isolated', 'needs url; a stdio server is isolated in a sandbox instead');
  }
  put('transport', { type: 'stdio' }, 'command');
  put('transport.command', command, 'command');
  put('transport.args', coerceStrings(entry['args']), 'args');
  put('transport.cwd', entry['cwd'], 'cwd');
}

function readTarsyTransport(
  block: unknown,
  entry: Record<string, unknown>,
  put: Put,
  fail: Fail,
): void {
  if (!isPlainRecord(block)) {
    fail('transport', 'must be a map with a type (stdio, http or sse)');
    return;
  }
  refuseUnknown(block, TARSY_KEYS, 'transport', fail);
  const type = block['type'];
  const kind =
    typeof type === 'string' && Object.hasOwn(TARSY_TYPES, type) ? TARSY_TYPES[type] : undefined;
  if (kind === undefined) {
    fail(
      'transport.type',
      `must be one of ${Object.keys(TARSY_TYPES).join(', ')}; got ${quote(type)}`,
    );
    return;
  }
  if (block['verify_ssl'] === false) {
    fail(
      'transport.verify_ssl',
      'false is not supported: TLS is always verified; trust a private CA with NODE_EXTRA_CA_CERTS',
    );
  }
  put('transport', { type: kind }, 'transport');
  if (kind === 'stdio') {
    for (const key of ['url', 'bearer_token'] as const) {
      if (block[key] !== undefined)
        fail(`transport.${key}`, 'applies to http and sse transports only');
    }
    put('transport.command', block['command'], 'transport.command');
    put('transport.args', coerceStrings(block['args']), 'transport.args');
    if (block['env'] !== undefined && entry['env'] !== undefined) {
      fail('transport.env', 'and env both set environment variables; keep one');
    }
    put('env', coerceStrings(block['env']), 'transport.env');
  } else {
    for (const key of ['command', 'args', 'env'] as const) {
      if (block[key] !== undefined) fail(`transport.${key}`, 'applies to stdio transports only');
    }
    put('transport.url', block['url'], 'transport.url');
    const token = block['bearer_token'];
    if (token !== undefined && token !== null) {
      if (typeof token !== 'string' || token === '')
        fail('transport.bearer_token', 'must be a non-empty string');
      put(
        'transport.headers',
        { Authorization: `Bearer ${String(token)}` },
        'transport.bearer_token',
      );
    }
  }
  const timeout = block['timeout'];
  if (timeout !== undefined && timeout !== null) {
    if (entry['timeout_ms'] !== undefined || entry['read_timeout'] !== undefined) {
      fail('transport.timeout', 'and the entry both set the timeout; keep one');
    }
    put('timeoutMs', seconds(timeout, 'transport.timeout', fail), 'transport.timeout');
  }
}

/** `url_isolated` and the `isolation:` map. */
function readIsolation(entry: Record<string, unknown>, put: Put, fail: Fail): void {
  const urlIsolated = entry['url_isolated'];
  if (urlIsolated !== undefined && urlIsolated !== null) {
    const headers = coerceStrings(entry['headers']);
    put('isolation.transport', { type: 'streamable-http' }, 'url_isolated');
    put('isolation.transport.url', urlIsolated, 'url_isolated');
    put('isolation.transport.headers', headers, 'headers');
  }
  const isolation = entry['isolation'];
  if (isolation === undefined || isolation === null) return;
  if (!isPlainRecord(isolation)) {
    fail('isolation', 'must be a map (at, unshare_fallback, read_only_paths, network)');
    return;
  }
  refuseUnknown(isolation, ISOLATION_KEYS, 'isolation', fail);
  if (isolation['at'] !== undefined && entry['isolation_at'] !== undefined) {
    fail('isolation.at', 'and isolation_at both set the level; keep one');
  }
  put('isolation.at', isolation['at'], 'isolation.at');
  put('isolation.unshareFallback', isolation['unshare_fallback'], 'isolation.unshare_fallback');
  put('isolation.readOnlyPaths', isolation['read_only_paths'], 'isolation.read_only_paths');
  put('isolation.network', isolation['network'], 'isolation.network');
}

function refuseUnknown(
  map: Record<string, unknown>,
  known: readonly string[],
  at: string,
  fail: Fail,
): void {
  for (const key of Object.keys(map)) {
    if (known.includes(key)) continue;
    fail(at === '' ? key : `${at}.${key}`, unknownKeyText(suggestion(key, known, HINTS), known));
  }
}

/** A positive number of seconds, as milliseconds. */
function seconds(value: unknown, key: string, fail: Fail): number {
  const number = coerceNumber(value);
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) {
    return fail(key, `must be a positive number of seconds, got ${quote(value)}`);
  }
  return Math.round(number * 1000);
}
