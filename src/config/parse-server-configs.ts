/**
 * `parseServerConfigs`: the one check every server config goes through,
 * whoever wrote it (code, `.mcp.json`, `config.yaml`). The first problem
 * becomes an `McpConfigError` whose field is the path as the author wrote
 * it, and whose message says the rule (and, for an unknown key, the key it
 * probably meant).
 */
import type { z } from 'zod';
import { McpConfigError } from '../core/errors.js';
import {
  knownKeysAt,
  serverConfigSchema,
  type McpIsolationConfig,
  type ResolvedServerConfig,
} from './server-config.js';
import { editDistance } from '../core/edit-distance.js';
import { isPlainRecord } from '../core/json.js';

/** Where the configs came from, so that errors use the author's names. */
export interface ConfigSource {
  /** Prefix of every message, e.g. the file name. */
  readonly file?: string;
  /** The field of server `index`. @default `servers[index]` */
  server(index: number): string;
  /**
   * How the author spelt a path inside server `index` (a file may call
   * `transport.url` just `url`). @default the dotted path
   */
  key?(index: number, path: readonly PropertyKey[]): string;
}

const PROGRAMMATIC: ConfigSource = { server: (index) => `servers[${index}]` };

/** Keys people bring from other configs, and what they become here. */
const KEY_HINTS: Readonly<Record<string, string>> = {
  read_timeout: 'timeoutMs (milliseconds)',
  timeout: 'timeoutMs (milliseconds)',
};

/**
 * Checks every server config before anything starts and returns them
 * frozen, with aliases resolved (`transport.env` becomes `env`).
 *
 * @throws McpConfigError naming the field (e.g. `servers[1].timeoutMs`) and the rule.
 */
export function parseServerConfigs(
  servers: unknown,
  source: ConfigSource = PROGRAMMATIC,
): readonly ResolvedServerConfig[] {
  const prefix = source.file === undefined ? '' : `${source.file}: `;
  if (!Array.isArray(servers)) {
    throw new McpConfigError(
      'servers',
      `${prefix}servers must be an array of server configs, got ${kind(servers)}`,
    );
  }
  const names = new Map<string, number>();
  const parsedConfigs = Object.freeze(
    servers.map((written: unknown, index) => {
      const { server, envAt } = resolveEnvAlias(written, index, source, prefix);
      const parsed = serverConfigSchema.safeParse(server);
      if (!parsed.success) {
        const spelling: ConfigSource = {
          ...source,
          key: (at, path) =>
            path[0] === 'env' ? dotted([...envAt, ...path.slice(1)]) : keyOf(source, at, path),
        };
        throw configError(parsed.error.issues, written, index, spelling, prefix);
      }
      const { name } = parsed.data;
      if (names.has(name)) {
        const field = `${source.server(index)}${suffix(source, index, ['name'])}`;
        throw new McpConfigError(
          field,
          `${prefix}${field} "${name}" is used by two servers; names must be unique`,
        );
      }
      names.set(name, index);
      return parsed.data;
    }),
  );
  checkPrefixesApart(parsedConfigs, source, prefix);
  return parsedConfigs;
}

/**
 * A tool's bridged name is its server's prefix (`toolPrefix`, else the
 * name), `_`, then its own name. Were one prefix followed by `_` the start
 * of another (`slack` and `slack_admin`), a tool `admin_delete_user` of the
 * first would take the bridged name of the second's `delete_user`: one
 * server could take over another's tool names. Nor may one server's name
 * be another's prefix: `server.tool` names a server by either.
 *
 * @throws McpConfigError naming the second server's prefix and the first.
 */
function checkPrefixesApart(
  configs: readonly ResolvedServerConfig[],
  source: ConfigSource,
  prefix: string,
): void {
  const spelled = configs.map((config) => config.toolPrefix ?? config.name);
  for (const [index, mine] of spelled.entries()) {
    for (const [other, theirs] of spelled.entries()) {
      if (other === index || !(mine === theirs ? other < index : mine.startsWith(`${theirs}_`))) {
        continue;
      }
      const own = configs[index]!;
      const field = `${source.server(index)}${suffix(source, index, [own.toolPrefix === undefined ? 'name' : 'toolPrefix'])}`;
      const them = configs[other]!;
      throw new McpConfigError(
        field,
        `${prefix}${field}: tools of server "${own.name}" are named "${mine}_…", which ${
          mine === theirs ? 'is' : 'begins with'
        } the prefix "${theirs}_" of server "${them.name}": a tool of one could take the name of a tool of the other; give one of them another toolPrefix`,
      );
    }
  }
  // `server.tool` names a server by its name or its prefix: one server's
  // name may not be another's prefix.
  for (const [index, config] of configs.entries()) {
    const other = spelled.findIndex((theirs, at) => at !== index && theirs === config.name);
    if (other === -1) continue;
    const field = `${source.server(other)}${suffix(source, other, ['toolPrefix'])}`;
    throw new McpConfigError(
      field,
      `${prefix}${field}: "${config.name}" is the name of server "${config.name}" and the prefix of server "${configs[other]!.name}": "${config.name}.tool" would name either; give it another toolPrefix`,
    );
  }
}

