/**
 * SecretRedactor: a secret is masked in the encodings a server produces
 * by accident, besides raw, JSON, percent- and form-encoded: base64 (an
 * HTTP Basic header, a token wrapped in a longer encoded text, either
 * alphabet, any byte offset) and the JSON escapes any writer uses
 * (`\/`, `\uXXXX` of any character in either hex case).
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/index.js';
import { SecretRedactor, urlSecrets } from '../../src/mcp/redact.js';

const base64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');
const base64url = (text: string | Buffer): string => Buffer.from(text).toString('base64url');

describe('SecretRedactor: base64', () => {
  it('masks an HTTP Basic header built from two env values, whole', () => {
    const config: McpServerConfig = {
      name: 'x',
      transport: { type: 'stdio', command: 'node' },
      env: { API_USER: 'svc-bot', API_PASS: 'Tr0ub4dor-99' },
    };
    const redactor = SecretRedactor.forServer(config);
    const header = `Basic ${base64('svc-bot:Tr0ub4dor-99')}`;
    expect(redactor.redact(`401 with Authorization: ${header}`)).toBe(
      '401 with Authorization: Basic ***',
    );
    // In a JSON log line, as a server writes its request out.
    expect(redactor.redact(JSON.stringify({ headers: { authorization: header } }))).toBe(
      '{"headers":{"authorization":"Basic ***"}}',
    );
  });

  it('masks many copies in one pass: apart, each alone; run together, as one run', () => {
    const secret = 'Tr0ub4dor-99-long';
    const redactor = new SecretRedactor([secret]);
    const encoded = base64(secret);
    const apart = Array.from({ length: 20_000 }, () => encoded).join(' ');
    expect(redactor.redact(apart)).toBe(Array.from({ length: 20_000 }, () => '***').join(' '));
    // Base64 of the secret twice over is one run that holds the core at two offsets.
    expect(redactor.redact(`a ${base64(secret + secret)} b`)).toBe('a *** b');
  });

  it('masks the base64 run that holds a secret at any byte offset, in both alphabets', () => {
    const secret = 'k9Zq/7wX+Lm2Pp8Q';
    const redactor = new SecretRedactor([secret]);
    for (let before = 0; before < 6; before += 1) {
      for (let after = 0; after < 4; after += 1) {
        const bytes = Buffer.concat([
          Buffer.from('{"session":"'.slice(0, before)),
          Buffer.from(secret),
          Buffer.from('"}\n\xff'.slice(0, after), 'latin1'),
        ]);
        for (const encoded of [base64(bytes), base64url(bytes)]) {
          expect(redactor.redact(`blob ${encoded} end`)).toBe('blob *** end');
          expect(redactor.redact(`"${encoded}"`)).toBe('"***"');
        }
      }
    }
  });

  it('masks the base64 of a non-ASCII secret (its UTF-8 bytes), and a percent-encoded one', () => {
    const secret = 'pässwörd-42';
    const redactor = new SecretRedactor([secret]);
    const token = base64(`user:${secret}`);
    expect(redactor.redact(`token=${token};`)).toBe('token=***;');
    // Base64 in a URL: its `+`, `/` and `=` percent-encoded.
    const plus = 'ab>c?d~>key-with+/chars';
    const inUrl = new SecretRedactor([plus]);
    const encoded = base64(`x${plus}`);
    expect(encoded).toMatch(/[+/]/);
    expect(inUrl.redact(`GET /cb?state=${encodeURIComponent(encoded)}&x=1`)).toBe(
      'GET /cb?state=***&x=1',
    );
  });

  it('leaves base64 that holds no secret, and the base64 of a secret shorter than 8 characters', () => {
    const redactor = new SecretRedactor(['short77', 'Tr0ub4dor-99']);
    const other = base64('an ordinary payload, nothing secret in it');
    expect(redactor.redact(`data ${other}`)).toBe(`data ${other}`);
    // Seven characters encode to a core too short to be specific.
    const short = base64('short77');
    expect(redactor.redact(`data ${short}`)).toBe(`data ${short}`);
  });

  it('masks every occurrence, and the raw secret next to an encoded one', () => {
    const secret = 'Tr0ub4dor-99';
    const redactor = new SecretRedactor([secret]);
    const a = base64(`a:${secret}`);
    const b = base64url(`bb${secret}!`);
    expect(redactor.redact(`${a} ${b} ${secret} ${a}`)).toBe('*** *** *** ***');
  });
});

describe('SecretRedactor: a URL quoted in another URL', () => {
  it('masks a query secret that was percent-encoded and is encoded once more', () => {
    // A token with `/` and `+` is written percent-encoded in the configured URL;
    // a login page quotes that URL in its own query, which encodes it again.
    const url = new URL('http://127.0.0.1:9/mcp?key=sk-abc%2Fdef%2Bghi-0123456789');
    const redactor = new SecretRedactor(urlSecrets(url));
    const page = `Sign in at https://login.example.test/?return_to=${encodeURIComponent(url.href)}`;
    expect(page).toContain('sk-abc%252Fdef%252Bghi');
    const masked = redactor.redact(page);
    expect(masked).not.toContain('0123456789');
    expect(masked).toContain('Sign in at https://login.example.test/?return_to=');
    // Three times encoded, still.
    expect(redactor.redact(encodeURIComponent(encodeURIComponent(url.href)))).not.toContain(
      '0123456789',
    );
  });
});

describe('SecretRedactor: JSON escapes', () => {
  it('masks a secret with `/` written `\\/`, as PHP json_encode writes it', () => {
    const secret = 'k9Zq/7wX+Lm2Pp8Q';
    const redactor = new SecretRedactor([secret]);
    expect(redactor.redact(`{"token":"${secret.replace(/\//g, '\\/')}"}`)).toBe('{"token":"***"}');
  });

  it('masks a non-ASCII secret written with \\uXXXX escapes, in either hex case', () => {
    const secret = 'pässwörd-42/😀';
    const redactor = new SecretRedactor([secret]);
    const escape = (upper: boolean, slash: boolean): string => {
      const json = JSON.stringify({ db: secret }).replace(/[\u0080-\uffff]/g, (unit) => {
        const hex = unit.charCodeAt(0).toString(16).padStart(4, '0');
        return `\\u${upper ? hex.toUpperCase() : hex}`;
      });
      return slash ? json.replace(/\//g, '\\/') : json;
    };
    for (const upper of [false, true]) {
      for (const slash of [false, true]) {
        // Python's json.dumps (lower case, no `\/`); PHP's json_encode (both).
        expect(redactor.redact(escape(upper, slash))).toBe('{"db":"***"}');
      }
    }
  });

  it('masks a secret whose ASCII characters a writer escapes: Go, Gson, or any of them', () => {
    const secrets = [
      'postgres://app:Pa55w0rd@db.internal/prod?sslmode=require&sslkey=k',
      'dGhpcyBpcyBhIHNlY3JldA==',
      "it's<a>secret",
      'quote"back\\slash\ttab',
    ];
    const redactor = new SecretRedactor(secrets);
    /** A JSON string of `text`, each character `escaped` matches written `\\uXXXX`. */
    const escaping =
      (escaped: RegExp, upper = false) =>
      (text: string): string =>
        `"${[...text]
          .map((char) => {
            if (!escaped.test(char)) return JSON.stringify(char).slice(1, -1);
            const hex = char.charCodeAt(0).toString(16).padStart(4, '0');
            return `\\u${upper ? hex.toUpperCase() : hex}`;
          })
          .join('')}"`;
    const writers = {
      go: escaping(/[&<>]/),
      gson: escaping(/[&<>=']/),
      everything: escaping(/[\s\S]/, true),
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets),
        fc.constantFrom(...Object.values(writers)),
        fc.string({ maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        (secret, write, before, after) => {
          const text = `{"error":${write(`${before}${secret}${after}`)}}`;
          const masked = redactor.redact(text);
          expect(masked).toContain('***');
          // Nothing of the secret is left to read once the escapes are read again.
          const read = JSON.parse(masked.replace(/\*\*\*/g, '')) as { error: string };
          expect(read.error).not.toContain(secret);
        },
      ),
    );
  });

  it('masks a secret an HTML page quotes with character references', () => {
    const secret = 'postgres://app:pw@db/prod?ssl=1&key=k';
    const redactor = new SecretRedactor([secret]);
    const named = secret.replace(/&/g, '&amp;');
    const upper = secret.replace(/&/g, '&AMP;');
    const numeric = [...secret].map((char) => `&#${char.charCodeAt(0)};`).join('');
    const hex = [...secret].map((char) => `&#x${char.charCodeAt(0).toString(16)};`).join('');
    const padded = [...secret].map((char) => `&#X000${char.charCodeAt(0).toString(16)};`).join('');
    for (const quoted of [named, upper, numeric, hex, padded]) {
      expect(redactor.redact(`<p>cannot reach ${quoted}</p>`)).toBe('<p>cannot reach ***</p>');
    }
  });

  it('masks a secret escaped inside a string that was itself escaped', () => {
    const secret = 'postgres://app:s3cr&t=Pw@db.internal/app';
    const redactor = new SecretRedactor([secret]);
    const go = (text: string): string => JSON.stringify(text).replace(/&/g, '\\u0026');
    const html = (text: string): string => text.replace(/&/g, '&amp;');
    for (const written of [
      // An HTML error page in a Go JSON body; a structured log line carried in a JSON string.
      JSON.stringify({ body: `<p>${html(secret)}</p>` }).replace(/&/g, '\\u0026'),
      JSON.stringify({ line: `{"dsn":${go(secret)}}` }),
      JSON.stringify({ line: JSON.stringify({ dsn: secret.replace(/&/g, '\\u0026') }) }),
      `<pre>${html(html(secret))}</pre>`,
    ]) {
      expect(redactor.redact(written), written).not.toMatch(/s3cr|db\.internal/);
    }
  });

  it('masks a secret escaped across where the text is read in windows', () => {
    const secret = 'k9Zq&7wX=Lm2&Pp8Q';
    const redactor = new SecretRedactor([secret]);
    const escaped = JSON.stringify(secret)
      .slice(1, -1)
      .replace(/[&=]/g, (char) => {
        return `\\u00${char.charCodeAt(0).toString(16)}`;
      });
    for (let before = 65_536 - escaped.length; before <= 65_536 + 1; before += 1) {
      const text = `${'x'.repeat(before)}${escaped}\\n`;
      expect(redactor.redact(text)).toBe(`${'x'.repeat(before)}***\\n`);
    }
  });

  it('reads a run of escaped backslashes the same way across where a window ends', () => {
    // A window that started inside an escape read every pair after it the other
    // way round, and the last backslash took the secret's `t` for a tab.
    const secret = 'tok&en-4fz9QwX2';
    const redactor = new SecretRedactor([secret]);
    const go = secret.replace('&', '\\u0026');
    for (const lead of [65_535, 65_536]) {
      const text = `${'a'.repeat(lead)}${'\\\\'.repeat(4_000)}${go} tail`;
      expect(redactor.redact(text).endsWith(`\\\\*** tail`), String(lead)).toBe(true);
    }
  });

  it('masks a secret as Node shows a buffer of it, and as JSON writes one', () => {
    const secret = 'ghp_Zk81mQ2vX9';
    const redactor = new SecretRedactor([secret]);
    const buffer = Buffer.from(secret);
    expect(redactor.redact(inspect(buffer))).toBe('<Buffer ***>');
    expect(redactor.redact(JSON.stringify({ body: buffer }))).toBe(
      '{"body":{"type":"Buffer","data":[***]}}',
    );
  });

  it('reads escapes only where they are whole, and leaves text without a secret as it is', () => {
    const redactor = new SecretRedactor(['s3cret&key']);
    for (const text of [
      '\\',
      'a\\u00',
      '\\u00zz\\q',
      'path\\to\\file',
      's3cret\\u0025key',
      'a & b &amp c &#; &#x110000; &unknown;',
    ]) {
      expect(redactor.redact(text)).toBe(text);
    }
    expect(redactor.redact('x s3cret\\u0026key y')).toBe('x *** y');
  });
});
