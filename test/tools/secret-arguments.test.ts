import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Session,
  Tool,
  ToolResult,
  invokeTool,
  requireApproval,
  type ApprovalRequest,
} from '../../src/index.js';
import {
  isSecretArgumentName,
  isSecretSchema,
  maskSecretArguments,
} from '../../src/tools/secret-arguments.js';
import { scrubSecrets } from '../../src/tools/secret-text.js';

/** The input JSON Schema zod 4 writes for `params`, as tools publish it. */
function schemaOf(params: z.ZodObject): Tool['inputSchema'] {
  return Tool.create({ name: 't', description: 'd', params, handler: () => ToolResult.ok(1) })
    .inputSchema;
}

const secret = (): z.ZodString => z.string().meta({ 'x-secret': true });

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

  it('scrubs the start of a long secret that a message cut short, and not a short common start', () => {
    const key = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzABCD';
    expect(scrubSecrets(`api_key: must match "^sk-", received "${key.slice(0, 40)}…"`, [key])).toBe(
      'api_key: must match "^sk-", received "***…"',
    );
    expect(scrubSecrets('ghp_0123 is short', [key])).toBe('ghp_0123 is short');
    // In JSON text the quote is escaped; a space or a comma ends a token too.
    expect(scrubSecrets(JSON.stringify({ error: `invalid "${key.slice(0, 40)}"` }), [key])).toBe(
      '{"error":"invalid \\"***\\""}',
    );
    expect(scrubSecrets(`key ${key.slice(0, 30)}, refused`, [key])).toBe('key ***, refused');
    // A start shared with text that goes on is not a cut-short quote: left alone.
    const credentials = 'https://accounts.google.com/o/oauth2/auth';
    expect(scrubSecrets('see https://accounts.google.com/signin; done', [credentials])).toBe(
      'see https://accounts.google.com/signin; done',
    );
  });

  it('reads a long key of capitals in linear time, to its end', () => {
    expect(isSecretArgumentName(`${'A'.repeat(200_000)}b`)).toBe(false);
    expect(isSecretArgumentName('XMLHttpRequestAPIKey')).toBe(true);
    expect(isSecretArgumentName(`${'x'.repeat(300)}_password`)).toBe(true);
  });

  describe('inside anyOf, oneOf and allOf', () => {
    it('reads a schema as secret when any branch, at any depth, is', () => {
      expect(
        isSecretSchema({ anyOf: [{ type: 'string', 'x-secret': true }, { type: 'null' }] }),
      ).toBe(true);
      expect(isSecretSchema({ oneOf: [{ allOf: [{ writeOnly: true }] }, { type: 'null' }] })).toBe(
        true,
      );
      expect(isSecretSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe(false);
    });

    it.each<[string, z.ZodType, unknown, unknown]>([
      ['.nullable()', secret().nullable(), '4111-1111', '***'],
      ['.optional().nullable()', secret().optional().nullable(), '4111-1111', '***'],
      [
        'a union of an object and a string',
        z.union([z.object({ pin: secret() }), z.string()]),
        { pin: '4111-1111' },
        { pin: '***' },
      ],
      [
        'a nullable object',
        z.object({ pin: secret(), note: z.string() }).nullable(),
        { pin: '4111-1111', note: 'kept' },
        { pin: '***', note: 'kept' },
      ],
      [
        'an intersection',
        z.intersection(z.object({ pin: secret() }), z.object({ note: z.string() })),
        { pin: '4111-1111', note: 'kept' },
        { pin: '***', note: 'kept' },
      ],
      [
        'a list of nullable objects',
        z.array(z.object({ pin: secret() }).nullable()),
        [{ pin: '4111-1111' }, null],
        [{ pin: '***' }, null],
      ],
      [
        'a tuple (prefixItems)',
        z.tuple([z.string(), secret()]),
        ['kept', '4111-1111'],
        ['kept', '***'],
      ],
      ['a list of secrets', z.array(secret()), ['4111-1111'], ['***']],
      [
        'a discriminated union',
        z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('card'), number: secret() }),
          z.object({ kind: z.literal('iban'), iban: z.string() }),
        ]),
        { kind: 'card', number: '4111-1111' },
        { kind: 'card', number: '***' },
      ],
    ])('withholds a secret inside %s', (_label, card, value, expected) => {
      const schema = schemaOf(z.object({ card, amount: z.number() }));
      const { masked, secrets } = maskSecretArguments({ card: value, amount: 5 }, schema);
      expect(masked).toEqual({ card: expected, amount: 5 });
      expect(secrets).toEqual(['4111-1111']);
    });

    it("merges the branches of a schema written by hand (an MCP server's), allOf and oneOf included", () => {
      const schema = {
        type: 'object',
        properties: {
          login: {
            allOf: [
              { type: 'object', properties: { user: { type: 'string' } } },
              {
                oneOf: [
                  { type: 'object', properties: { pin: { type: 'string', writeOnly: true } } },
                  // Under this branch every property it does not name is secret, `user` too.
                  { type: 'object', additionalProperties: { 'x-secret': true } },
                ],
              },
            ],
          },
        },
      };
      const { masked } = maskSecretArguments(
        { login: { user: 'ada', pin: '4321', otp: '99887' } },
        schema,
      );
      expect(masked).toEqual({ login: { user: '***', pin: '***', otp: '***' } });
      // A branch that names `user` as plain keeps it out of that branch's secrets.
      const named = maskSecretArguments(
        { login: { user: 'ada', otp: '99887' } },
        {
          type: 'object',
          properties: {
            login: {
              oneOf: [
                { type: 'object', properties: { user: { type: 'string' } } },
                {
                  type: 'object',
                  properties: { user: { type: 'string' } },
                  additionalProperties: { 'x-secret': true },
                },
              ],
            },
          },
        },
      );
      expect(named.masked).toEqual({ login: { user: 'ada', otp: '***' } });
    });

    it('shows the approval handler a nullable secret masked', async () => {
      const asked: ApprovalRequest[] = [];
      const pay = Tool.create({
        name: 'pay',
        description: 'Pays with a card',
        params: z.object({ amount: z.number(), cardNumber: secret().nullable() }),
        handler: () => ToolResult.ok('paid'),
      });
      await invokeTool(
        pay,
        { amount: 5, cardNumber: '4111111111111111' },
        {
          session: new Session(),
          policies: [requireApproval()],
          approval: (request) => {
            asked.push(request);
            return 'deny';
          },
        },
      );
      expect(asked[0]?.params).toEqual({ amount: 5, cardNumber: '***' });
    });
  });
});
