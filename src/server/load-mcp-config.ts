/**
 * `loadMcpConfig`: reads the `mcp_servers` section of a `config.yaml` into
 * the client's `McpServerConfig[]`, expanding `${VAR}` from the environment
 * (and from a `.env` beside the file, which never overrides the real
 * environment). Other top-level sections belong to the application and are
 * neither read nor expanded.
 *
 * ```yaml
 * mcp_servers:
 *   template:
 *     url: http://localhost:8000/mcp
 *     url_isolated: http://localhost:8001/mcp
 *     headers: { Authorization: "Bearer ${TEMPLATE_TOKEN}" }
 *     permissions: { fetch_url: [connect] }
 *     sensitive_tools: { load_sensitive_dataset: confidential }
 * ```
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { McpConfigError } from '../core/errors.js';
import { isDataSensitivity, type DataSensitivity } from '../core/sensitivity.js';
import type {
  McpServerConfig,
  McpTransportConfig,
  StdioTransportConfig,
  StreamableHttpTransportConfig,
  ToolPermission,
} from '../mcp/config-types.js';
import { parseDotenv } from './dotenv.js';
import { expandEnv, type EnvironmentVariables } from './env-expansion.js';

/** Options of {@link loadMcpConfig}. */
export interface LoadMcpConfigOptions {
  /** Variables for `${VAR}`. @default process.env */
  readonly env?: EnvironmentVariables;
  /** Read `.env` beside the config file for variables the environment lacks. @default true */
  readonly dotenv?: boolean;
  readonly signal?: AbortSignal;
}

/** Server names the client accepts. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

const KNOWN_KEYS = [
  'type',
  'url',
  'url_isolated',
  'headers',
  'command',
  'args',
  'env',
  'cwd',
  'tool_prefix',
  'enabled_tools',
  'disabled_tools',
  'timeout_ms',
  'permissions',
  'sensitive_tools',
  'isolation_at',
] as const;

const HINTS: Readonly<Record<string, string>> = {
  read_timeout: 'use timeout_ms (milliseconds)',
  enabled: 'remove the entry instead',
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Loads the MCP servers of a `config.yaml`, in file order.
 *
 * Per server: `url` becomes a `streamable-http` transport and `url_isolated`
 * its `isolation.transport` (`headers` applies to both); `command`, `args`,
 * `cwd` and `env` a `stdio` transport; `tool_prefix`, `enabled_tools`,
 * `disabled_tools`, `timeout_ms`, `permissions`, `sensitive_tools` and
 * `isolation_at` map to their camelCase fields.
 *
 * @throws {McpConfigError} whose `field` names the key at fault (e.g.
 *   `mcp_servers.template.timeout_ms`) for an unreadable file, bad YAML, an
 *   unknown key, a bad value or an unset `${VAR}`. Values that may be
 *   secrets (URLs, headers, env) are never quoted.
 * @example
 * ```ts
 * const servers = await loadMcpConfig('config.yaml');
 * const section = new McpIntegrationSection({ servers, session });
 * ```
 */
export async function loadMcpConfig(
  configPath: string,
  options: LoadMcpConfigOptions = {},
): Promise<McpServerConfig[]> {
  const source = configPath;
  const text = await readText(configPath, options.signal, 'config file');
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
  const root: unknown = document.toJS();
  if (!isRecord(root) || !('mcp_servers' in root)) {
    throw new McpConfigError('mcp_servers', `${source}: missing the top-level mcp_servers key`);
  }
  const servers = root['mcp_servers'];
  if (servers === null || servers === undefined) return [];
  if (!isRecord(servers)) {
    throw new McpConfigError(
      'mcp_servers',
      `${source}: mcp_servers must be a map of server name to settings`,
    );
  }
  return Object.entries(servers).map(([name, entry]) => {
    const field = `mcp_servers.${name}`;
    return toServerConfig(name, expandEnv(entry, env, field, source), field, source);
  });
}

