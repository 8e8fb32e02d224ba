/**
 * JWT verification with `jose`: HS256 with a shared secret, or asymmetric
 * algorithms with a local JWKS (never fetched over the network). The `sub`
 * and `session_id` claims become the caller's {@link Identity}.
 *
 * Rejections carry a short reason safe to send back in a 401; neither the
 * token nor the secret ever appears in a message.
 */
import {
  SignJWT,
  createLocalJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { ServerOptionsError } from './errors.js';
import { checkIdentityId, type Identity } from './request-context.js';

/** Options shared by both key kinds. */
export interface JwtCommonOptions {
  /** Required `iss` claim, if set. */
  readonly issuer?: string | readonly string[];
  /**
   * Required `aud` claim, if set. With a JWKS it must be set: the identity
   * provider's tokens for other services are signed with the same keys.
   * `false` accepts a token meant for any audience, on purpose.
   */
  readonly audience?: string | readonly string[] | false;
  /** Leeway for `exp` and `nbf`, in seconds. @default 5 */
  readonly clockToleranceSec?: number;
  /** Refuse tokens without an `exp` claim. @default true */
  readonly requireExpiry?: boolean;
}

/** Tokens signed with HS256 and a shared secret of at least 32 bytes. */
export interface HmacJwtOptions extends JwtCommonOptions {
  readonly secret: string | Uint8Array;
}

/** Tokens signed with a key of a local JSON Web Key Set. */
export interface JwksJwtOptions extends JwtCommonOptions {
  readonly jwks: JSONWebKeySet;
  /** Accepted algorithms. @default DEFAULT_JWKS_ALGORITHMS */
  readonly algorithms?: readonly string[];
}

/** How `serveHttp` verifies bearer tokens. */
export type JwtAuthOptions = HmacJwtOptions | JwksJwtOptions;

/** Default of {@link JwtCommonOptions.clockToleranceSec}. */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 5;

/** Shortest HS256 secret accepted: the hash size, as RFC 7518 §3.2 requires. */
export const MIN_HMAC_SECRET_BYTES = 32;

/**
 * Asymmetric algorithms accepted with a JWKS. Symmetric ones are left out
 * so that a public key can never be used as an HMAC secret.
 */
export const DEFAULT_JWKS_ALGORITHMS: readonly string[] = Object.freeze([
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

/** Why a token was refused. */
export type TokenRejection = 'missing' | 'expired' | 'bad-signature' | 'bad-claims' | 'malformed';

/** A bearer token was missing or did not verify; `serveHttp` answers 401. */
export class TokenRejectedError extends Error {
  override readonly name: string = 'TokenRejectedError';
  constructor(
    readonly reason: TokenRejection,
    message: string,
  ) {
    super(message);
  }
}

/** What a verified token yields. */
export interface VerifiedToken {
  readonly identity: Identity;
  /** `exp`, in seconds since the epoch, when present. */
  readonly expiresAt: number | undefined;
}

/** Verifies one compact JWT. */
export type TokenVerifier = (token: string) => Promise<VerifiedToken>;

/**
 * Builds a verifier from `options`.
 *
 * @throws {ServerOptionsError} when neither or both of `secret` and `jwks`
 *   are given, the secret is shorter than 32 bytes, the JWKS is malformed,
 *   or a JWKS comes without `audience`.
 * @example
 * ```ts
 * const verify = createTokenVerifier({ secret: process.env.JWT_SECRET! });
 * const { identity } = await verify(token); // throws TokenRejectedError
 * ```
 */
export function createTokenVerifier(options: JwtAuthOptions): TokenVerifier {
  const hasSecret = 'secret' in options && options.secret !== undefined;
  const hasJwks = 'jwks' in options && options.jwks !== undefined;
  if (hasSecret === hasJwks) {
    throw new ServerOptionsError(
      'auth',
      'auth needs exactly one of { secret } (HS256) or { jwks } (a local JSON Web Key Set)',
    );
  }
  const verifyOptions = baseVerifyOptions(options);
  // `jwks` decides, not `'secret' in options`: `{ secret: undefined, jwks }` is a JWKS verifier.
  if (!('jwks' in options) || options.jwks === undefined) {
    const key = secretBytes((options as { secret?: unknown }).secret);
    verifyOptions.algorithms = ['HS256'];
    return (token) => verify(token, (v) => jwtVerify(v, key, verifyOptions));
  }
  if (options.audience === undefined) {
    throw new ServerOptionsError(
      'auth.audience',
      "auth.audience is needed with auth.jwks: the identity provider's tokens for other services " +
        'are signed with the same keys; set it to the audience of this server ' +
        '(or to false to accept tokens meant for any audience)',
    );
  }
  let keySet: JWTVerifyGetKey;
  try {
    keySet = createLocalJWKSet(options.jwks);
  } catch (error) {
    throw new ServerOptionsError(
      'auth.jwks',
      `auth.jwks is not a valid JSON Web Key Set: ${(error as Error).message}`,
      { cause: error },
    );
  }
  verifyOptions.algorithms = [...(options.algorithms ?? DEFAULT_JWKS_ALGORITHMS)];
  return (token) => verify(token, (v) => jwtVerify(v, keySet, verifyOptions));
}

/** Options of {@link signIdentityToken}. */
export interface SignIdentityTokenOptions {
  /** HS256 secret, at least 32 bytes. */
  readonly secret: string | Uint8Array;
  /** Lifetime in seconds. @default 3600 */
  readonly expiresInSec?: number;
  readonly issuer?: string;
  readonly audience?: string | string[];
}

/**
 * Signs an HS256 token carrying `sub` and `session_id`, for tests, examples
 * and trusted in-house clients. Production tokens usually come from an
 * identity provider.
 *
 * @throws {ServerOptionsError} for a short secret or a bad identity.
 * @example
 * ```ts
 * const token = await signIdentityToken({ userId: 'alice', sessionId: 's1' }, { secret });
 * ```
 */
export async function signIdentityToken(
  identity: Identity,
  options: SignIdentityTokenOptions,
): Promise<string> {
  const key = secretBytes(options.secret);
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ session_id: checkIdentityId('sessionId', identity.sessionId) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(checkIdentityId('userId', identity.userId))
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresInSec ?? 3600));
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  return jwt.sign(key);
}

function secretBytes(secret: unknown): Uint8Array {
  let bytes: Uint8Array;
  if (typeof secret === 'string') bytes = new TextEncoder().encode(secret);
  else if (secret instanceof Uint8Array) bytes = secret;
  else {
    throw new ServerOptionsError(
      'auth.secret',
      `auth.secret must be a string or Uint8Array, got ${typeof secret}`,
    );
  }
  if (bytes.length < MIN_HMAC_SECRET_BYTES) {
    // The length is reported, never the secret.
    throw new ServerOptionsError(
      'auth.secret',
      `auth.secret is ${bytes.length} bytes long; HS256 needs at least ${MIN_HMAC_SECRET_BYTES} (RFC 7518 §3.2)`,
    );
  }
  return bytes;
}

function baseVerifyOptions(options: JwtCommonOptions): JWTVerifyOptions {
  const tolerance = options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new ServerOptionsError(
      'auth.clockToleranceSec',
      `auth.clockToleranceSec must be a non-negative number of seconds, got ${String(tolerance)}`,
    );
  }
  const required = ['sub', 'session_id'];
  if (options.requireExpiry ?? true) required.push('exp');
  const verifyOptions: JWTVerifyOptions = { clockTolerance: tolerance, requiredClaims: required };
  if (options.issuer !== undefined) {
    verifyOptions.issuer =
      typeof options.issuer === 'string' ? options.issuer : [...options.issuer];
  }
  if (options.audience !== undefined && options.audience !== false) {
    verifyOptions.audience =
      typeof options.audience === 'string' ? options.audience : [...options.audience];
  }
  return verifyOptions;
}

