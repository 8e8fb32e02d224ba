/**
 * Carries the verified identity from `serveHttp` to `defineTool` inside the
 * SDK's per-request `AuthInfo`, which the SDK hands to every handler of that
 * request. This is the authoritative source; the async context is a second
 * path for handlers that do not go through `defineTool`.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { checkIdentityId, type Identity } from './request-context.js';
import type { VerifiedToken } from './jwt.js';

/** Key under `AuthInfo.extra` holding `{ userId, sessionId }`. */
export const IDENTITY_AUTH_EXTRA_KEY = 'mcp-sections/identity';

/** The `AuthInfo` for a verified token. */
export function authInfoFor(token: string, verified: VerifiedToken): AuthInfo {
  const info: AuthInfo = {
    token,
    clientId: verified.identity.userId,
    scopes: [],
    extra: { [IDENTITY_AUTH_EXTRA_KEY]: { ...verified.identity } },
  };
  if (verified.expiresAt !== undefined) info.expiresAt = verified.expiresAt;
  return info;
}

/** The identity stored by {@link authInfoFor}, if any and well formed. */
export function identityFromAuthInfo(authInfo: AuthInfo | undefined): Identity | undefined {
  const stored = authInfo?.extra?.[IDENTITY_AUTH_EXTRA_KEY];
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { userId, sessionId } = stored as Record<string, unknown>;
  try {
    return Object.freeze({
      userId: checkIdentityId('userId', userId),
      sessionId: checkIdentityId('sessionId', sessionId),
    });
  } catch {
    return undefined;
  }
}
