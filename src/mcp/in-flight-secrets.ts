/**
 * The secret argument values (as `tools/secret-arguments.ts` finds them)
 * of the calls in flight on each connection. A server may echo a call's
 * arguments in its log (`login ada with hunter2`), which says nothing of
 * the call it belongs to: while a call is in flight, its secrets are
 * masked in every log message of its connection. Kept by connection, not
 * by route: a pooled connection is shared by sections (and sessions), and
 * its log reaches the listener of each.
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { scrubSecretStarts } from '../tools/secret-text.js';
import type { QuoteMask } from './output-check.js';
import { SecretRedactor } from './redact.js';
import type { Endpoint, McpServerConnection } from './server-connection.js';
import { cappedLogText, logText } from './server-log.js';

/**
 * How long a call's secrets stay masked in its connection's log after the
 * call settled: a server may write its log after its answer (a logger
 * that flushes on a timer, a request logged once it is done).
 */
export const ECHO_GRACE_MS = 10_000;

/**
 * Most settled calls whose secrets are kept for the grace: a busy shared
 * connection settles hundreds a second, and every log line is searched
 * for all of them.
 */
export const MAX_SETTLED_CALLS = 64;

interface CallSecrets {
  readonly secrets: readonly string[];
}

/**
 * Calls with secret arguments in flight or within their grace, on every
 * connection of the process: while there are none, no text needs looking
 * up (a call without secrets asks on every answer).
 */
let tracked = 0;

/** The calls in flight on one connection, and the last ones settled within the grace, that have secret arguments. */
class InFlightSecrets {
  readonly #inFlight = new Set<CallSecrets>();
  /** Oldest first (a Set keeps the order things were added in). */
  readonly #settled = new Set<CallSecrets>();
  /** One masker for all of them, made when first needed after a change. */
  #mask: ((text: string) => string) | undefined;

  add(secrets: readonly string[]): () => void {
    const call: CallSecrets = { secrets };
    this.#inFlight.add(call);
    tracked += 1;
    this.#mask = undefined;
    return () => {
      if (!this.#inFlight.delete(call)) return;
      this.#settled.add(call);
      if (this.#settled.size > MAX_SETTLED_CALLS) {
        const oldest = this.#settled.values().next().value;
        if (oldest !== undefined && this.#settled.delete(oldest)) tracked -= 1;
        this.#mask = undefined;
      }
      // Unref'd: a process may end before the grace does.
      setTimeout(() => {
        if (!this.#settled.delete(call)) return;
        tracked -= 1;
        this.#mask = undefined;
      }, ECHO_GRACE_MS).unref();
    };
  }

  /** What masks the secrets of every call in flight or settled within the grace; undefined without any. */
  get mask(): ((text: string) => string) | undefined {
    if (this.#inFlight.size === 0 && this.#settled.size === 0) return undefined;
    if (this.#mask === undefined) {
      // One redactor over all calls' secrets, so that a longer one is masked
      // whole before a shorter one inside it (each call's alone would not know).
      this.#mask = callSecretMask(
        new Set([...this.#inFlight, ...this.#settled].flatMap((call) => call.secrets)),
      );
    }
    return this.#mask;
  }
}

const byConnection = new WeakMap<McpServerConnection, InFlightSecrets>();

/**
 * Records that a call with secret argument values `secrets` was sent on
 * `connection`: until {@link ECHO_GRACE_MS} after the returned function is
 * called (when the call settles), they are masked in the log messages of
 * that connection.
 * Only for calls of a tool with secret arguments: a call without any
 * registers nothing, and a log message with none in flight is not searched.
 */
export function callSecretsSent(
  connection: McpServerConnection,
  secrets: readonly string[],
): () => void {
  let inFlight = byConnection.get(connection);
  if (inFlight === undefined) {
    inFlight = new InFlightSecrets();
    byConnection.set(connection, inFlight);
  }
  return inFlight.add(secrets);
}

/**
 * What masks a call's secret argument values in a server's text (its log,
 * its progress): each value in the forms a server writes it
 * (`SecretRedactor`), and a long one's start where the text cuts it short,
 * as a validator quotes a refused value.
 */
export function callSecretMask(secrets: Iterable<string>): (text: string) => string {
  const values = [...secrets];
  const redactor = new SecretRedactor(values);
  return (text) => scrubSecretStarts(redactor.redact(text), values);
}

/**
 * What masks the text a server wrote back about one call (an error, a
 * progress message, a validator's quote of a refused value): the call's
 * secret argument values first ({@link callSecretMask}), then those of the
 * other calls `others` masks (those in flight on the server's connections,
 * or settled within the grace: a server may write one call's secret into
 * another's answer), then the server's own secrets; undefined when there
 * is nothing to mask.
 */
export function callTextMask(
  secrets: readonly string[] | undefined,
  server: SecretRedactor,
  others?: (text: string) => string,
): ((text: string) => string) | undefined {
  const call = secrets === undefined || secrets.length === 0 ? undefined : callSecretMask(secrets);
  if (call === undefined && others === undefined && !server.hasSecrets) return undefined;
  const masks: ((text: string) => string)[] = [];
  if (call !== undefined) masks.push(call);
  if (others !== undefined) masks.push(others);
  if (server.hasSecrets) masks.push((text) => server.redact(text));
  if (masks.length <= 1) return masks[0];
  return (text) => masks.reduce((masked, mask) => mask(masked), text);
}

/**
 * What masks a message that quotes a server's data about one call (an
 * output-schema violation): the call's secret argument values and the
 * server's own secrets, in the data before it is quoted and in the text;
 * undefined when there is neither to mask.
 */
export function callQuoteMask(
  secrets: readonly string[] | undefined,
  server: SecretRedactor,
  others?: (text: string) => string,
): QuoteMask | undefined {
  const text = callTextMask(secrets, server, others);
  if (text === undefined) return undefined;
  const call =
    secrets === undefined || secrets.length === 0 ? undefined : new SecretRedactor(secrets);
  return {
    text,
    data: (value) => {
      const masked = server.redactData(value);
      return call === undefined ? masked : call.redactData(masked);
    },
  };
}

/** What masks the secret arguments of the calls in flight on `connection`, if any. */
export function callSecretsOf(
  connection: McpServerConnection,
): ((text: string) => string) | undefined {
  return byConnection.get(connection)?.mask;
}

/**
 * What masks the secret arguments of the calls in flight (or settled
 * within the grace) on either of a route's connections, if any.
 */
export function callSecretsOn(route: {
  connectionAt(endpoint: Endpoint): McpServerConnection | undefined;
}): ((text: string) => string) | undefined {
  if (tracked === 0) return undefined;
  const normal = route.connectionAt('normal');
  const isolated = route.connectionAt('isolated');
  const first = normal === undefined ? undefined : byConnection.get(normal)?.mask;
  const second = isolated === undefined ? undefined : byConnection.get(isolated)?.mask;
  if (first === undefined || second === undefined) return first ?? second;
  return (text) => second(first(text));
}

/**
 * `message` with the secrets `calls` masks masked in its logger and its
 * data. The data is made text here as `server-log.ts` writes it: a number
 * (a PIN) is masked as its text, and a secret that JSON escapes as it is
 * escaped.
 */
export function withoutCallSecrets(
  message: LoggingMessageNotification['params'],
  mask: (text: string) => string,
): LoggingMessageNotification['params'] {
  return {
    ...message,
    ...(message.logger === undefined ? {} : { logger: mask(message.logger) }),
    // Cut as an event keeps it: a log line of megabytes is masked only as far as it is kept.
    data: cappedLogText(logText(message.data), mask),
  };
}
