import { createHash } from 'node:crypto';
import type { McpTransportConfig, ResolvedServerConfig } from '../config/server-config.js';
import { maskedQuote, messageOf } from '../core/errors.js';

const MASK = '***';
/**
 * A run of text without white space, double quotes, angle brackets or
 * backticks: a URL, a header value, a word. Not cut at an apostrophe:
 * `encodeURIComponent` leaves one as it is, so a secret that holds one
 * would be cut in two pieces that neither decode to it.
 */
const TOKEN = /[^\s"<>`]+/g;
/** Longer tokens holding an encoded secret are masked whole. */
const MAX_SEARCHED_TOKEN = 1_024;
const MIN_SECRET_LENGTH = 3;
/**
 * What may stand between a secret's characters and still let a reader
 * join them up: characters a reader does not see (format characters and
 * other default-ignorable code points), and line breaks and other
 * controls, which cleaning turns into one space or a reader skips.
 */
const BETWEEN = /[\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const BETWEEN_ALL = new RegExp(BETWEEN.source, 'gu');
/**
 * Secrets this long or longer are also masked base64-encoded: the encoded
 * core of a shorter one is too short to be specific (it could turn up in
 * any long identifier or hash).
 */
const MIN_BASE64_SECRET = 8;

/**
 * Removes a server's secrets — `env` values, header values, bearer tokens,
 * URL credentials and query values — from text before it reaches an error,
 * an event or a log.
 */
export class SecretRedactor {
  readonly #secrets: readonly string[];
  /**
   * The stable middle of each long enough secret's base64 encoding, at each
   * of the three byte alignments, in both alphabets (see {@link base64Cores}).
   */
  readonly #base64: readonly string[];
  /** The length of the shortest of {@link #base64}: a shorter text (a name, a level) holds none. */
  readonly #shortestCore: number;
  /** Each secret as a pattern that lets {@link BETWEEN} characters stand between its characters. */
  #spread: readonly { readonly first: string; readonly pattern: RegExp }[] | undefined;
  #fingerprint: string | undefined;

  constructor(secrets: Iterable<string>) {
    const unique = new Set<string>();
    const cores = new Set<string>();
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      unique.add(secret);
      // In a host name: every URL parser writes one in lower case (a server
      // that names a URL with the secret as its host had it quoted so).
      const lower = secret.toLowerCase();
      if (lower !== secret) unique.add(lower);
      // The forms below of a shorter one (`info` as `INFO`, `prod` in hex)
      // would be ordinary words and numbers, not the secret.
      if (secret.length >= MIN_BASE64_SECRET) {
        // In upper case, as a hex token or a case-insensitive key is shown.
        unique.add(secret.toUpperCase());
        // An HTTP Basic header, a token a server wraps: base64 of bytes that hold it.
        for (const core of base64Cores(secret)) cores.add(core);
        // A dump of its bytes: as hex in either case, as Node shows a buffer
        // (`<Buffer 67 68 …>`), and as JSON writes one (`[103,104,…]`).
        const bytes = [...Buffer.from(secret, 'utf8')];
        const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0'));
        for (const form of [hex.join(''), hex.join(' '), bytes.join(',')]) {
          unique.add(form).add(form.toUpperCase());
        }
      }
    }
    // Longest first, so a secret that contains another is masked whole.
    this.#secrets = [...unique].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.#base64 = [...cores];
    this.#shortestCore = Math.min(...this.#base64.map((core) => core.length));
  }

  /**
   * A digest of what this masks: equal for two redactors that mask the
   * same secrets. A shared connection masks with the redactor it was made
   * with, so only configs that mask alike may share one.
   */
  get fingerprint(): string {
    this.#fingerprint ??= createHash('sha256').update(JSON.stringify(this.#secrets)).digest('hex');
    return this.#fingerprint;
  }

  /** Collects the secrets of one server config: `env`, `secrets`, and both of its transports'. */
  static forServer(config: ResolvedServerConfig): SecretRedactor {
    return new SecretRedactor(serverSecrets(config));
  }

  /** `text` with every secret replaced by `***`. */
  redact(text: string): string {
    let out = text;
    // First, while every base64 run is whole: a shorter secret masked inside
    // a run first would cut the encoded copy of a longer one apart.
    // Math.min of no cores is Infinity: a redactor without long secrets never searches.
    if (out.length >= this.#shortestCore) out = this.#maskBase64(out);
    for (const secret of this.#secrets) {
      if (out.includes(secret)) out = out.split(secret).join(MASK);
    }
    // As a JSON writer escapes it inside a string (a log line, a result
    // written out), each writer other characters, or as HTML writes it.
    if (this.#secrets.length > 0 && (out.includes('\\') || out.includes('&'))) {
      out = this.#maskEscaped(out);
    }
    // A secret split by characters a reader does not see (a zero-width
    // space between its letters) or by a line break reads whole on a screen.
    if (this.#secrets.length > 0 && BETWEEN.test(out)) out = this.#maskSpread(out);
    // A secret can also travel encoded, whole or in part: percent-encoded
    // with either case of hex, or form-encoded with `+` for a space.
    if (this.#secrets.length > 0 && /[%+]/.test(out))
      out = out.replace(TOKEN, (token) => this.#maskEncoded(token));
    return out;
  }

  /**
   * `token` with the shortest runs of its pieces (split at URL separators)
   * that decode to text holding a secret masked; the whole token when it
   * is too long to search that way.
   */
  #maskEncoded(token: string): string {
    if (!/[%+]/.test(token) || !this.#holdsSecret(token)) return token;
    if (token.length > MAX_SEARCHED_TOKEN) return MASK;
    const pieces = token.split(/([/?&=#;,])/);
    const out: string[] = [];
    let from = 0;
    for (let end = 0; end < pieces.length; end += 1) {
      // The shortest run ending here that holds a secret: grow it leftwards.
      let run = '';
      for (let start = end; start >= from; start -= 1) {
        run = pieces[start]! + run;
        if (!this.#holdsSecret(run)) continue;
        out.push(...pieces.slice(from, start), MASK);
        from = end + 1;
        break;
      }
    }
    out.push(...pieces.slice(from));
    return out.join('');
  }

  /**
   * `text` with every base64 run that holds a secret's encoded core masked
   * whole: the characters next to the core mix the secret's bits with its
   * neighbours', and the rest of the run is the same token.
   */
  #maskBase64(text: string): string {
    // A search per core, not a scan of the text's runs: the engine's
    // substring search skips through text much faster than a loop that
    // reads each character, and most text holds no core. The runs found
    // are cut out in one pass at the end: cutting each as it is found
    // would copy the whole text per match (a server sent 20,000 copies).
    const runs: [number, number][] = [];
    for (const core of this.#base64) {
      for (let at = text.indexOf(core); at !== -1;) {
        let start = at;
        while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start -= 1;
        let end = at + core.length;
        while (end < text.length && isBase64Char(text.charCodeAt(end))) end += 1;
        // Its padding, at most two `=`.
        for (let pad = 0; pad < 2 && text[end] === '='; pad += 1) end += 1;
        runs.push([start, end]);
        at = text.indexOf(core, end);
      }
    }
    // Runs of two cores in one token are the same run, or overlap.
    return maskSpans(text, runs);
  }

  /**
   * `text` with every secret masked that it holds once its escapes are
   * read: JSON's (`\uXXXX` of any character, `\"`, `\\`, `\/`, `\n` and
   * the rest) and HTML's character references (`&amp;`, `&#61;`,
   * `&#x3D;`: an error page that quotes a URL). Writers escape different
   * characters (Go `&`, `<` and `>`, Gson `=` and `'` too, Python every
   * non-ASCII one, PHP `/`), so no list of forms covers them all. An
   * escape is masked whole.
   */
  #maskEscaped(text: string): string {
    // Read in windows, each with room past its end for the longest secret
    // written out escaped, so that what is built to read them stays small
    // (a message of escapes alone took 50 times its size read whole).
    const overlap = this.#secrets[0]!.length * ESCAPED_UNITS_PER_CHARACTER;
    const size = Math.max(ESCAPE_WINDOW, 4 * overlap);
    const spans: [number, number][] = [];
    for (let start = 0; start < text.length;) {
      const window = text.slice(start, start + size + overlap);
      const found = this.#escapedSecrets(window, size);
      for (const [from, to] of found.spans) spans.push([start + from, start + to]);
      // The next starts where an escape ends, never inside one (inside a run of
      // backslashes it would read every pair after it the other way round).
      start += found.next;
    }
    return maskSpans(text, spans);
  }

  /**
   * Where `text` holds a secret once its escapes are read, as many times as
   * a writer may have escaped it ({@link MAX_ESCAPE_ROUNDS}: JSON in a JSON
   * string, an HTML page in one): each found in the text of one round and
   * followed back through the rounds before it. `next`: where a window
   * after this one starts, at `size` or past the escape that holds it.
   */
  #escapedSecrets(
    text: string,
    size: number,
  ): { readonly spans: [number, number][]; readonly next: number } {
    const rounds: ReadEscapes[] = [];
    for (let read = readEscapes(text); read !== undefined && rounds.length < MAX_ESCAPE_ROUNDS;) {
      rounds.push(read);
      read = readEscapes(read.text);
    }
    const spans: [number, number][] = [];
    rounds.forEach((round, depth) => {
      for (const secret of this.#secrets) {
        for (let at = round.text.indexOf(secret); at !== -1;) {
          let from = at;
          let to = at + secret.length;
          for (let back = depth; back >= 0; back -= 1) {
            const level = rounds[back]!;
            [from, to] = [level.origin(from), level.origin(to - 1) + level.width(to - 1)];
          }
          spans.push([from, to]);
          at = round.text.indexOf(secret, at + secret.length);
        }
      }
    });
    return { spans, next: rounds[0]?.boundary(size) ?? size };
  }

  /** `text` with every secret masked where {@link BETWEEN} characters stand between its characters. */
  #maskSpread(text: string): string {
    this.#spread ??= this.#secrets
      .map((secret) => [...secret.replace(BETWEEN_ALL, '')])
      .filter((chars) => chars.length >= MIN_SECRET_LENGTH)
      .map((chars) => ({
        first: chars[0]!,
        pattern: new RegExp(
          chars
            .map((char) => char.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
            .join(`${BETWEEN.source}*`),
          'gu',
        ),
      }));
    let out = text;
    for (const { first, pattern } of this.#spread) {
      if (out.includes(first)) out = out.replace(pattern, MASK);
    }
    return out;
  }

  #holdsSecret(encoded: string): boolean {
    return decodings(encoded).some((decoded) => {
      // Decoded, a secret may turn out split by invisible characters or breaks too.
      const joined = BETWEEN.test(decoded) ? decoded.replace(BETWEEN_ALL, '') : decoded;
      return (
        this.#secrets.some((secret) => decoded.includes(secret) || joined.includes(secret)) ||
        // Base64 in a URL has its `+`, `/` and `=` percent-encoded.
        this.#base64.some((core) => decoded.includes(core))
      );
    });
  }

  /** The error's message, masked, then cut to a bounded length (see `maskedQuote`). */
  message(error: unknown): string {
    return maskedQuote(messageOf(error), (text) => this.redact(text));
  }

  /** Whether there is a secret to mask: without one, every method returns its input. */
  /**
   * `host` (a host name) with each secret in it masked, compared
   * case-insensitively: a URL parser lowercases a host, so a secret
   * configured as `Example` sits in it as `example`. For host names only:
   * elsewhere case tells text apart.
   */
  redactHost(host: string): string {
    let out = host.toLowerCase();
    let masked = false;
    for (const secret of this.#secrets) {
      const lower = secret.toLowerCase();
      if (!out.includes(lower)) continue;
      out = out.split(lower).join(MASK);
      masked = true;
    }
    return masked ? out : host;
  }

  get hasSecrets(): boolean {
    return this.#secrets.length > 0;
  }

  /**
   * `text` that was cut from the end of a longer stream, so that it may
   * begin inside a secret: the longest leading piece (of 4 characters or
   * more) that ends a secret, or is one, is masked, then the rest as by
   * {@link redact}. Only for text that was cut: at the start of a whole
   * text, such a piece is an ordinary word. A cut inside an encoded copy
   * of a secret is not found here: the caller drops the cut line.
   */
  redactTail(text: string): string {
    let cut = 0;
    for (const secret of this.#secrets) {
      for (let start = 0; start <= secret.length - MIN_TAIL_PIECE; start++) {
        if (secret.length - start <= cut) break;
        if (text.startsWith(secret.slice(start))) {
          cut = secret.length - start;
          break;
        }
      }
    }
    return cut === 0 ? this.redact(text) : `${MASK}${this.redact(text.slice(cut))}`;
  }

  /**
   * A copy of JSON data (strings, arrays, plain objects; anything else
   * kept) with every string redacted, keys included; `value` itself when
   * no string changed. Only for data a message quotes in part (a
   * violation's wording cuts the values it shows): a cut would hide a
   * secret from {@link redact}. Never for data that is used, such as a schema or a
   * result: a secret is any `env` value of 3 characters or more, a common
   * word included, and masking it would change what the data means.
   * Deeper than {@link MAX_REDACTED_DEPTH}, a value is replaced by the mask,
   * and a value of more than {@link MAX_REDACTED_VALUES} members and items
   * in all is, whole.
   */
  redactData<T>(value: T): T {
    if (this.#secrets.length === 0) return value;
    return maskStrings(value, (text) => this.redact(text));
  }
}

/**
 * A copy of JSON data with `mask` applied to every string, keys included,
 * as {@link SecretRedactor.redactData} masks a server's secrets; `value`
 * itself when no string changed. Deeper than {@link MAX_REDACTED_DEPTH}, a
 * value is replaced by the mask, and a value of more than
 * {@link MAX_REDACTED_VALUES} members and items in all is, whole.
 */
export function maskStrings<T>(value: T, mask: (text: string) => string): T {
  return maskValue(value, mask, 0, { left: MAX_REDACTED_VALUES }) as T;
}

function maskValue(
  value: unknown,
  mask: (text: string) => string,
  depth: number,
  budget: { left: number },
): unknown {
  if (typeof value === 'string') return mask(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTED_DEPTH) return MASK;
  if (Array.isArray(value)) {
    // Counted before it is read: an in-process server's sparse array may be billions long.
    budget.left -= value.length;
    if (budget.left < 0) return MASK;
    let changed = false;
    const items: unknown[] = [];
    for (let index = 0; index < value.length && budget.left >= 0; index++) {
      const item: unknown = value[index];
      const masked = maskValue(item, mask, depth + 1, budget);
      changed ||= masked !== item;
      items.push(masked);
    }
    if (budget.left < 0) return MASK;
    return changed ? items : value;
  }
  const members = Object.entries(value);
  budget.left -= members.length;
  if (budget.left < 0) return MASK;
  let changed = false;
  const entries = members.map(([key, item]): [string, unknown] => {
    const maskedKey = mask(key);
    const masked = maskValue(item, mask, depth + 1, budget);
    changed ||= maskedKey !== key || masked !== item;
    return [maskedKey, masked];
  });
  if (budget.left < 0) return MASK;
  // fromEntries defines own members: a key named `__proto__` stays data.
  return changed ? Object.fromEntries(entries) : value;
}

/** The shortest end of a secret that {@link SecretRedactor.redactTail} masks at the start of a text. */
const MIN_TAIL_PIECE = 4;
/** Deeper data is masked whole by {@link SecretRedactor.redactData}: no real payload nests this far. */
const MAX_REDACTED_DEPTH = 64;

/**
 * Most members and items {@link SecretRedactor.redactData} reads of one
 * value; past it the value is masked whole. A result is bounded by its
 * size limit (a million characters by default, fewer values than this),
 * but a tool's output schema, read again to write a masked message, only
 * by the listing's bound, and an in-process server's sparse array held one
 * call for 28 s.
 */
const MAX_REDACTED_VALUES = 1_000_000;

/**
 * The values of a server's config that are masked as its secrets: `env`
 * and `secrets` values, header values and the token after their scheme,
 * URL credentials and query values (of its endpoint and isolated endpoint).
 */
export function serverSecrets(config: ResolvedServerConfig): string[] {
  const secrets: string[] = [...Object.values(config.env ?? {}), ...(config.secrets ?? [])];
  for (const transport of [config.transport, config.isolation?.transport]) {
    if (transport !== undefined) secrets.push(...transportSecrets(transport));
  }
  return secrets;
}

function transportSecrets(transport: McpTransportConfig): string[] {
  if (transport.type !== 'sse' && transport.type !== 'streamable-http') return [];
  const secrets: string[] = [];
  for (const value of Object.values(transport.headers ?? {})) {
    secrets.push(value);
    const [, scheme, token] = /^\s*(\S+)\s+(\S+)\s*$/.exec(value) ?? [];
    if (token === undefined) continue;
    secrets.push(token);
    // A Basic token is `user:password` in base64: a server that echoes the
    // credentials it was sent writes them decoded.
    if (scheme?.toLowerCase() === 'basic') secrets.push(...basicCredentials(token));
  }
  try {
    secrets.push(...urlSecrets(new URL(transport.url)));
  } catch {
    // Invalid URLs are rejected by config validation before this runs.
  }
  return secrets;
}

/** The password of a Basic token, and `user:password`, when the token decodes to them. */
function basicCredentials(token: string): string[] {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return [];
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.includes('\uFFFD')) return [];
  return [decoded, decoded.slice(colon + 1)];
}

/** What a URL carries that may be a secret: its user and password (as written and decoded) and its query's values. */
export function urlSecrets(url: URL): string[] {
  const secrets: string[] = [];
  for (const part of [url.username, url.password]) {
    if (part !== '') secrets.push(part, safeDecode(part));
  }
  for (const value of url.searchParams.values()) secrets.push(value);
  return secrets;
}

/**
 * `text` with each of `spans` (start and end offsets, in any order, which
 * may overlap) masked, in one pass: masking each as it is found would copy
 * the whole text per span (a server sent 20,000 copies).
 */
function maskSpans(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    // One that starts inside the last is masked with it.
    if (start >= from) parts.push(text.slice(from, start), MASK);
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** Characters of text read for escapes at a time (see `#maskEscaped`). */
const ESCAPE_WINDOW = 65_536;

/**
 * Times text is read for escapes: a secret escaped inside a string that
 * was itself escaped (JSON in a JSON string, an HTML page quoted in one),
 * and once more.
 */
const MAX_ESCAPE_ROUNDS = 3;

/**
 * The most units one character of a secret takes escaped over
 * {@link MAX_ESCAPE_ROUNDS} rounds (`\\\\u0026` and `&amp;amp;amp;` take 9 and
 * 13): what a window reads past its end.
 */
const ESCAPED_UNITS_PER_CHARACTER = 16;

/** What JSON's two-character escapes stand for. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** Text with its escapes read, and where each of its units came from. */
interface ReadEscapes {
  readonly text: string;
  /** Where unit `index` of {@link text} starts in the escaped text. */
  origin(index: number): number;
  /** How many units of the escaped text unit `index` came from (1 when it was no escape). */
  width(index: number): number;
  /** `position` of the escaped text, or where the escape that holds it ends. */
  boundary(position: number): number;
}

/** HTML's named references that a writer uses for the characters it must escape. */
const HTML_NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** An HTML character reference at the start of the text it is run on. */
const HTML_REFERENCE = /&(?:#x0*([0-9a-f]{1,4})|#0*([0-9]{1,5})|(amp|lt|gt|quot|apos));/iy;

/**
 * The escape that starts at `at` of `text` (a backslash or an ampersand):
 * the UTF-16 unit it stands for and its width, or undefined when none
 * starts there (or it stands for more than one unit).
 */
function escapeAt(text: string, at: number): { unit: string; width: number } | undefined {
  if (text[at] === '\\') {
    const next = text[at + 1] ?? '';
    if (next === 'u') {
      const hex = text.slice(at + 2, at + 6);
      return HEX4.test(hex)
        ? { unit: String.fromCharCode(parseInt(hex, 16)), width: 6 }
        : undefined;
    }
    const unit = SHORT_ESCAPES[next];
    return unit === undefined ? undefined : { unit, width: 2 };
  }
  HTML_REFERENCE.lastIndex = at;
  const match = HTML_REFERENCE.exec(text);
  if (match === null) return undefined;
  const [whole, hex, decimal, name] = match;
  if (name !== undefined) return { unit: HTML_NAMED[name.toLowerCase()]!, width: whole.length };
  const code = hex !== undefined ? parseInt(hex, 16) : Number(decimal);
  return code <= 0xffff ? { unit: String.fromCharCode(code), width: whole.length } : undefined;
}

/**
 * Where escapes may start in `text` (a backslash, an ampersand), in order:
 * `next(from)` is the first at or after `from`, or -1. Each character is
 * searched for once over the whole text, however often it is asked.
 */
function escapeStarts(text: string): (from: number) => number {
  let slash = text.indexOf('\\');
  let ampersand = text.indexOf('&');
  return (from) => {
    if (slash !== -1 && slash < from) slash = text.indexOf('\\', from);
    if (ampersand !== -1 && ampersand < from) ampersand = text.indexOf('&', from);
    if (slash === -1) return ampersand;
    return ampersand === -1 ? slash : Math.min(slash, ampersand);
  };
}

/** `text` with its escapes read (see {@link SecretRedactor}'s `#maskEscaped`), or undefined when it holds none. */
function readEscapes(text: string): ReadEscapes | undefined {
  const parts: string[] = [];
  /** Each escape read: where it stands in the text read, and its width in `text`. */
  const at: number[] = [];
  const widths: number[] = [];
  /** Units the escapes before each one saved: `shift[k]` for the k escapes before. */
  const shift: number[] = [0];
  let from = 0;
  let length = 0;
  const next = escapeStarts(text);
  for (let start = next(0); start !== -1;) {
    const escape = escapeAt(text, start);
    if (escape === undefined) {
      start = next(start + 1);
      continue;
    }
    parts.push(text.slice(from, start), escape.unit);
    length += start - from;
    at.push(length);
    widths.push(escape.width);
    shift.push(shift[shift.length - 1]! + escape.width - 1);
    length += 1;
    from = start + escape.width;
    start = next(from);
  }
  if (at.length === 0) return undefined;
  parts.push(text.slice(from));
  /** How many escapes stand before unit `index` (a binary search). */
  const before = (index: number): number => {
    let low = 0;
    let high = at.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (at[middle]! < index) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  return {
    text: parts.join(''),
    origin: (index) => index + shift[before(index)]!,
    width: (index) => {
      const k = before(index);
      return at[k] === index ? widths[k]! : 1;
    },
    boundary: (position) => {
      // The last escape that starts before `position` (they start at at[k] + shift[k]).
      let low = 0;
      let high = at.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (at[middle]! + shift[middle]! < position) low = middle + 1;
        else high = middle;
      }
      const k = low - 1;
      if (k < 0) return position;
      const end = at[k]! + shift[k]! + widths[k]!;
      return end > position ? end : position;
    },
  };
}

/**
 * The parts of `secret`'s base64 (of its UTF-8 bytes) that do not depend
 * on what stands around it, for each of the three alignments it can have
 * inside a longer encoded text (0, 1 or 2 bytes before it in its first
 * 3-byte group), in the standard and the URL-safe alphabet. Each core is
 * the run of characters whose 6 bits all come from the secret's bytes.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let before = 0; before < 3; before += 1) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64');
    const core = encoded.slice(
      Math.ceil((8 * before) / 6),
      Math.floor((8 * (before + bytes.length)) / 6),
    );
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

/** Whether the UTF-16 unit is a character of either base64 alphabet (`=` padding aside). */
function isBase64Char(unit: number): boolean {
  return (
    (unit >= 0x61 && unit <= 0x7a) || // a-z
    (unit >= 0x41 && unit <= 0x5a) || // A-Z
    (unit >= 0x30 && unit <= 0x39) || // 0-9
    unit === 0x2b || // +
    unit === 0x2f || // /
    unit === 0x2d || // -
    unit === 0x5f // _
  );
}

/**
 * How many times a token is percent-decoded at most: a URL quoted inside
 * another URL (a login page's `return_to=`) is encoded once more, and so
 * is a secret the first URL already held encoded.
 */
const MAX_DECODING_ROUNDS = 3;

/** The texts an encoded token may stand for: percent-decoded (again and again), and form-decoded. */
function decodings(encoded: string): string[] {
  const out: string[] = [];
  for (const candidate of [encoded, encoded.replace(/\+/g, ' ')]) {
    out.push(candidate);
    let text = candidate;
    for (let round = 0; round < MAX_DECODING_ROUNDS && text.includes('%'); round += 1) {
      const decoded = percentDecoded(text);
      if (decoded === text) break;
      out.push(decoded);
      text = decoded;
    }
  }
  return out;
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray `%` that starts no escape: decode the escapes that are well formed.
    return text.replace(/(%[0-9a-fA-F]{2})+/g, (run) => safeDecode(run));
  }
}

function safeDecode(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run;
  }
}
