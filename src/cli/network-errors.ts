/**
 * Connection errors a person can act on: Node's `fetch` rejects with
 * `TypeError: fetch failed` and keeps the host, port and system error code
 * (`ECONNREFUSED`, `ENOTFOUND`…) in its `cause` chain. The library keeps only
 * a redacted message of a connection's cause, so the CLI puts them into
 * the message itself.
 */
import type { SecretRedactor } from '../mcp/redact.js';

/** What a network failure was, from an error's `cause` chain. */
export interface NetworkFailure {
  /** The system error code, e.g. `ECONNREFUSED`. */
  readonly code: string;
  readonly host?: string;
  readonly port?: number;
}

const MEANINGS: Readonly<Record<string, string>> = Object.freeze({
  ECONNREFUSED: 'connection refused: nothing listens there',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed, try again',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'socket closed by the server',
});

/**
 * The first system error code in `error`'s `cause` chain (including the
 * `errors` of an `AggregateError`), with the host and port it names; the
 * host and port of `url` when the error does not say.
 */
export function findNetworkFailure(error: unknown, url?: URL): NetworkFailure | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const record = current as Record<string, unknown>;
    const code = record['code'];
    if (typeof code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) {
      const host = [record['address'], record['hostname'], record['host']].find(
        (value): value is string => typeof value === 'string' && value !== '',
      );
      const port = typeof record['port'] === 'number' ? record['port'] : undefined;
      const fallbackHost = url?.hostname.replace(/^\[(.*)\]$/, '$1');
      const fallbackPort = url === undefined ? undefined : portOf(url);
      const foundHost = host ?? fallbackHost;
      const foundPort = port ?? fallbackPort;
      return {
        code,
        ...(foundHost === undefined ? {} : { host: foundHost }),
        ...(foundPort === undefined ? {} : { port: foundPort }),
      };
    }
    queue.push(record['cause']);
    if (Array.isArray(record['errors'])) queue.push(...(record['errors'] as unknown[]));
  }
  return undefined;
}

/**
 * `host 127.0.0.1, port 4000: ECONNREFUSED (connection refused: nothing listens there)`.
 */
export function describeNetworkFailure(failure: NetworkFailure): string {
  const at = where(failure.host, failure.port);
  const meaning = MEANINGS[failure.code];
  const what = meaning === undefined ? failure.code : `${failure.code} (${meaning})`;
  return at === '' ? what : `${at}: ${what}`;
}

/**
 * What masks the hosts a failure names: the CLI's own process connects
 * only the servers of the config it loaded, and adds their secrets here.
 */
const hostRedactors: SecretRedactor[] = [];

/** Masks the secrets `redactor` holds in every host name a failure names from now on. */
export function hideSecretsInHosts(redactor: SecretRedactor): void {
  hostRedactors.push(redactor);
}

/** `host 127.0.0.1, port 4000`, or what of it is known; a secret in the host masked. */
function where(host: string | undefined, port: number | undefined): string {
  const parts = [
    host === undefined
      ? ''
      : `host ${hostRedactors.reduce((shown, redactor) => redactor.redactHost(shown), host)}`,
    port === undefined ? '' : `port ${port}`,
  ];
  return parts.filter((part) => part !== '').join(', ');
}

type Fetch = typeof globalThis.fetch;

/**
 * Wraps `globalThis.fetch` so that a network failure rejects with
 * `fetch failed: host …, port …: CODE (meaning)` (the original error as its
 * `cause`). For the CLI's own process only; returns a function that puts
 * the original `fetch` back.
 */
export function installFetchDiagnostics(): () => void {
  const original: Fetch = globalThis.fetch;
  const wrapped: Fetch = async (input, init) => {
    try {
      return await original(input, init);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      const url = urlOf(input);
      const failure = findNetworkFailure(error, url);
      // No system code (e.g. undici's "bad port"): the cause's own words, and where.
      const cause: unknown = error.cause;
      const detail =
        failure !== undefined
          ? describeNetworkFailure(failure)
          : cause instanceof Error && url !== undefined
            ? `${where(url.hostname, portOf(url))}: ${cause.message}`
            : undefined;
      if (detail === undefined) throw error;
      throw new TypeError(`${error.message}: ${detail}`, { cause: error });
    }
  };
  globalThis.fetch = wrapped;
  return () => {
    if (globalThis.fetch === wrapped) globalThis.fetch = original;
  };
}

function urlOf(input: Parameters<Fetch>[0]): URL | undefined {
  try {
    return new URL(input instanceof Request ? input.url : input);
  } catch {
    return undefined;
  }
}

function portOf(url: URL): number | undefined {
  if (url.port !== '') return Number(url.port);
  if (url.protocol === 'https:') return 443;
  if (url.protocol === 'http:') return 80;
  return undefined;
}
