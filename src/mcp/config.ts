import { McpConfigError } from '../core/errors.js';
import { isDataSensitivity } from '../core/sensitivity.js';
import type { McpServerConfig, McpTransportConfig } from './config-types.js';

/** Server names: `^[a-z][a-z0-9_-]{0,31}$`. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

/** Tool prefixes follow the tool-name alphabet. */
export const TOOL_PREFIX_PATTERN = /^[a-z0-9_-]{1,32}$/;

/** Default per-request timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

const PERMISSIONS = new Set(['read', 'write', 'connect']);
const TRANSPORT_TYPES = ['stdio', 'sse', 'streamable-http', 'in-memory'];

/**
 * Checks every server config before anything starts.
 *
 * @throws McpConfigError naming the field (e.g. `servers[1].timeoutMs`) and the rule.
 */
export function validateServerConfigs(servers: unknown): readonly McpServerConfig[] {
  if (!Array.isArray(servers))
    fail('servers', `must be an array of server configs, got ${kind(servers)}`);
  const names = new Set<string>();
  servers.forEach((server, index) => {
    validateServerConfig(server, `servers[${index}]`);
    const { name } = server as McpServerConfig;
    if (names.has(name))
      fail(`servers[${index}].name`, `"${name}" is used by two servers; names must be unique`);
    names.add(name);
  });
  return servers as readonly McpServerConfig[];
}

function validateServerConfig(value: unknown, at: string): void {
  if (!isRecord(value)) fail(at, `must be an object, got ${kind(value)}`);
  const { name } = value;
  if (typeof name !== 'string' || !SERVER_NAME_PATTERN.test(name)) {
    fail(`${at}.name`, `${JSON.stringify(name)} must match ${SERVER_NAME_PATTERN.source}`);
  }
  validateTransport(value.transport, `${at}.transport`);
  if (value.toolPrefix !== undefined) {
    if (typeof value.toolPrefix !== 'string' || !TOOL_PREFIX_PATTERN.test(value.toolPrefix)) {
      fail(
        `${at}.toolPrefix`,
        `${JSON.stringify(value.toolPrefix)} must match ${TOOL_PREFIX_PATTERN.source}`,
      );
    }
  }
  for (const field of ['enabledTools', 'disabledTools'] as const) {
    const list = value[field];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
      fail(`${at}.${field}`, 'must be an array of tool names (strings)');
    }
  }
  const { maxResultChars } = value;
  if (
    maxResultChars !== undefined &&
    (typeof maxResultChars !== 'number' || !Number.isInteger(maxResultChars) || maxResultChars <= 0)
  ) {
    fail(
      `${at}.maxResultChars`,
      `${JSON.stringify(maxResultChars)} must be a positive whole number of characters`,
    );
  }
  for (const field of ['timeoutMs', 'maxTotalTimeoutMs'] as const) {
    const duration = value[field];
    if (
      duration !== undefined &&
      (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0)
    ) {
      fail(
        `${at}.${field}`,
        `${JSON.stringify(duration) ?? typeof duration} must be a positive number of milliseconds`,
      );
    }
  }
  if (value.env !== undefined) {
    if (!isRecord(value.env) || !Object.values(value.env).every((v) => typeof v === 'string')) {
      // The values are secrets: name the keys only.
      fail(`${at}.env`, 'must map variable names to string values');
    }
  }
  if (value.inheritEnv !== undefined && typeof value.inheritEnv !== 'boolean') {
    fail(`${at}.inheritEnv`, `${JSON.stringify(value.inheritEnv)} must be true or false`);
  }
  if (value.permissions !== undefined) {
    if (!isRecord(value.permissions))
      fail(`${at}.permissions`, 'must map tool names to permission lists');
    for (const [tool, list] of Object.entries(value.permissions)) {
      if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && PERMISSIONS.has(p))) {
        fail(
          `${at}.permissions.${tool}`,
          `${JSON.stringify(list)} must be a list of "read", "write", "connect"`,
        );
      }
    }
  }
  if (value.sensitiveTools !== undefined) {
    if (!isRecord(value.sensitiveTools))
      fail(`${at}.sensitiveTools`, 'must map tool names to sensitivity levels');
    for (const [tool, level] of Object.entries(value.sensitiveTools)) {
      if (!isDataSensitivity(level)) {
        fail(
          `${at}.sensitiveTools.${tool}`,
          `${JSON.stringify(level)} must be public, internal, confidential or secret`,
        );
      }
    }
  }
  if (value.isolation !== undefined) {
    const isolation = value.isolation;
    if (!isRecord(isolation)) fail(`${at}.isolation`, `must be an object, got ${kind(isolation)}`);
    if (isolation.at !== undefined && !isDataSensitivity(isolation.at)) {
      fail(
        `${at}.isolation.at`,
        `${JSON.stringify(isolation.at)} must be public, internal, confidential or secret`,
      );
    }
    if (isolation.unshareFallback !== undefined && typeof isolation.unshareFallback !== 'boolean') {
      fail(
        `${at}.isolation.unshareFallback`,
        `${JSON.stringify(isolation.unshareFallback)} must be true or false`,
      );
    }
    if (
      isolation.readOnlyPaths !== undefined &&
      (!Array.isArray(isolation.readOnlyPaths) ||
        !isolation.readOnlyPaths.every((p) => typeof p === 'string' && p.length > 0))
    ) {
      fail(`${at}.isolation.readOnlyPaths`, 'must be an array of host paths (non-empty strings)');
    }
    if (isolation.network !== undefined) {
      const network = isolation.network;
      if (
        !isRecord(network) ||
        !Array.isArray(network.allow) ||
        !network.allow.every(
          (host) => typeof host === 'string' && /^(\*\.)?[A-Za-z0-9.:[\]-]+$/.test(host),
        )
      ) {
        fail(
          `${at}.isolation.network`,
          'must be { allow: [...] } with host names such as "api.example.com", "*.example.com" or "127.0.0.1:8080"',
        );
      }
      if (isolation.transport !== undefined) {
        fail(
          `${at}.isolation.network`,
          'applies to the sandbox only: an isolated transport controls its own network',
        );
      }
    }
    const serverType = value.transport.type;
    if (isolation.transport !== undefined) {
      validateTransport(isolation.transport, `${at}.isolation.transport`);
    } else if (serverType !== 'stdio') {
      fail(
        `${at}.isolation.transport`,
        `is required for a ${serverType} server: only stdio servers can be sandboxed`,
      );
    }
  }
}

