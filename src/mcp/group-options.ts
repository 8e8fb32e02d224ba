/**
 * The check of the options an `McpIntegrationSection` (or an
 * `McpClientGroup`) is made with, before anything is built: a misspelled
 * option (`onConectError`) was ignored and changed what the section did,
 * a policy of `-1` reconnection attempts gave a healthy server up, and a
 * missing `session` failed later with an internal `TypeError`. Each bad
 * option is an `McpConfigError` naming it, what was received and what is
 * expected.
 */
import { McpConfigError } from '../core/errors.js';
import { describeSent } from '../core/describe-sent.js';
import { suggestion, unknownKeyText } from '../config/parse-server-configs.js';
import type { McpClientGroupOptions } from './client-group.js';
import { LOG_LEVELS } from './server-log.js';

/** The options every group takes. */
export const GROUP_OPTION_KEYS = [
  'servers',
  'session',
  'key',
  'isolation',
  'onConnectError',
  'serverLogLevel',
  'reconnect',
  'retry',
  'pool',
  'elicitation',
  'sampling',
  'roots',
] as const satisfies readonly (keyof McpClientGroupOptions)[];

/**
 * Checks `options` of the group `label` names (`section "mcp"`), whose
 * known keys are `known`.
 * @throws McpConfigError naming the first bad option.
 */
export function checkGroupOptions(options: unknown, label: string, known: readonly string[]): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new McpConfigError(
      'options',
      `${label}: options must be an object with at least servers and session, received ${describeSent(options)}`,
    );
  }
  const given = options as Record<string, unknown>;
  const fail = (field: string, text: string): never => {
    throw new McpConfigError(field, `${label}: option ${field} ${text}`);
  };
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) fail(key, unknownKeyText(suggestion(key, known, {}), known));
  }
  const session = given['session'] as { beginCall?: unknown; bus?: unknown } | undefined;
  if (typeof session?.beginCall !== 'function') {
    fail('session', `must be a Session (new Session()), received ${describeSent(session)}`);
  }
  const onConnectError = given['onConnectError'];
  if (onConnectError !== undefined && onConnectError !== 'throw' && onConnectError !== 'report') {
    fail('onConnectError', `must be "throw" or "report", received ${describeSent(onConnectError)}`);
  }
  const level = given['serverLogLevel'];
  if (level !== undefined && !LOG_LEVELS.includes(level as never)) {
    fail(
      'serverLogLevel',
      `must be one of ${LOG_LEVELS.join(', ')}, received ${describeSent(level)}`,
    );
  }
  checkMembers(
    given,
    'reconnect',
    { attempts: 'count', baseDelayMs: 'ms', maxDelayMs: 'ms' },
    fail,
  );
  checkMembers(given, 'retry', { enabled: 'boolean', minDelayMs: 'ms', maxDelayMs: 'ms' }, fail);
  for (const handler of ['elicitation', 'sampling', 'roots']) {
    const value = given[handler];
    if (value !== undefined && typeof value !== 'function') {
      fail(handler, `must be a function, received ${describeSent(value)}`);
    }
  }
  const pool = given['pool'] as { acquire?: unknown } | undefined;
  if (pool !== undefined && typeof pool?.acquire !== 'function') {
    fail('pool', `must be an McpConnectionPool, received ${describeSent(pool)}`);
  }
}

/** What a member of an object option holds. */
type MemberKind = 'count' | 'ms' | 'boolean';

const EXPECTED: Readonly<Record<MemberKind, string>> = {
  count: 'a whole number of at least 0',
  ms: 'a number of milliseconds of at least 0',
  boolean: 'true or false',
};

function holds(kind: MemberKind, value: unknown): boolean {
  if (kind === 'boolean') return typeof value === 'boolean';
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return false;
  return kind === 'ms' || Number.isInteger(value);
}

/** Checks the object option `name`: its members as `kinds` says, and no other. */
function checkMembers(
  options: Record<string, unknown>,
  name: string,
  kinds: Readonly<Record<string, MemberKind>>,
  fail: (field: string, text: string) => never,
): void {
  const value = options[name];
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(name, `must be an object, received ${describeSent(value)}`);
  }
  const known = Object.keys(kinds);
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const kind = kinds[key];
    if (kind === undefined)
      fail(`${name}.${key}`, unknownKeyText(suggestion(key, known, {}), known));
    else if (member !== undefined && !holds(kind, member)) {
      fail(`${name}.${key}`, `must be ${EXPECTED[kind]}, received ${describeSent(member)}`);
    }
  }
}
