/** Pins `checkOptions` of `serveHttp`: the defaults it fills in and the exact refusal of each bad option. */
import { describe, expect, it } from 'vitest';
import { ServerOptionsError } from '../../src/server/errors.js';
import {
  DEFAULT_HTTP_HOST,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  checkOptions,
  type ServeHttpOptions,
} from '../../src/server/serve-http-options.js';

const auth = { secret: 's'.repeat(32) };

function refusal(options: Partial<ServeHttpOptions>): [string, string] {
  try {
    checkOptions({ port: 0, auth, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(ServerOptionsError);
    return [(error as ServerOptionsError).option, (error as Error).message];
  }
  throw new Error('expected a ServerOptionsError');
}

describe('checkOptions', () => {
  it('fills in the defaults', () => {
    expect([
      DEFAULT_HTTP_HOST,
      DEFAULT_MCP_PATH,
      DEFAULT_SESSION_IDLE_TIMEOUT_MS,
      DEFAULT_MAX_SESSIONS,
      DEFAULT_MAX_REQUEST_BODY_BYTES,
    ]).toEqual(['127.0.0.1', '/mcp', 1_800_000, 1_000, 4_194_304]);
    expect(checkOptions({ port: 8080, auth })).toEqual({
      port: 8080,
      host: '127.0.0.1',
      path: '/mcp',
      sessionIdleTimeoutMs: 1_800_000,
      maxSessions: 1_000,
      maxSessionsPerUser: 100,
      maxRequestBodyBytes: 4_194_304,
    });
  });

  it('keeps given values, including 0 idle timeout and the port range ends', () => {
    expect(
      checkOptions({
        port: 65_535,
        auth,
        host: '::1',
        path: '/a/b-c_d.e',
        sessionIdleTimeoutMs: 0,
        maxSessions: 1,
        maxSessionsPerUser: 2,
        maxRequestBodyBytes: 10,
      }),
    ).toEqual({
      port: 65_535,
      host: '::1',
      path: '/a/b-c_d.e',
      sessionIdleTimeoutMs: 0,
      maxSessions: 1,
      maxSessionsPerUser: 2,
      maxRequestBodyBytes: 10,
    });
    expect(checkOptions({ port: 0, auth, path: '/' }).path).toBe('/');
  });

  it.each([
    [{ port: -1 }, ['port', 'port must be an integer from 0 to 65535, got -1']],
    [{ port: 65_536 }, ['port', 'port must be an integer from 0 to 65535, got 65536']],
    [{ port: 80.5 }, ['port', 'port must be an integer from 0 to 65535, got 80.5']],
    [{ port: '80' }, ['port', 'port must be an integer from 0 to 65535, got 80']],
    [{ host: '' }, ['host', 'host must be a non-empty string such as "127.0.0.1", got ""']],
    [{ host: 1 }, ['host', 'host must be a non-empty string such as "127.0.0.1", got 1']],
    [
      { path: 'mcp' },
      ['path', 'path must start with "/" and hold no query, fragment or space, got "mcp"'],
    ],
    [
      { path: '/mcp?x=1' },
      ['path', 'path must start with "/" and hold no query, fragment or space, got "/mcp?x=1"'],
    ],
    [
      { path: '/a#b' },
      ['path', 'path must start with "/" and hold no query, fragment or space, got "/a#b"'],
    ],
    [
      { path: '/a b' },
      ['path', 'path must start with "/" and hold no query, fragment or space, got "/a b"'],
    ],
    [
      { sessionIdleTimeoutMs: -1 },
      ['sessionIdleTimeoutMs', 'sessionIdleTimeoutMs must be a non-negative integer, got -1'],
    ],
    [
      { sessionIdleTimeoutMs: 1.5 },
      ['sessionIdleTimeoutMs', 'sessionIdleTimeoutMs must be a non-negative integer, got 1.5'],
    ],
    [
      { sessionIdleTimeoutMs: Infinity },
      ['sessionIdleTimeoutMs', 'sessionIdleTimeoutMs must be a non-negative integer, got Infinity'],
    ],
    [{ maxSessions: 0 }, ['maxSessions', 'maxSessions must be a positive integer, got 0']],
    [
      { maxSessions: Number.NaN },
      ['maxSessions', 'maxSessions must be a non-negative integer, got NaN'],
    ],
    [
      { maxRequestBodyBytes: 0 },
      ['maxRequestBodyBytes', 'maxRequestBodyBytes must be a positive integer, got 0'],
    ],
    [
      { maxRequestBodyBytes: 2 ** 53 },
      [
        'maxRequestBodyBytes',
        'maxRequestBodyBytes must be a non-negative integer, got 9007199254740992',
      ],
    ],
  ])('refuses %j', (options, expected) => {
    expect(refusal(options as Partial<ServeHttpOptions>)).toEqual(expected);
  });
});
