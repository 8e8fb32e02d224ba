/**
 * One entry point for server config files, chosen by extension: the
 * `mcpServers` JSON of MCP clients, or the `mcp_servers` section of a
 * `config.yaml`.
 */
import path from 'node:path';
import { McpConfigError } from '../core/errors.js';
import { loadMcpConfig } from './config-yaml.js';
import type { EnvironmentVariables } from './env-expansion.js';
import type { ResolvedServerConfig } from './server-config.js';
import { loadMcpJson } from './mcp-json.js';

/** Options of {@link loadServerConfigs}. */
export interface LoadServerConfigsOptions {
  /** Variables for `${VAR}` expansion. @default process.env */
  readonly env?: EnvironmentVariables;
  readonly signal?: AbortSignal;
}

/** Extensions read as `mcpServers` JSON. */
export const MCP_JSON_EXTENSIONS: readonly string[] = Object.freeze(['.json']);
/** Extensions read as `config.yaml`. */
export const CONFIG_YAML_EXTENSIONS: readonly string[] = Object.freeze(['.yaml', '.yml']);

/**
 * Loads the servers of a config file: `.json` with {@link loadMcpJson}
 * (`mcpServers`, as in `.mcp.json`), `.yaml`/`.yml` with `loadMcpConfig`
 * (`mcp_servers`, as in `config.yaml`, reading `.env` beside it).
 *
 * @throws {McpConfigError} for another extension, or whatever the loader throws.
 */
export function loadServerConfigs(
  file: string,
  options: LoadServerConfigsOptions = {},
): Promise<ResolvedServerConfig[]> {
  const extension = path.extname(file).toLowerCase();
  const shared = {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  if (MCP_JSON_EXTENSIONS.includes(extension)) return loadMcpJson(file, shared);
  if (CONFIG_YAML_EXTENSIONS.includes(extension)) return loadMcpConfig(file, shared);
  return Promise.reject(
    new McpConfigError(
      '(file)',
      `${file}: unknown config format ${JSON.stringify(extension || '(no extension)')}; ` +
        'use .json (an "mcpServers" object, as in .mcp.json) or .yaml/.yml ("mcp_servers", as in config.yaml)',
    ),
  );
}
