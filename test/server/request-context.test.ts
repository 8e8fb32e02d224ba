/**
 * Pins the request scope: `checkIdentityId`'s rules and messages, that
 * `runWithIdentity` checks and freezes the identity and makes it visible to
 * async code started inside (and nowhere else), and the errors of the
 * getters outside a request.
 */
import { describe, expect, it } from 'vitest';
import { ServerContextError, ServerOptionsError } from '../../src/server/errors.js';
import {
  MAX_IDENTITY_ID_LENGTH,
  checkIdentityId,
  currentScope,
  getIdentity,
  getSessionId,
  getUserId,
  requireIdentity,
  runInScope,
  runWithIdentity,
} from '../../src/server/request-context.js';

describe('checkIdentityId', () => {
  it('returns a valid id unchanged, up to the maximum length', () => {
    expect(MAX_IDENTITY_ID_LENGTH).toBe(256);
    expect(checkIdentityId('userId', 'alice@example.com')).toBe('alice@example.com');
    expect(checkIdentityId('sessionId', 'x'.repeat(256))).toBe('x'.repeat(256));
    expect(checkIdentityId('userId', 'é/../ü')).toBe('é/../ü');
  });

  it.each([
    ['', 'userId must be a non-empty string, got an empty string'],
    [undefined, 'userId must be a non-empty string, got undefined'],
    [42, 'userId must be a non-empty string, got number'],
    [null, 'userId must be a non-empty string, got object'],
    ['x'.repeat(257), 'userId is 257 characters long; at most 256 are allowed'],
    ['a\tb', 'userId "a\\tb" contains control characters'],
    ['a\u007fb', 'userId "a\u007fb" contains control characters'],
    [
      'carol\uD800',
      'userId "carol\\ud800" contains a lone surrogate (half of a UTF-16 pair): it is not well-formed Unicode',
    ],
  ])('refuses %j', (value, message) => {
    let thrown: unknown;
    try {
      checkIdentityId('userId', value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServerOptionsError);
    expect((thrown as ServerOptionsError).option).toBe('userId');
    expect((thrown as ServerOptionsError).message).toBe(message);
  });
});

describe('runWithIdentity', () => {
  it('exposes a frozen copy of the identity, through awaits, and returns fn’s value', async () => {
    const given = { userId: 'alice', sessionId: 's1' };
    const result = await runWithIdentity(given, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const seen = getIdentity();
      expect(seen).toEqual({ userId: 'alice', sessionId: 's1' });
      expect(seen).not.toBe(given);
      expect(Object.isFrozen(seen)).toBe(true);
      expect(currentScope()).toEqual({ identity: { userId: 'alice', sessionId: 's1' } });
      return [getUserId(), getSessionId()];
    });
    expect(result).toEqual(['alice', 's1']);
    expect(getIdentity()).toBeUndefined();
  });

  it('keeps concurrent requests apart and lets an inner scope shadow an outer one', async () => {
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((user) =>
        runWithIdentity({ userId: user, sessionId: `s-${user}` }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 0));
          return `${getUserId()}/${getSessionId()}`;
        }),
      ),
    );
    expect(seen).toEqual(['a/s-a', 'b/s-b', 'c/s-c']);
    const nested = runWithIdentity({ userId: 'outer', sessionId: 'o' }, () => [
      runWithIdentity({ userId: 'inner', sessionId: 'i' }, getUserId),
      getUserId(),
    ]);
    expect(nested).toEqual(['inner', 'outer']);
  });

  it('refuses a bad identity before running fn', () => {
    let ran = false;
    expect(() =>
      runWithIdentity({ userId: 'u', sessionId: '' }, () => {
        ran = true;
      }),
    ).toThrow('sessionId must be a non-empty string, got an empty string');
    expect(ran).toBe(false);
  });
});

describe('outside a request', () => {
  it('getIdentity is undefined and the required getters throw ServerContextError', () => {
    expect(getIdentity()).toBeUndefined();
    expect(currentScope()).toBeUndefined();
    const suffix =
      "needs the caller's identity, but none is set: call it while serving a request " +
      'authenticated by serveHttp, or inside runWithIdentity()';
    expect(() => getUserId()).toThrow(new ServerContextError(`getUserId() ${suffix}`));
    expect(() => getSessionId()).toThrow(`getSessionId() ${suffix}`);
    let thrown: unknown;
    try {
      requireIdentity('workspacePath()');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServerContextError);
    expect((thrown as ServerContextError).code).toBe('server-context');
    expect((thrown as Error).message).toBe(`workspacePath() ${suffix}`);
  });

  it('runInScope with no identity still fails the getters, but exposes the scope', () => {
    const settings = { workspaceRoot: '/w', privateDataDir: '/p' };
    runInScope({ identity: undefined, settings }, () => {
      expect(currentScope()?.settings).toBe(settings);
      expect(() => getUserId()).toThrow(ServerContextError);
    });
  });
});
