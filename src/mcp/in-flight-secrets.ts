/**
 * The secret argument values (as `tools/secret-arguments.ts` finds them)
 * of each session's calls in flight. A server may echo a call's arguments
 * in its log (`login ada with hunter2`), in another call's answer or in a
 * tool description it lists again, none of which says which call it came
 * from: while a call is in flight, and for a grace after, its secrets are
 * masked in every text a server writes to its session, on any of the
 * session's connections (two names for one deployment, two sections whose
 * pool keys differ). Kept by session, never across them: masking another
 * session's values in a session's text would tell that session, by what
 * is masked, which values the other holds (a guess echoed back as `***`).
 * A backend that hands one session's secret to another is beyond masking.
 */
import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { MIN_SCRUBBED_START, scrubSecretStarts } from '../tools/secret-text.js';
import type { QuoteMask } from './output-check.js';
import { maskStrings, SecretRedactor } from './redact.js';
import type { ServerTextMasker } from './server-text.js';
import { cappedLogText, logText } from './server-log.js';

/**
 * How long a call's secrets stay masked after the call settled: a server
 * may write its log after its answer (a logger that flushes on a timer, a
 * request logged once it is done).
 */
export const ECHO_GRACE_MS = 10_000;

/**
 * Most settled calls of a session whose secrets are kept for the grace: a
 * busy session settles hundreds a second, and every server text is
 * searched for all of them.
 */
export const MAX_SETTLED_CALLS = 64;

interface CallSecrets {
  readonly secrets: readonly string[];
}

/** How a set of secret values is masked: in a whole text, and in one cut from a longer stream. */
interface Masks {
  readonly values: readonly string[];
  readonly mask: (text: string) => string;
  readonly tail: (text: string) => string;
}

/** The calls in flight, and the last ones settled within the grace, that have secret arguments. */
class InFlightSecrets {
  readonly #inFlight = new Set<CallSecrets>();
  /** Oldest first (a Set keeps the order things were added in). */
  readonly #settled = new Set<CallSecrets>();
  /** The masks of all of them, made when first needed after a change. */
  #masks: Masks | undefined;

