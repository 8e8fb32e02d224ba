/**
 * Which values `${VAR}` expansion took from the environment are secrets a
 * server's messages must mask, as its `env` values are: a token is as
 * often passed in `args` or in a URL's path as in `env` or a header.
 */
import { memberOf } from '../core/json.js';

/** A value expansion took from the environment, and the field it went into. */
export interface TakenValue {
  readonly value: string;
  /** As expansion names it: `mcp_servers.gh.args[2]`, `mcpServers.web.url`. */
  readonly field: string;
}

/**
 * Fields whose expanded values are secrets, as expansion names them:
 * `mcp_servers.gh.args[2]`, `mcpServers.db.env.DATABASE_URL`,
 * `mcp_servers.k8s.transport.env.KUBE_AUTH`, `mcpServers.web.headers.Cookie`,
 * `mcp_servers.k8s.transport.bearer_token`. The root key and the server's
 * key come first, so `env` and `headers` must follow at least one more
 * component: a server named `env` does not make its command a secret. (An
 * `.mcp.json` key holding `.env.` itself can: that only masks more.)
 */
const SECRET_FIELD: readonly RegExp[] = [
  /\.args(\[\d+\])?$/,
  /^[^.]+\..+\.headers\./,
  /\.bearer_token$/,
];

/** An `env` field (`.mcp.json`, config.yaml, TARSy's `transport.env`): see {@link envSecret}. */
const ENV_FIELD = /^[^.]+\..+\.env\./;

/**
 * Shorter than this, a piece expanded into part of an `env` value is not
 * taken for a secret (unless it is a URL's password): masked wherever it
 * appears, `app` or `5432` would cut words and numbers apart in every
 * message, and no token is that short. A whole `env` value is masked
 * whatever its length.
 */
const MIN_ENV_PIECE = 6;

/**
 * The secrets among `taken`: every value that went into `args`, a header
 * or a bearer token, and into `env` (TARSy's `transport.env` too) as
 * {@link envSecret} says.
 * A whole `env` or header value is masked already, but not a token
 * expanded into part of one (`DATABASE_URL: postgres://app:${DB_PASSWORD}@db/app`,
 * `Cookie: theme=dark; sid=${SID}`): a server echoing only the token would
 * show it. Of a URL, what lies beyond its origin: a host or a port is not
 * a secret (masked, it would hide where a failed connection went); of a
 * whole URL from the environment, the path of the URL it made is.
 */
export function expandedSecrets(
  taken: readonly TakenValue[],
  urls: readonly string[],
  envValues: readonly string[] = [],
): string[] {
  const secrets: string[] = [];
  for (const { value, field } of taken) {
    if (SECRET_FIELD.some((pattern) => pattern.test(field))) {
      secrets.push(value);
      continue;
    }
    if (ENV_FIELD.test(field)) {
      if (envSecret(value, envValues)) secrets.push(value);
      continue;
    }
    // `url`, TARSy's `transport.url`, config.yaml's `url_isolated`; command, cwd, timeouts: not secrets.
    if (!/\.url(_isolated)?$/.test(field)) continue;
    for (const text of urls) {
      if (!text.includes(value)) continue;
      const url = parsed(text);
      if (url === undefined) secrets.push(value);
      else if (url.origin.includes(value)) continue;
      else if (value.includes(url.origin)) secrets.push(url.pathname);
      else secrets.push(value);
    }
  }
  return secrets.filter((secret) => secret.length > 1);
}

/**
 * Whether `value`, expanded into an `env` value, is a secret of its own:
 * never when it is a whole env value (masked as one already); always when
 * it is the URL's password of a URL-shaped value that holds it; never when
 * it lies in such a URL's host or port (`postgres://app:${PW}@${HOST}:${PORT}/db`:
 * where a failed connection went, not a key); otherwise (a user name
 * too, which may be the token) when it has at least {@link MIN_ENV_PIECE}
 * characters.
 */
function envSecret(value: string, envValues: readonly string[]): boolean {
  // A whole env value is masked wherever it appears already.
  if (envValues.includes(value)) return false;
  for (const text of envValues) {
    if (!text.includes(value) || !text.includes('://')) continue;
    const url = parsed(text);
    if (url === undefined) continue;
    if (url.password !== '' && decoded(url.password).includes(value)) return true;
    // A user name may be the credential itself (`https://${GH_TOKEN}@github.com/...`,
    // a Sentry DSN's key): only the host and the port say where, not who.
    if ([url.hostname, url.port].some((part) => part !== '' && part.includes(value))) {
      return false;
    }
  }
  return value.length >= MIN_ENV_PIECE;
}

/**
 * Adds to a loader's server config (programmatic shape, not yet checked)
 * the secrets among the values expansion took for it, as `secrets`.
 */
export function addExpandedSecrets(
  config: Record<string, unknown>,
  taken: readonly TakenValue[],
): void {
  const urls = [urlOf(config['transport']), urlOf(memberOf(config['isolation'], 'transport'))];
  const envValues = [config['env'], memberOf(config['transport'], 'env')].flatMap((env) =>
    typeof env === 'object' && env !== null
      ? Object.values(env).filter((item): item is string => typeof item === 'string')
      : [],
  );
  const secrets = expandedSecrets(
    taken,
    urls.filter((url): url is string => url !== undefined),
    envValues,
  );
  if (secrets.length > 0) config['secrets'] = secrets;
}

function urlOf(transport: unknown): string | undefined {
  const url = memberOf(transport, 'url');
  return typeof url === 'string' ? url : undefined;
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** A URL component percent-decoded, or as it is when it does not decode. */
function decoded(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}