async function environment(
  configPath: string,
  options: LoadMcpConfigOptions,
): Promise<EnvironmentVariables> {
  const real = options.env ?? process.env;
  if (options.dotenv === false) return real;
  const dotenvPath = path.join(path.dirname(configPath), '.env');
  const text = await readText(dotenvPath, options.signal, '.env file');
  if (text === undefined) return real;
  const merged: Record<string, string | undefined> = parseDotenv(text, dotenvPath);
  for (const [key, value] of Object.entries(real)) {
    // The real environment wins: .env only fills gaps.
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/** The file's text, or `undefined` when it does not exist. */
async function readText(
  file: string,
  signal: AbortSignal | undefined,
  what: string,
): Promise<string | undefined> {
  try {
    return await readFile(
      file,
      signal === undefined ? { encoding: 'utf8' } : { encoding: 'utf8', signal },
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if ((error as Error).name === 'AbortError') throw error;
    throw new McpConfigError('(file)', `${file}: cannot read the ${what} (${code ?? 'error'})`, {
      cause: error,
    });
  }
}

function toServerConfig(
  name: string,
  entry: unknown,
  field: string,
  source: string,
): McpServerConfig {
  const fail = (key: string, message: string): never => {
    const at = key === '' ? field : `${field}.${key}`;
    throw new McpConfigError(at, `${source}: ${at} ${message}`);
  };
  if (!SERVER_NAME_PATTERN.test(name)) {
    fail(
      '',
      `is not a valid server name: ${JSON.stringify(name)} must match ${String(SERVER_NAME_PATTERN)}`,
    );
  }
  if (!isRecord(entry)) return fail('', 'must be a map of settings (url or command, ...)');

  for (const key of Object.keys(entry)) {
    if (!(KNOWN_KEYS as readonly string[]).includes(key)) {
      const hint = HINTS[key];
      fail(
        key,
        `is not a known key${hint === undefined ? '' : ` (${hint})`}; expected one of ${KNOWN_KEYS.join(', ')}`,
      );
    }
  }
  if (entry['type'] !== undefined && entry['type'] !== 'client') {
    fail('type', `must be "client" when present, got ${quote(entry['type'])}`);
  }

  const read = new FieldReader(entry, fail);
  const url = read.url('url');
  const command = read.string('command');
  if ((url === undefined) === (command === undefined)) {
    fail(
      '',
      url === undefined
        ? 'needs url (HTTP server) or command (stdio server)'
        : 'has both url and command; keep one',
    );
  }
  const headers = read.stringMap('headers');
  const urlIsolated = read.url('url_isolated');

  let transport: McpTransportConfig;
  if (url !== undefined) {
    for (const key of ['args', 'env', 'cwd'] as const) {
      if (entry[key] !== undefined) fail(key, 'applies to command (stdio) servers only');
    }
    transport = httpTransport(url, headers);
  } else {
    if (headers !== undefined) fail('headers', 'applies to url servers only');
    if (urlIsolated !== undefined)
      fail('url_isolated', 'needs url; a stdio server is isolated in a sandbox instead');
    const stdio: Mutable<StdioTransportConfig> = { type: 'stdio', command: command ?? '' };
    const args = read.stringList('args', true);
    if (args !== undefined) stdio.args = args;
    const cwd = read.string('cwd');
    if (cwd !== undefined) stdio.cwd = cwd;
    transport = Object.freeze(stdio);
  }

  const config: Mutable<McpServerConfig> = { name, transport };
  const env = read.stringMap('env');
  if (env !== undefined) config.env = env;
  const toolPrefix = read.string('tool_prefix');
  if (toolPrefix !== undefined) config.toolPrefix = toolPrefix;
  const enabledTools = read.stringList('enabled_tools', false);
  if (enabledTools !== undefined) config.enabledTools = enabledTools;
  const disabledTools = read.stringList('disabled_tools', false);
  if (disabledTools !== undefined) config.disabledTools = disabledTools;
  const timeoutMs = read.positiveInteger('timeout_ms');
  if (timeoutMs !== undefined) config.timeoutMs = timeoutMs;
  const permissions = read.permissions('permissions');
  if (permissions !== undefined) config.permissions = permissions;
  const sensitiveTools = read.sensitivityMap('sensitive_tools');
  if (sensitiveTools !== undefined) config.sensitiveTools = sensitiveTools;
  const isolationAt = read.sensitivity('isolation_at');
  if (urlIsolated !== undefined || isolationAt !== undefined) {
    const isolation: { transport?: McpTransportConfig; at?: DataSensitivity } = {};
    if (urlIsolated !== undefined) isolation.transport = httpTransport(urlIsolated, headers);
    if (isolationAt !== undefined) isolation.at = isolationAt;
    config.isolation = Object.freeze(isolation);
  }
  return Object.freeze(config);
}

function httpTransport(
  url: string,
  headers: Readonly<Record<string, string>> | undefined,
): McpTransportConfig {
  const transport: Mutable<StreamableHttpTransportConfig> = { type: 'streamable-http', url };
  if (headers !== undefined) transport.headers = headers;
  return Object.freeze(transport);
}

/** Typed reads of one server entry; every failure names the key. */
class FieldReader {
  constructor(
    private readonly entry: Record<string, unknown>,
    private readonly fail: (key: string, message: string) => never,
  ) {}

  string(key: string): string | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      return this.fail(key, `must be a non-empty string, got ${quote(value)}`);
    }
    return value;
  }

  url(key: string): string | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    // URLs may carry credentials once expanded: describe, never quote.
    if (typeof value !== 'string')
      return this.fail(key, `must be an http(s) URL string, got ${typeof value}`);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return this.fail(
        key,
        'is not a valid absolute URL (expected e.g. http://localhost:8000/mcp)',
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return this.fail(key, `must use http: or https:, got ${JSON.stringify(parsed.protocol)}`);
    }
    return value;
  }

  /** A list of strings; with `coerce`, numbers and booleans (YAML `8000`) become strings. */
  stringList(key: string, coerce: boolean): readonly string[] | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) return this.fail(key, `must be a list, got ${quote(value)}`);
    return Object.freeze(
      value.map((item: unknown, index) => {
        if (typeof item === 'string') return item;
        if (coerce && (typeof item === 'number' || typeof item === 'boolean')) return String(item);
        return this.fail(`${key}[${index}]`, `must be a string, got ${quote(item)}`);
      }),
    );
  }

  /** A map of strings (headers, env). Values may be secrets: never quoted. */
  stringMap(key: string): Readonly<Record<string, string>> | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (!isRecord(value)) return this.fail(key, 'must be a map of names to strings');
    const out: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (typeof item === 'string') out[name] = item;
      else if (typeof item === 'number' || typeof item === 'boolean') out[name] = String(item);
      else
        this.fail(
          `${key}.${name}`,
          `must be a string, got ${item === null ? 'null' : typeof item}`,
        );
    }
    return Object.freeze(out);
  }

  positiveInteger(key: string): number | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    // After ${VAR} expansion a number arrives as a string.
    const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isSafeInteger(number) || number <= 0) {
      return this.fail(key, `must be a positive integer (milliseconds), got ${quote(value)}`);
    }
    return number;
  }

  sensitivity(key: string): DataSensitivity | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (!isDataSensitivity(value)) {
      return this.fail(
        key,
        `must be one of public, internal, confidential, secret; got ${quote(value)}`,
      );
    }
    return value;
  }

  sensitivityMap(key: string): Readonly<Record<string, DataSensitivity>> | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (!isRecord(value)) return this.fail(key, 'must be a map of tool name to sensitivity');
    const out: Record<string, DataSensitivity> = {};
    for (const [tool, level] of Object.entries(value)) {
      if (!isDataSensitivity(level)) {
        this.fail(
          `${key}.${tool}`,
          `must be one of public, internal, confidential, secret; got ${quote(level)}`,
        );
      } else {
        out[tool] = level;
      }
    }
    return Object.freeze(out);
  }

  permissions(key: string): Readonly<Record<string, readonly ToolPermission[]>> | undefined {
    const value = this.entry[key];
    if (value === undefined || value === null) return undefined;
    if (!isRecord(value))
      return this.fail(key, 'must be a map of tool name to a list of read, write, connect');
    const out: Record<string, readonly ToolPermission[]> = {};
    for (const [tool, list] of Object.entries(value)) {
      if (!Array.isArray(list)) {
        this.fail(`${key}.${tool}`, `must be a list of read, write, connect; got ${quote(list)}`);
        continue;
      }
      out[tool] = Object.freeze(
        list.map((permission: unknown, index) =>
          permission === 'read' || permission === 'write' || permission === 'connect'
            ? permission
            : this.fail(
                `${key}.${tool}[${index}]`,
                `must be read, write or connect; got ${quote(permission)}`,
              ),
        ),
      );
    }
    return Object.freeze(out);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short rendering of a non-secret bad value for an error message. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