  add(secrets: readonly string[]): () => void {
    const call: CallSecrets = { secrets };
    this.#inFlight.add(call);
    this.#masks = undefined;
    return () => {
      if (!this.#inFlight.delete(call)) return;
      this.#settled.add(call);
      if (this.#settled.size > MAX_SETTLED_CALLS) {
        const oldest = this.#settled.values().next().value;
        if (oldest !== undefined) this.#settled.delete(oldest);
        this.#masks = undefined;
      }
      // Unref'd: a process may end before the grace does.
      setTimeout(() => {
        if (this.#settled.delete(call)) this.#masks = undefined;
      }, ECHO_GRACE_MS).unref();
    };
  }

  /** The masks of the secrets of every call in flight or settled within the grace; undefined without any. */
  get masks(): Masks | undefined {
    // While there are none, no text is searched (a call without secrets asks on every answer).
    if (this.#inFlight.size === 0 && this.#settled.size === 0) return undefined;
    if (this.#masks === undefined) {
      // One redactor over all calls' secrets, so that a longer one is masked
      // whole before a shorter one inside it (each call's alone would not know).
      this.#masks = secretMasks([
        ...new Set([...this.#inFlight, ...this.#settled].flatMap((call) => call.secrets)),
      ]);
    }
    return this.#masks;
  }
}

const bySession = new WeakMap<object, InFlightSecrets>();

/**
 * Records that a call of `session` with secret argument values `secrets`
 * was sent: until {@link ECHO_GRACE_MS} after the returned function is
 * called (when the call settles), they are masked in every server's text
 * to that session.
 * Only for calls of a tool with secret arguments: a call without any
 * registers nothing, and a text with none in flight is not searched.
 */
export function callSecretsSent(session: object, secrets: readonly string[]): () => void {
  let calls = bySession.get(session);
  if (calls === undefined) {
    calls = new InFlightSecrets();
    bySession.set(session, calls);
  }
  return calls.add(secrets);
}

/**
 * What masks the secret arguments of `session`'s calls in flight (or
 * settled within the grace), if any.
 */
export function callSecretsInFlight(session: object): ((text: string) => string) | undefined {
  return bySession.get(session)?.masks?.mask;
}

/**
 * {@link callSecretsInFlight} for a text about a call that sent `sent` (its
 * arguments), without the values the call itself sent: a server may echo
 * what it was sent, and a value the caller sent that equals another call's
 * secret (or holds one's start) would come back masked, telling the caller
 * it guessed right. Another call's secret that the caller did not send is
 * masked as ever.
 */
export function otherCallSecrets(
  session: object,
  sent: unknown,
): ((text: string) => string) | undefined {
  const masks = bySession.get(session)?.masks;
  if (masks === undefined) return undefined;
  const given = sentTexts(sent);
  if (given.length === 0) return masks.mask;
  // What masking would find in the caller's own text: a secret whole, or (a long
  // one) its start, as `scrubSecretStarts` looks for it.
  const spelled = (secret: string): boolean =>
    given.some((text) => text.includes(secret.slice(0, MIN_SCRUBBED_START)));
  const kept = masks.values.filter((secret) => !spelled(secret));
  if (kept.length === masks.values.length) return masks.mask;
  return kept.length === 0 ? undefined : callSecretMask(kept);
}

/** Most texts read from a call's arguments (and how deep) to tell what the caller sent. */
const MAX_SENT_TEXTS = 1_000;
const MAX_SENT_DEPTH = 32;

/** The strings and numbers (as text) in `value`, at most {@link MAX_SENT_TEXTS}. */
function sentTexts(value: unknown, out: string[] = [], depth = 0): string[] {
  if (out.length >= MAX_SENT_TEXTS || depth > MAX_SENT_DEPTH) return out;
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) sentTexts(item, out, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      out.push(key);
      sentTexts((value as Record<string, unknown>)[key], out, depth + 1);
    }
  }
  return out;
}

/**
 * {@link callSecretsInFlight} for text cut from the end of a longer stream
 * (a stderr tail), which may begin inside a secret (`SecretRedactor.redactTail`).
 */
export function callSecretsInFlightTail(session: object): ((text: string) => string) | undefined {
  return bySession.get(session)?.masks?.tail;
}

/**
 * What masks a server's text to `session` that is about no one call (the
 * tools it lists): the server's own secrets, then the secret arguments of
 * the session's calls in flight or within the grace (a server may copy
 * one into a tool description it lists again while the call runs). Read
 * when the text arrives.
 */
export function serverTextMasker(session: object, server: ServerTextMasker): ServerTextMasker {
  const mask = callSecretsInFlight(session);
  if (mask === undefined) return server;
  return { hasSecrets: true, redact: (text) => mask(server.redact(text)) };
}

/**
 * What masks a call's secret argument values in a server's text (its log,
 * its progress): each value in the forms a server writes it
 * (`SecretRedactor`), and a long one's start where the text cuts it short,
 * as a validator quotes a refused value.
 */
function callSecretMask(secrets: Iterable<string>): (text: string) => string {
  return secretMasks([...secrets]).mask;
}

/** The masks of secret argument values `values` (see {@link callSecretMask}). */
function secretMasks(values: readonly string[]): Masks {
  const redactor = new SecretRedactor(values);
  return {
    values,
    mask: (text) => scrubSecretStarts(redactor.redact(text), values),
    tail: (text) => scrubSecretStarts(redactor.redactTail(text), values),
  };
}

/**
 * What masks the text a server wrote back about one call (an error, a
 * progress message, a validator's quote of a refused value): the call's
 * secret argument values first ({@link callSecretMask}), then those of the
 * other calls `others` masks (those in flight or settled within the grace:
 * a server may write one call's secret into another's answer), then the
 * server's own secrets; undefined when there is nothing to mask.
 */
export function callTextMask(
  secrets: readonly string[] | undefined,
  server: ServerTextMasker,
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
 * output-schema violation): the call's secret argument values, those of
 * the other calls `others` masks, and the server's own secrets, in the
 * data before it is quoted (the quote may cut a value, leaving too little
 * of a secret for the text's mask to find) and in the text; undefined
 * when there is nothing to mask.
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
      const own = call === undefined ? masked : call.redactData(masked);
      return others === undefined ? own : maskStrings(own, others);
    },
  };
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
