import type { McpServerConfig, McpTransportConfig } from './config-types.js';

const MASK = '***';
const MIN_SECRET_LENGTH = 3;

/**
 * Removes a server's secrets — `env` values, header values, bearer tokens,
 * URL credentials and query values — from text before it reaches an error,
 * an event or a log.
 */
export class SecretRedactor {
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string>) {
    const unique = new Set<string>();
    for (const secret of secrets) {
      if (secret.length >= MIN_SECRET_LENGTH) unique.add(secret);
    }
    // Longest first, so a secret that contains another is masked whole.
    this.#secrets = [...unique].sort((a, b) => b.length - a.length);
  }

  /** Collects the secrets of one server config (both of its transports). */
  static forServer(config: McpServerConfig): SecretRedactor {
    const secrets: string[] = [...Object.values(config.env ?? {})];
    const transports = [config.transport, config.isolation?.transport];
    for (const transport of transports)
      if (transport !== undefined) secrets.push(...transportSecrets(transport));
    return new SecretRedactor(secrets);
  }

  /** `text` with every secret replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(MASK);
    }
    return out;
  }

  /** An error's message, redacted. */
  message(error: unknown): string {
    return this.redact(error instanceof Error ? error.message : String(error));
  }
}

function transportSecrets(transport: McpTransportConfig): string[] {
  if (transport.type !== 'sse' && transport.type !== 'streamable-http') return [];
  const secrets: string[] = [];
  for (const value of Object.values(transport.headers ?? {})) {
    secrets.push(value);
    const token = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
    if (token !== undefined) secrets.push(token);
  }
  try {
    const url = new URL(transport.url);
    if (url.username) secrets.push(decodeURIComponent(url.username), url.username);
    if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
    for (const value of url.searchParams.values()) secrets.push(value);
  } catch {
    // Invalid URLs are rejected by config validation before this runs.
  }
  return secrets;
}
