/**
 * Pins `createTokenVerifier` and `signIdentityToken`: which tokens verify,
 * the reason and message of every refusal (expired, wrong audience or
 * issuer, `alg: none`, foreign keys, bad claims), the option checks, and
 * that neither a token nor a secret ever appears in an error message.
 */
import {
  SignJWT,
  UnsecuredJWT,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { ServerOptionsError } from '../../src/server/errors.js';
import {
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_JWKS_ALGORITHMS,
  MIN_HMAC_SECRET_BYTES,
  TokenRejectedError,
  createTokenVerifier,
  signIdentityToken,
  type TokenVerifier,
} from '../../src/server/jwt.js';

const SECRET = 'test-secret-0123456789-abcdefghij';
const OTHER_SECRET = 'other-secret-0123456789-abcdefghi';
const key = new TextEncoder().encode(SECRET);
const nowSec = (): number => Math.floor(Date.now() / 1000);

/** An HS256 token with exactly the given claims. */
function hs256(claims: Record<string, unknown>, secret: Uint8Array = key): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(secret);
}

async function rejection(verify: TokenVerifier, token: string): Promise<TokenRejectedError> {
  const error: unknown = await verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TokenRejectedError);
  const rejected = error as TokenRejectedError;
  if (token !== '') expect(rejected.message).not.toContain(token);
  expect(rejected.message).not.toContain(SECRET);
  return rejected;
}

function optionsError(fn: () => unknown): ServerOptionsError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ServerOptionsError);
    return error as ServerOptionsError;
  }
  throw new Error('expected a ServerOptionsError');
}

describe('constants', () => {
  it('pins the defaults', () => {
    expect(DEFAULT_CLOCK_TOLERANCE_SEC).toBe(5);
    expect(MIN_HMAC_SECRET_BYTES).toBe(32);
    expect(DEFAULT_JWKS_ALGORITHMS).toEqual([
      'RS256',
      'RS384',
      'RS512',
      'PS256',
      'PS384',
      'PS512',
      'ES256',
      'ES384',
      'ES512',
      'EdDSA',
      'Ed25519',
    ]);
    expect(Object.isFrozen(DEFAULT_JWKS_ALGORITHMS)).toBe(true);
    expect(DEFAULT_JWKS_ALGORITHMS).not.toContain('HS256');
  });
});

