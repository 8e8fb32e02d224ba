/**
 * Pins the identity carried in the SDK's `AuthInfo`: the exact object
 * `authInfoFor` builds, and that `identityFromAuthInfo` reads back a frozen
 * identity only when the stored one is well formed.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { describe, expect, it } from 'vitest';
import {
  IDENTITY_AUTH_EXTRA_KEY,
  authInfoFor,
  identityFromAuthInfo,
} from '../../src/server/identity-auth-info.js';

const identity = { userId: 'alice', sessionId: 's1' };

describe('authInfoFor', () => {
  it('stores a copy of the identity under the extra key, with the expiry', () => {
    expect(IDENTITY_AUTH_EXTRA_KEY).toBe('mcp-sections/identity');
    const info = authInfoFor('tok', { identity, expiresAt: 1_900_000_000 });
    expect(info).toEqual({
      token: 'tok',
      clientId: 'alice',
      scopes: [],
      expiresAt: 1_900_000_000,
      extra: { 'mcp-sections/identity': { userId: 'alice', sessionId: 's1' } },
    });
    expect(info.extra?.[IDENTITY_AUTH_EXTRA_KEY]).not.toBe(identity);
  });

  it('leaves expiresAt out when the token has none', () => {
    const info = authInfoFor('tok', { identity, expiresAt: undefined });
    expect('expiresAt' in info).toBe(false);
  });
});

describe('identityFromAuthInfo', () => {
  it('reads back what authInfoFor stored, frozen', () => {
    const read = identityFromAuthInfo(authInfoFor('t', { identity, expiresAt: undefined }));
    expect(read).toEqual(identity);
    expect(Object.isFrozen(read)).toBe(true);
  });

  const base: AuthInfo = { token: 't', clientId: 'c', scopes: [] };
  it.each([
    ['no AuthInfo', undefined],
    ['no extra', base],
    ['no identity key', { ...base, extra: { other: 1 } }],
    ['a string', { ...base, extra: { [IDENTITY_AUTH_EXTRA_KEY]: 'alice' } }],
    ['null', { ...base, extra: { [IDENTITY_AUTH_EXTRA_KEY]: null } }],
    ['a missing sessionId', { ...base, extra: { [IDENTITY_AUTH_EXTRA_KEY]: { userId: 'a' } } }],
    [
      'a control character',
      { ...base, extra: { [IDENTITY_AUTH_EXTRA_KEY]: { userId: 'a\n', sessionId: 's' } } },
    ],
    [
      'a numeric userId',
      { ...base, extra: { [IDENTITY_AUTH_EXTRA_KEY]: { userId: 1, sessionId: 's' } } },
    ],
  ])('is undefined for %s', (_name, info) => {
    expect(identityFromAuthInfo(info)).toBeUndefined();
  });

  it('ignores extra members of the stored object', () => {
    const info = {
      ...base,
      extra: { [IDENTITY_AUTH_EXTRA_KEY]: { userId: 'a', sessionId: 's', admin: true } },
    };
    expect(identityFromAuthInfo(info)).toEqual({ userId: 'a', sessionId: 's' });
  });
});
