import { describe, expect, it } from 'vitest';
import {
  isSecretArgumentName,
  maskSecretArguments,
  scrubSecrets,
} from '../../src/tools/secret-arguments.js';

describe('secret arguments', () => {
  it.each([
    'password',
    'apiKey',
    'api_key',
    'X-API-Key',
    'APIKey',
    'client_secret',
    'accessToken',
    'X-Auth-Token',
    'db.password',
    'privateKey',
    'Authorization',
    'session_cookie',
  ])('reads %s as secret', (name) => {
    expect(isSecretArgumentName(name)).toBe(true);
  });

  it.each(['max_tokens', 'tokenizer', 'author', 'keyword', 'message', 'city', 'passage'])(
    'reads %s as not secret',
    (name) => {
      expect(isSecretArgumentName(name)).toBe(false);
    },
  );

  it('withholds values marked by name, x-secret or writeOnly, at any depth', () => {
    const schema = {
      type: 'object',
      properties: {
        pin: { type: 'string', 'x-secret': true },
        answer: { type: 'string', writeOnly: true },
        nested: {
          type: 'object',
          properties: { code: { type: 'number', 'x-secret': true } },
        },
        list: {
          type: 'array',
          items: { type: 'object', properties: { otp: { writeOnly: true } } },
        },
      },
    };
    const args = {
      user: 'ada',
      password: 'hunter22',
      pin: '4321',
      answer: { deep: ['blue-moon'] },
      nested: { code: 98765, note: 'fine' },
      list: [{ otp: 'zz-111', keep: 1 }],
    };
    const { masked, secrets } = maskSecretArguments(args, schema);
    expect(masked).toEqual({
      user: 'ada',
      password: '***',
      pin: '***',
      answer: '***',
      nested: { code: '***', note: 'fine' },
      list: [{ otp: '***', keep: 1 }],
    });
    expect([...secrets].sort()).toEqual(['4321', '98765', 'blue-moon', 'hunter22', 'zz-111']);
    expect(args.password).toBe('hunter22');
  });

  it('keeps an argument named __proto__ as data', () => {
    const args = JSON.parse('{"__proto__": {"token": "abc123"}}') as unknown;
    const { masked } = maskSecretArguments(args);
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(JSON.stringify(masked)).toBe('{"__proto__":{"token":"***"}}');
  });

  it('scrubs secrets from free text, longest first, ignoring very short ones', () => {
    expect(
      scrubSecrets('login hunter22 failed for hunter2 ok', ['hunter2', 'hunter22', 'ok']),
    ).toBe('login *** failed for *** ok');
  });
});