async function verify(
  token: string,
  run: (token: string) => ReturnType<typeof jwtVerify>,
): Promise<VerifiedToken> {
  if (token.length === 0) throw new TokenRejectedError('missing', 'missing bearer token');
  let payload;
  try {
    ({ payload } = await run(token));
  } catch (error) {
    throw rejection(error);
  }
  let identity: Identity;
  try {
    identity = {
      userId: checkIdentityId('userId', payload.sub),
      sessionId: checkIdentityId('sessionId', payload['session_id']),
    };
  } catch {
    throw new TokenRejectedError(
      'bad-claims',
      `token claims "sub" and "session_id" must be non-empty strings without control characters`,
    );
  }
  return { identity, expiresAt: payload.exp };
}

function rejection(error: unknown): TokenRejectedError {
  if (error instanceof errors.JWTExpired) return new TokenRejectedError('expired', 'token expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new TokenRejectedError(
      'bad-claims',
      `token claim "${error.claim}" ${describeClaimFailure(error.reason)}`,
    );
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey
  ) {
    return new TokenRejectedError('bad-signature', 'token signature does not verify');
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new TokenRejectedError('bad-signature', 'token algorithm is not allowed');
  }
  return new TokenRejectedError('malformed', 'malformed token');
}

function describeClaimFailure(reason: string): string {
  return reason === 'missing' ? 'is missing' : 'is invalid';
}