describe('HS256 verifier', () => {
  const verify = createTokenVerifier({ secret: SECRET, issuer: 'idp', audience: 'mcp' });

  it('accepts a token signed by signIdentityToken and yields its identity and exp', async () => {
    const token = await signIdentityToken(
      { userId: 'alice', sessionId: 's-1' },
      { secret: SECRET, issuer: 'idp', audience: 'mcp', expiresInSec: 600 },
    );
    const payload = decodeJwt(token);
    const verified = await verify(token);
    expect(verified.identity).toEqual({ userId: 'alice', sessionId: 's-1' });
    expect(verified.expiresAt).toBe(payload.exp);
  });

  it('refuses an empty token as missing', async () => {
    const error = await rejection(verify, '');
    expect([error.reason, error.message]).toEqual(['missing', 'missing bearer token']);
    expect(error.name).toBe('TokenRejectedError');
  });

  it('refuses an expired token', async () => {
    const token = await hs256({
      sub: 'alice',
      session_id: 's',
      iss: 'idp',
      aud: 'mcp',
      exp: nowSec() - 3600,
    });
    const error = await rejection(verify, token);
    expect([error.reason, error.message]).toEqual(['expired', 'token expired']);
  });

  it('refuses a wrong audience and a wrong issuer, naming the claim', async () => {
    const exp = nowSec() + 600;
    const wrongAud = await hs256({ sub: 'a', session_id: 's', iss: 'idp', aud: 'other', exp });
    const wrongIss = await hs256({ sub: 'a', session_id: 's', iss: 'evil', aud: 'mcp', exp });
    const noAud = await hs256({ sub: 'a', session_id: 's', iss: 'idp', exp });
    const a = await rejection(verify, wrongAud);
    const i = await rejection(verify, wrongIss);
    const m = await rejection(verify, noAud);
    expect([a.reason, a.message]).toEqual(['bad-claims', 'token claim "aud" is invalid']);
    expect([i.reason, i.message]).toEqual(['bad-claims', 'token claim "iss" is invalid']);
    expect([m.reason, m.message]).toEqual(['bad-claims', 'token claim "aud" is missing']);
  });

  it('accepts any issuer or audience of a list', async () => {
    const listVerify = createTokenVerifier({
      secret: SECRET,
      issuer: ['idp-a', 'idp-b'],
      audience: ['x', 'y'],
    });
    const token = await hs256({
      sub: 'a',
      session_id: 's',
      iss: 'idp-b',
      aud: 'y',
      exp: nowSec() + 60,
    });
    expect((await listVerify(token)).identity).toEqual({ userId: 'a', sessionId: 's' });
  });

  it('refuses alg none even with every claim right', async () => {
    const token = new UnsecuredJWT({ sub: 'alice', session_id: 's' })
      .setIssuer('idp')
      .setAudience('mcp')
      .setExpirationTime(nowSec() + 600)
      .encode();
    const error = await rejection(verify, token);
    expect([error.reason, error.message]).toEqual([
      'bad-signature',
      'token algorithm is not allowed',
    ]);
  });

  it('refuses a token signed with another secret', async () => {
    const token = await hs256(
      { sub: 'a', session_id: 's', iss: 'idp', aud: 'mcp', exp: nowSec() + 60 },
      new TextEncoder().encode(OTHER_SECRET),
    );
    const error = await rejection(verify, token);
    expect([error.reason, error.message]).toEqual([
      'bad-signature',
      'token signature does not verify',
    ]);
  });

  it('refuses garbage as malformed', async () => {
    for (const token of ['not-a-jwt', 'a.b.c', `${SECRET}.x.y`]) {
      const error = await rejection(verify, token);
      expect([error.reason, error.message]).toEqual(['malformed', 'malformed token']);
    }
  });

  it('requires sub, session_id and (by default) exp', async () => {
    const plain = createTokenVerifier({ secret: SECRET });
    const exp = nowSec() + 60;
    const noSub = await rejection(plain, await hs256({ session_id: 's', exp }));
    const noSession = await rejection(plain, await hs256({ sub: 'a', exp }));
    const noExp = await rejection(plain, await hs256({ sub: 'a', session_id: 's' }));
    expect(noSub.message).toBe('token claim "sub" is missing');
    expect(noSession.message).toBe('token claim "session_id" is missing');
    expect([noExp.reason, noExp.message]).toEqual(['bad-claims', 'token claim "exp" is missing']);
  });

  it('accepts a token without exp when requireExpiry is false', async () => {
    const lax = createTokenVerifier({ secret: SECRET, requireExpiry: false });
    const verified = await lax(await hs256({ sub: 'a', session_id: 's' }));
    expect(verified).toEqual({ identity: { userId: 'a', sessionId: 's' }, expiresAt: undefined });
  });

  it('refuses claims that are not usable identity ids', async () => {
    const plain = createTokenVerifier({ secret: SECRET });
    const exp = nowSec() + 60;
    for (const claims of [
      { sub: 'a\nb', session_id: 's', exp },
      { sub: 'a', session_id: 7, exp },
      { sub: 'a', session_id: '', exp },
      { sub: 'x'.repeat(257), session_id: 's', exp },
    ]) {
      const error = await rejection(plain, await hs256(claims));
      expect([error.reason, error.message]).toEqual([
        'bad-claims',
        'token claims "sub" and "session_id" must be non-empty strings without control characters',
      ]);
    }
  });

  it('accepts a Uint8Array secret and counts bytes, not characters', async () => {
    const bytes = createTokenVerifier({ secret: key });
    const token = await hs256({ sub: 'a', session_id: 's', exp: nowSec() + 60 });
    expect((await bytes(token)).identity.userId).toBe('a');
    // 16 two-byte characters are 32 bytes: enough.
    expect(() => createTokenVerifier({ secret: 'é'.repeat(16) })).not.toThrow();
  });
});

