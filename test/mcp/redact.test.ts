/**
 * SecretRedactor: env values, header values, bearer tokens, URL credentials
 * and query values are masked wherever they appear.
 */
import { describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/index.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { countedHoles } from '../support/json-text.js';

describe('SecretRedactor', () => {
  it('masks every occurrence of each secret', () => {
    const redactor = new SecretRedactor(['hunter2']);
    expect(redactor.redact('pw hunter2, again hunter2.')).toBe('pw ***, again ***.');
  });

  it('masks the longest secret first, so a secret containing another is masked whole', () => {
    const redactor = new SecretRedactor(['abc', 'abcdef']);
    expect(redactor.redact('token=abcdef')).toBe('token=***');
  });

  it('ignores secrets shorter than 3 characters (they would mask ordinary text)', () => {
    const redactor = new SecretRedactor(['a', 'on', 'off']);
    expect(redactor.redact('a connection, on and off')).toBe('a connection, on and ***');
  });

  it('redacts error messages and plain values', () => {
    const redactor = new SecretRedactor(['s3cret']);
    expect(redactor.message(new Error('bad key s3cret'))).toBe('bad key ***');
    expect(redactor.message('raw s3cret')).toBe('raw ***');
  });

  describe('forServer', () => {
    it('collects env values', () => {
      const config: McpServerConfig = {
        name: 'x',
        transport: { type: 'stdio', command: 'node' },
        env: { API_TOKEN: 'env-token-1', REGION: 'eu-west-1' },
      };
      const redactor = SecretRedactor.forServer(config);
      expect(redactor.redact('using env-token-1 in eu-west-1')).toBe('using *** in ***');
    });

    it('collects header values and the token after a scheme', () => {
      const config: McpServerConfig = {
        name: 'x',
        transport: {
          type: 'streamable-http',
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer tok-12345', 'X-Api-Key': 'key-67890' },
        },
      };
      const redactor = SecretRedactor.forServer(config);
      expect(redactor.redact('sent Bearer tok-12345')).toBe('sent ***');
      expect(redactor.redact('token tok-12345 alone')).toBe('token *** alone');
      expect(redactor.redact('key-67890')).toBe('***');
    });

    it('collects what a Basic token decodes to: user:password, and the password', () => {
      const token = Buffer.from('alice:Pa55-w0rd!zq').toString('base64');
      const config: McpServerConfig = {
        name: 'x',
        transport: {
          type: 'streamable-http',
          url: 'https://example.com/mcp',
          headers: { Authorization: `Basic ${token}`, 'X-Other': 'bearer notbase64!' },
        },
      };
      const redactor = SecretRedactor.forServer(config);
      expect(redactor.redact('login failed for alice:Pa55-w0rd!zq')).toBe('login failed for ***');
      expect(redactor.redact('bad password Pa55-w0rd!zq')).toBe('bad password ***');
      expect(redactor.redact(`sent ${token}`)).toBe('sent ***');
      // The user name alone is no secret.
      expect(redactor.redact('user alice')).toBe('user alice');
    });

    it('collects URL credentials, raw and decoded, and query values', () => {
      const config: McpServerConfig = {
        name: 'x',
        transport: {
          type: 'sse',
          url: 'https://al%40ice:p%40ss-word@example.com/sse?token=query-secret&mode=fast',
        },
      };
      const redactor = SecretRedactor.forServer(config);
      expect(redactor.redact('user al@ice / al%40ice')).toBe('user *** / ***');
      expect(redactor.redact('pw p@ss-word / p%40ss-word')).toBe('pw *** / ***');
      expect(redactor.redact('GET /sse?token=query-secret&mode=fast')).toBe(
        'GET /sse?token=***&mode=***',
      );
    });

    it('collects the secrets of the isolation transport too', () => {
      const config: McpServerConfig = {
        name: 'x',
        transport: { type: 'stdio', command: 'node' },
        isolation: {
          transport: {
            type: 'streamable-http',
            url: 'http://127.0.0.1:9/mcp',
            headers: { Authorization: 'Bearer isolated-token' },
          },
        },
      };
      expect(SecretRedactor.forServer(config).redact('isolated-token')).toBe('***');
    });

    it('finds nothing to mask in a config without secrets', () => {
      const config: McpServerConfig = { name: 'x', transport: { type: 'stdio', command: 'node' } };
      expect(SecretRedactor.forServer(config).redact('node server.js')).toBe('node server.js');
    });
  });

  describe('redactTail', () => {
    const secret = 'ghp_abcdefghijklmnop';
    const redactor = new SecretRedactor([secret]);

    it('masks the end of a secret that a cut left at the start, and the rest as redact does', () => {
      expect(redactor.redactTail(`ijklmnop rejected, ${secret} again`)).toBe(
        '*** rejected, *** again',
      );
    });

    it('masks a whole secret at the start whole, even one whose end is also its start', () => {
      const key = '-----BEGIN KEY-----\nMIIEabcdef\n-----END KEY-----';
      expect(new SecretRedactor([key]).redactTail(`${key}\nError: bad key`)).toBe(
        '***\nError: bad key',
      );
      expect(new SecretRedactor(['abcabcabc']).redactTail('abcabcabc rest')).toBe('*** rest');
    });

    it('masks the longest leading piece over all secrets, before a shorter secret inside it is masked', () => {
      const url = 'postgres://app:S3cretPw9@db.internal/prod';
      const both = new SecretRedactor([url, 'db.internal']);
      expect(both.redactTail('pp:S3cretPw9@db.internal/prod down; db.internal')).toBe(
        '*** down; ***',
      );
      const two = new SecretRedactor([
        'https://very-long-internal-host.example.com/api',
        'https://x.io/api?token=SECRETSECRET',
      ]);
      expect(two.redactTail('/api?token=SECRETSECRET rest')).toBe('*** rest');
    });

    it('leaves a start of fewer than 4 characters of a secret, and text that starts with none', () => {
      expect(redactor.redactTail('nop rejected')).toBe('nop rejected');
      expect(redactor.redactTail('all fine')).toBe('all fine');
    });
  });

  it('masks a secret split by invisible characters, which a reader does not see', () => {
    const secret = 'sk-live-7Hq2(Zp)A9';
    const redactor = new SecretRedactor([secret, 'a\u200Bb']);
    const spread = (joiner: string): string => [...secret].join(joiner);
    for (const joiner of ['\u200B', '\u2060', '\u00AD', '\uFE0F', '\u200B\u200D']) {
      expect(redactor.redact(`token ${spread(joiner)}!`)).toBe('token ***!');
    }
    expect(redactor.message(new Error(`refused ${spread('\u200B')}`))).toBe('refused ***');
    // Percent-encoded after it was split.
    expect(redactor.redact(`u=${encodeURIComponent(spread('\u200B'))}&x=1`)).toBe('u=***&x=1');
    // A line break or another control between its characters: a reader joins those up too.
    for (const joiner of ['\n', '\r\n', '\t', '\u0085', '\u2028']) {
      expect(redactor.redact(`token ${spread(joiner)}!`)).toBe('token ***!');
    }
    expect(redactor.redactData({ echoed: spread('\u2060') })).toEqual({ echoed: '***' });
    // Visible characters between them are another text; a secret of invisible characters is none.
    expect(redactor.redact(`${spread(' ')} \u200B`)).toBe(`${spread(' ')} \u200B`);
    expect(redactor.redact('ab \u200B')).toBe('ab \u200B');
  });

  it('masks a secret in lower case, as a URL parser writes it in a host name', () => {
    const redactor = new SecretRedactor(['SECRET-Token-123']);
    const quoted = `origin mismatch: ${new URL('http://SECRET-Token-123.example:1/').origin}`;
    expect(quoted).toContain('secret-token-123');
    expect(redactor.redact(quoted)).toBe('origin mismatch: http://***.example:1');
  });

  it('masks a secret in upper case, and its bytes dumped as hex in either case', () => {
    const secret = 'ghp_Z9xQ7kL2mN4p';
    const redactor = new SecretRedactor([secret]);
    const hex = Buffer.from(secret).toString('hex');
    for (const shown of [secret.toUpperCase(), hex, hex.toUpperCase()]) {
      expect(redactor.redact(`key ${shown} refused`)).toBe('key *** refused');
    }
    // A short one's forms would be ordinary words and numbers (an env value `info`, `INFO`).
    const short = new SecretRedactor(['info']);
    expect(short.redact(`INFO ${Buffer.from('info').toString('hex')}`)).toBe('INFO 696e666f');
  });

  it('masks a secret in the form JSON writes it inside a string', () => {
    const secret = 'C:\\Users\\svc\\pa"ss\nword';
    const written = JSON.stringify({ error: `bad key ${secret}` });
    expect(new SecretRedactor([secret]).redact(written)).toBe('{"error":"bad key ***"}');
  });

  describe('redactData', () => {
    const key = 'line one\n"quoted" two';
    const redactor = new SecretRedactor([key]);

    it('masks every string and key, so that what is written from the data holds no secret', () => {
      const data = { config: { key, list: [1, `by ${key}`] }, [key]: true };
      expect(JSON.stringify(redactor.redactData(data))).toBe(
        '{"config":{"key":"***","list":[1,"by ***"]},"***":true}',
      );
    });

    it('returns the same value when nothing changed, and every value when there is no secret', () => {
      const data = { a: ['b', { c: 1 }] };
      expect(redactor.redactData(data)).toBe(data);
      expect(new SecretRedactor([]).redactData({ key })).toEqual({ key });
    });

    it('masks data nested deeper than any real payload whole', () => {
      let deep: unknown = 'leaf';
      for (let level = 0; level < 100; level++) deep = [deep];
      expect(JSON.stringify(redactor.redactData({ deep, key }))).toContain('"***"');
    });

    it('masks data of more members and items than any result holds whole, reading no more of it', () => {
      // An in-process server's output schema gave a sparse array of a billion items
      // on the read that masks a message: one call took 28 s.
      const { holes, reads } = countedHoles();
      expect(redactor.redactData({ enum: holes })).toBe('***');
      expect(reads()).toBe(0);
      const wide = Array.from({ length: 600_000 }, (_, index) => [index, key]);
      expect(redactor.redactData({ wide })).toBe('***');
      const within = Array.from({ length: 1_000 }, () => ({ key }));
      expect(redactor.redactData(within)).toEqual(within.map(() => ({ key: '***' })));
    });
  });
});