function validateTransport(value: unknown, at: string): asserts value is McpTransportConfig {
  if (!isRecord(value)) fail(at, `must be an object with a "type", got ${kind(value)}`);
  switch (value.type) {
    case 'stdio':
      if (typeof value.command !== 'string' || value.command.length === 0) {
        fail(`${at}.command`, 'must be a non-empty string');
      }
      if (
        value.args !== undefined &&
        (!Array.isArray(value.args) || !value.args.every((a) => typeof a === 'string'))
      ) {
        fail(`${at}.args`, 'must be an array of strings');
      }
      if (value.cwd !== undefined && typeof value.cwd !== 'string')
        fail(`${at}.cwd`, 'must be a string');
      return;
    case 'sse':
    case 'streamable-http': {
      let url: URL;
      try {
        url = new URL(String(value.url));
      } catch {
        fail(`${at}.url`, `must be an absolute http(s) URL, got ${describeUrl(value.url)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        fail(`${at}.url`, `must use http: or https:, got "${url.protocol}"`);
      }
      if (value.headers !== undefined) {
        if (
          !isRecord(value.headers) ||
          !Object.values(value.headers).every((v) => typeof v === 'string')
        ) {
          fail(`${at}.headers`, 'must map header names to string values');
        }
      }
      return;
    }
    case 'in-memory':
      if (
        !isRecord(value.server) ||
        typeof (value.server as { connect?: unknown }).connect !== 'function'
      ) {
        fail(`${at}.server`, 'must be an SDK McpServer or Server that is not yet connected');
      }
      return;
    default:
      fail(
        `${at}.type`,
        `${JSON.stringify(value.type)} must be one of ${TRANSPORT_TYPES.join(', ')}`,
      );
  }
}

/** A URL for an error message: never its credentials or query string. */
function describeUrl(value: unknown): string {
  if (typeof value !== 'string') return kind(value);
  return JSON.stringify(value.replace(/\/\/[^/@]*@/, '//***@').replace(/\?.*$/, '?…'));
}

function fail(field: string, rule: string): never {
  throw new McpConfigError(field, `${field} ${rule}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