describe('JWKS verifier', () => {
  async function es256(kid: string) {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256' };
    const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid, ...header })
        .sign(pair.privateKey);
    return { jwk, sign };
  }

  it('accepts a token signed by a key of the set, and refuses other keys and HS256', async () => {
    const trusted = await es256('k1');
    const stranger = await es256('k1');
    const verify = createTokenVerifier({ jwks: { keys: [trusted.jwk] }, audience: 'mcp' });
    const claims = { sub: 'bob', session_id: 's2', exp: nowSec() + 60, aud: 'mcp' };
    expect((await verify(await trusted.sign(claims))).identity).toEqual({
      userId: 'bob',
      sessionId: 's2',
    });
    const forged = await rejection(verify, await stranger.sign(claims));
    expect([forged.reason, forged.message]).toEqual([
      'bad-signature',
      'token signature does not verify',
    ]);
    const unknownKid = await rejection(verify, await stranger.sign(claims, { kid: 'k9' }));
    expect(unknownKid.reason).toBe('bad-signature');
    const hmac = await rejection(verify, await hs256(claims));
    expect([hmac.reason, hmac.message]).toEqual([
      'bad-signature',
      'token algorithm is not allowed',
    ]);
  });

  it('honours a narrower algorithm list', async () => {
    const trusted = await es256('k1');
    const verify = createTokenVerifier({
      jwks: { keys: [trusted.jwk] },
      algorithms: ['RS256'],
      audience: false,
    });
    const error = await rejection(
      verify,
      await trusted.sign({ sub: 'a', session_id: 's', exp: nowSec() + 60 }),
    );
    expect(error.message).toBe('token algorithm is not allowed');
  });

  it('needs an audience with a key set, and refuses a token meant for another service', async () => {
    const trusted = await es256('k1');
    const error = optionsError(() => createTokenVerifier({ jwks: { keys: [trusted.jwk] } }));
    expect(error.option).toBe('auth.audience');
    const verify = createTokenVerifier({ jwks: { keys: [trusted.jwk] }, audience: 'mcp' });
    const claims = { sub: 'bob', session_id: 's2', exp: nowSec() + 60 };
    const billing = await rejection(verify, await trusted.sign({ ...claims, aud: 'billing' }));
    expect(billing.reason).toBe('bad-claims');
    expect((await rejection(verify, await trusted.sign(claims))).reason).toBe('bad-claims');
    const anyAudience = createTokenVerifier({ jwks: { keys: [trusted.jwk] }, audience: false });
    const accepted = await anyAudience(await trusted.sign({ ...claims, aud: 'billing' }));
    expect(accepted.identity.userId).toBe('bob');
  });

  it('refuses a malformed key set at construction', () => {
    const error = optionsError(() =>
      createTokenVerifier({ jwks: { keys: 'nope' } as unknown as { keys: [] }, audience: false }),
    );
    expect(error.option).toBe('auth.jwks');
    expect(error.message).toBe(
      'auth.jwks is not a valid JSON Web Key Set: JSON Web Key Set malformed',
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  // As built from an unset environment variable.
  it('treats secret: undefined beside a jwks as no secret', async () => {
    const trusted = await es256('k1');
    const verify = createTokenVerifier({
      secret: undefined,
      jwks: { keys: [trusted.jwk] },
      audience: false,
    });
    const token = await trusted.sign({ sub: 'a', session_id: 's', exp: nowSec() + 60 });
    expect((await verify(token)).identity.userId).toBe('a');
  });
});

describe('option checks', () => {
  it('needs exactly one of secret and jwks', () => {
    const message =
      'auth needs exactly one of { secret } (HS256) or { jwks } (a local JSON Web Key Set)';
    const neither = optionsError(() => createTokenVerifier({} as unknown as { secret: string }));
    const both = optionsError(() => createTokenVerifier({ secret: SECRET, jwks: { keys: [] } }));
    expect([neither.option, neither.message]).toEqual(['auth', message]);
    expect([both.option, both.message]).toEqual(['auth', message]);
  });

  it('refuses a short secret, reporting its length but never the secret', () => {
    const secret = 'short-secret-31-bytes-long-xxxx';
    expect(secret).toHaveLength(31);
    const error = optionsError(() => createTokenVerifier({ secret }));
    expect(error.option).toBe('auth.secret');
    expect(error.message).toBe(
      'auth.secret is 31 bytes long; HS256 needs at least 32 (RFC 7518 §3.2)',
    );
    expect(error.message).not.toContain(secret);
  });

  it('refuses a secret of the wrong type', () => {
    const error = optionsError(() => createTokenVerifier({ secret: 42 as unknown as string }));
    expect(error.message).toBe('auth.secret must be a string or Uint8Array, got number');
  });

  it('refuses a negative or non-finite clock tolerance', () => {
    for (const [value, shown] of [
      [-1, '-1'],
      [Number.NaN, 'NaN'],
      [Infinity, 'Infinity'],
    ] as const) {
      const error = optionsError(() =>
        createTokenVerifier({ secret: SECRET, clockToleranceSec: value }),
      );
      expect(error.option).toBe('auth.clockToleranceSec');
      expect(error.message).toBe(
        `auth.clockToleranceSec must be a non-negative number of seconds, got ${shown}`,
      );
    }
  });
});

describe('signIdentityToken', () => {
  it('writes sub, session_id, iat, exp (default one hour), iss and aud, with an HS256 header', async () => {
    const token = await signIdentityToken(
      { userId: 'alice', sessionId: 's1' },
      { secret: SECRET, issuer: 'idp', audience: ['a', 'b'] },
    );
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({ sub: 'alice', session_id: 's1', iss: 'idp', aud: ['a', 'b'] });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('uses expiresInSec and omits iss and aud when not given', async () => {
    const token = await signIdentityToken(
      { userId: 'u', sessionId: 's' },
      { secret: SECRET, expiresInSec: 5 },
    );
    const payload = decodeJwt(token);
    expect(payload.exp! - payload.iat!).toBe(5);
    expect(Object.keys(payload).sort()).toEqual(['exp', 'iat', 'session_id', 'sub']);
  });

  it('refuses a bad identity or a short secret', async () => {
    await expect(
      signIdentityToken({ userId: '', sessionId: 's' }, { secret: SECRET }),
    ).rejects.toThrow('userId must be a non-empty string, got an empty string');
    await expect(
      signIdentityToken({ userId: 'u', sessionId: 's\u0007' }, { secret: SECRET }),
    ).rejects.toThrow('sessionId "s\\u0007" contains control characters');
    await expect(
      signIdentityToken({ userId: 'u', sessionId: 's' }, { secret: 'tiny' }),
    ).rejects.toThrow('auth.secret is 4 bytes long');
  });
});
