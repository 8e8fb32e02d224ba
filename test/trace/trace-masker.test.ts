import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Tool, ToolResult, TraceError, defineEvent } from '../../src/index.js';
import { TraceMasker } from '../../src/trace/trace-masker.js';

class Happened extends defineEvent<{
  readonly toolName: string;
  readonly params: unknown;
  readonly note: string;
}>() {}

describe('TraceMasker', () => {
  const servers = [
    {
      name: 'api',
      transport: {
        type: 'streamable-http' as const,
        url: 'http://127.0.0.1:9/mcp?key=query-secret-1',
        headers: { Authorization: 'Bearer header-secret-2' },
      },
      env: { TOKEN: 'env-secret-3' },
    },
  ];

  it('masks server secrets in any string, encoded ones included', () => {
    const masker = new TraceMasker({ servers });
    expect(masker.text('a env-secret-3 b header-secret-2 c query%2Dsecret%2D1')).toBe(
      'a *** b *** c ***',
    );
  });

  it('masks schema-marked and secret-named arguments and scrubs their values elsewhere', () => {
    const tool = Tool.create({
      name: 'login',
      description: 'Logs in.',
      params: z.object({ user: z.string(), code: z.string() }),
      inputSchema: {
        type: 'object',
        properties: { user: { type: 'string' }, code: { type: 'string', writeOnly: true } },
      },
      handler: () => ToolResult.ok(null),
    });
    const masker = new TraceMasker({ tools: [tool] });
    const { type, fields } = masker.event(
      new Happened({
        toolName: 'login',
        params: { user: 'ada', code: '424242', nested: { password: 'pw-123' } },
        note: 'code 424242 and pw-123',
      }),
    );
    expect(type).toBe('Happened');
    expect(fields).toEqual({
      toolName: 'login',
      params: { user: 'ada', code: '***', nested: { password: '***' } },
      note: 'code *** and ***',
    });
  });

  it('masks a number whose text holds a secret, as the string *** (the JSON stays valid)', () => {
    const masker = new TraceMasker({
      servers: [{ ...servers[0]!, env: { ACCOUNT: '987654321' }, secrets: ['4242'] }],
    });
    const masked = masker.value({
      asNumber: 987654321,
      negative: -987654321,
      holding: 14242,
      list: [987654321, 12],
      other: 98765432,
      fraction: 0.5,
    });
    expect(masked).toEqual({
      asNumber: '***',
      negative: '***',
      holding: '***',
      list: ['***', 12],
      other: 98765432,
      fraction: 0.5,
    });
    // A secret-named argument's number is scrubbed from the rest of the record too.
    const named = masker.event(
      new Happened({ toolName: 'pay', params: { token: 31337, echo: 31337 }, note: 'n' }),
    );
    expect(named.fields['params']).toEqual({ token: '***', echo: '***' });
  });

  it('turns values into JSON data: dates, maps, sets, errors, cycles, a __proto__ key', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    const value = JSON.parse('{"__proto__": {"polluted": true}}') as object;
    const masker = new TraceMasker();
    expect(
      masker.value({
        at: new Date('2026-01-01T00:00:00.000Z'),
        map: new Map([['a', 1]]),
        set: new Set([1, 2]),
        error: new TypeError('bad'),
        cyclic,
        value,
        gone: undefined,
        big: 10n,
      }),
    ).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      map: { a: 1 },
      set: [1, 2],
      error: { name: 'TypeError', message: 'bad' },
      cyclic: { name: 'loop', self: '[circular]' },
      value: JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
      big: '10',
    });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('cuts long text and says by how much', () => {
    const masker = new TraceMasker({ maxTextLength: 64 });
    expect(masker.text('x'.repeat(100))).toBe(`${'x'.repeat(64)}… [cut: 36 more characters]`);
  });

  it('refuses a maxTextLength below 64', () => {
    expect(() => new TraceMasker({ maxTextLength: 1.5 })).toThrow(TraceError);
  });
});
