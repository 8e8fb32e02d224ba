/**
 * Secret values taken out of free text (a status message, a server's log,
 * a progress message): whole, and a start of a long one that the text cut
 * short, as a validator quotes a refused value.
 */

/** What replaces a withheld value. */
export const SECRET_MASK = '***';

/** Secret values shorter than this are not scrubbed from free text (they would mangle it). */
const MIN_SCRUBBED_LENGTH = 3;

/**
 * `text` with every secret (at least 3 characters long) replaced by `***`,
 * longest first; and, of a long secret, a start of it cut short (a
 * validator quotes the first 40 characters of a value it refuses).
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const sorted = [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_SCRUBBED_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  }
  return scrubSecretStarts(out, sorted);
}

/**
 * How long a cut-short start of a secret must be to be masked: a quoted
 * value cut by a validator keeps 40 characters; shorter starts (a URL's
 * scheme and host inside a withheld credentials object) are common text.
 */
export const MIN_SCRUBBED_START = 24;

/**
 * What may end a cut-short start: anything that cannot go on a token (an
 * ellipsis, a quote, escaped or not, a space, a comma, a bracket, the end
 * of the text); a letter, a digit or `-_+/=.:` would make it a longer word
 * that only begins like the secret.
 */
const CUT_END = /^(?:…|\.\.\.|\\?["'`]|[^A-Za-z0-9\-_+/=.:]|$)/;

/**
 * `text` with every start of `secret` (at least {@link MIN_SCRUBBED_START}
 * characters of it) masked where the text cuts it short: the run stops
 * where the secret goes on, at an ellipsis, a closing quote or the end.
 */
export function scrubSecretStarts(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > MIN_SCRUBBED_START) out = scrubStarts(out, secret);
  }
  return out;
}

function scrubStarts(text: string, secret: string): string {
  const head = secret.slice(0, MIN_SCRUBBED_START);
  const parts: string[] = [];
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    if (at < from) continue;
    let end = at + head.length;
    while (end < text.length && end - at < secret.length && text[end] === secret[end - at])
      end += 1;
    if (!CUT_END.test(text.slice(end, end + 3))) continue;
    parts.push(text.slice(from, at), SECRET_MASK);
    from = end;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}