/**
 * `transport.env`, where the SDK's `StdioServerParameters` keeps it, is
 * read as the server's `env` (the one place it lives after parsing).
 */
function resolveEnvAlias(
  written: unknown,
  index: number,
  source: ConfigSource,
  prefix: string,
): { server: unknown; envAt: readonly PropertyKey[] } {
  const transport = isPlainRecord(written) ? written['transport'] : undefined;
  if (!isPlainRecord(written) || !isPlainRecord(transport) || !Object.hasOwn(transport, 'env')) {
    return { server: written, envAt: ['env'] };
  }
  if (transport['type'] !== 'stdio') return { server: written, envAt: ['env'] };
  if (Object.hasOwn(written, 'env')) {
    const field = `${source.server(index)}.${keyOf(source, index, ['transport', 'env'])}`;
    throw new McpConfigError(
      field,
      `${prefix}${field} and env both set environment variables; give them in one place`,
    );
  }
  const { env, ...rest } = transport;
  return { server: { ...written, transport: rest, env }, envAt: ['transport', 'env'] };
}

function keyOf(source: ConfigSource, index: number, path: readonly PropertyKey[]): string {
  return source.key?.(index, path) ?? dotted(path);
}

function configError(
  issues: readonly z.core.$ZodIssue[],
  server: unknown,
  index: number,
  source: ConfigSource,
  prefix: string,
): McpConfigError {
  const issue = issues[0];
  if (issue === undefined) return new McpConfigError(source.server(index), 'is not valid');
  let path: readonly PropertyKey[] = issue.path;
  let text = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    path = [...issue.path, key];
    const known = knownKeysAt(issue.path, server);
    const guess = suggestion(key, known);
    text = unknownKeyText(guess, known);
  }
  const field = `${source.server(index)}${suffix(source, index, path)}`;
  return new McpConfigError(field, `${prefix}${field} ${text}`);
}

function suffix(source: ConfigSource, index: number, path: readonly PropertyKey[]): string {
  if (path.length === 0) return '';
  const key = keyOf(source, index, path);
  return key === '' || key.startsWith('[') ? key : `.${key}`;
}

/** `transport.args[1]` for `['transport', 'args', 1]`. */
export function dotted(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    text +=
      typeof segment === 'number' ? `[${segment}]` : `${text === '' ? '' : '.'}${String(segment)}`;
  }
  return text;
}

/** `is not a known key; did you mean …? Expected one of: …` */
export function unknownKeyText(guess: string | undefined, known: readonly string[]): string {
  return (
    `is not a known key${guess === undefined ? '.' : `; did you mean ${guess}?`}` +
    (known.length > 0 ? ` Expected one of: ${known.join(', ')}` : '')
  );
}

/** The known key `key` was probably meant to be, if any. */
export function suggestion(
  key: string,
  known: readonly string[],
  hints: Readonly<Record<string, string>> = KEY_HINTS,
): string | undefined {
  const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
  if (hint !== undefined) return hint;
  const squash = (text: string): string => text.toLowerCase().replace(/[-_]/g, '');
  const exact = known.find((candidate) => squash(candidate) === squash(key));
  if (exact !== undefined) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(squash(key), squash(candidate));
    if (distance <= 2 && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * `servers` with `isolation` given to each stdio server that has none (a
 * section-level default), checked again: the default follows the same rules
 * as a server's own.
 *
 * @throws McpConfigError when the default names a `transport` (each server
 *   names its own isolated deployment) or breaks a rule.
 */
export function withDefaultIsolation(
  servers: readonly ResolvedServerConfig[],
  isolation: Omit<McpIsolationConfig, 'transport'> | undefined,
): readonly ResolvedServerConfig[] {
  if (isolation === undefined) return servers;
  if ('transport' in isolation) {
    throw new McpConfigError(
      'isolation.transport',
      'isolation.transport cannot be a section default: each server names its own isolated deployment',
    );
  }
  return parseServerConfigs(
    servers.map((server) =>
      server.isolation === undefined && server.transport.type === 'stdio'
        ? { ...server, isolation: { ...isolation } }
        : server,
    ),
  );
}
