import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { instrumentSession } from '../../src/ecosystem/telemetry.js';
import {
  Session,
  Tool,
  ToolResult,
  invokeTool,
  requireApproval,
  type ApprovalRequest,
} from '../../src/index.js';
import {
  declaresSecretArguments,
  isSecretSchema,
  maskSecretArguments,
} from '../../src/tools/secret-arguments.js';

const SECRET = 'S3cr3t-value-42';

/** How Pydantic and zod write a nested model: the property is a `$ref` into `$defs`. */
const refSchema = {
  type: 'object',
  $defs: {
    Creds: {
      type: 'object',
      properties: { user: { type: 'string' }, pass: { type: 'string', writeOnly: true } },
      required: ['user', 'pass'],
    },
    Secret: { type: 'string', writeOnly: true },
  },
  properties: { creds: { $ref: '#/$defs/Creds' }, dsn_value: { $ref: '#/$defs/Secret' } },
  required: ['creds'],
};
const refArgs = { creds: { user: 'bob', pass: SECRET }, dsn_value: `other-${SECRET}` };

/** A zod model given an id: zod writes it once under `$defs` and `$ref`s it. */
const Creds = z
  .object({ user: z.string(), pass: z.string().meta({ writeOnly: true }) })
  .meta({ id: 'Creds' });

describe('secret arguments behind $ref', () => {
  it('withholds a secret declared in the $ref target', () => {
    const { masked, secrets } = maskSecretArguments(refArgs, refSchema);
    expect(masked).toEqual({ creds: { user: 'bob', pass: '***' }, dsn_value: '***' });
    expect([...secrets].sort()).toEqual([SECRET, `other-${SECRET}`]);
    expect(isSecretSchema({ $defs: { S: { writeOnly: true } }, $ref: '#/$defs/S' })).toBe(true);
  });

  it('resolves #, #/definitions and escaped or percent-encoded JSON Pointers', () => {
    const schema = {
      type: 'object',
      definitions: { 'a/b': { 'x-secret': true }, 'c~d': { writeOnly: true }, 'e f': {} },
      $defs: { 'g%h': { writeOnly: true } },
      properties: {
        slash: { $ref: '#/definitions/a~1b' },
        tilde: { $ref: '#/definitions/c~0d' },
        encoded: { $ref: '#/definitions/c~0d'.replace('~', '%7E') },
        percent: { $ref: '#/$defs/g%25h' },
        spaced: { $ref: '#/definitions/e%20f' },
        // `#` is the whole schema: its own properties apply again one level down.
        again: { $ref: '#' },
        plain: { type: 'string' },
      },
    };
    const { masked } = maskSecretArguments(
      {
        slash: 'a1-secret',
        tilde: 'b2-secret',
        encoded: 'c3-secret',
        percent: 'd4-secret',
        spaced: 'kept',
        again: { slash: 'e5-secret', plain: 'kept' },
        plain: 'kept',
      },
      schema,
    );
    expect(masked).toEqual({
      slash: '***',
      tilde: '***',
      encoded: '***',
      percent: '***',
      spaced: 'kept',
      again: { slash: '***', plain: 'kept' },
      plain: 'kept',
    });
  });

  it('follows $ref inside anyOf, oneOf, allOf, items and additionalProperties', () => {
    const schema = {
      type: 'object',
      $defs: { Pin: { type: 'string', 'x-secret': true }, Creds: refSchema.$defs.Creds },
      properties: {
        nullable: { anyOf: [{ $ref: '#/$defs/Pin' }, { type: 'null' }] },
        merged: { allOf: [{ $ref: '#/$defs/Creds' }, { type: 'object' }] },
        list: { type: 'array', items: { $ref: '#/$defs/Creds' } },
        map: { type: 'object', additionalProperties: { oneOf: [{ $ref: '#/$defs/Pin' }] } },
      },
    };
    const { masked } = maskSecretArguments(
      {
        nullable: '1234-pin',
        merged: { user: 'ada', pass: 'pw-1' },
        list: [{ user: 'bob', pass: 'pw-2' }],
        map: { home: '5678-pin' },
      },
      schema,
    );
    expect(masked).toEqual({
      nullable: '***',
      merged: { user: 'ada', pass: '***' },
      list: [{ user: 'bob', pass: '***' }],
      map: { home: '***' },
    });
  });

  it('masks a recursive model at every level and ends on $ref cycles', () => {
    const Node: z.ZodType = z.lazy(() =>
      z.object({ pin: z.string().meta({ 'x-secret': true }), child: Node.optional() }),
    );
    const schema = Tool.create({
      name: 't',
      description: 'd',
      params: z.object({ node: Node }),
      handler: () => ToolResult.ok(1),
    }).inputSchema;
    expect(JSON.stringify(schema)).toContain('"$ref"');
    const { masked } = maskSecretArguments(
      { node: { pin: 'p-1', child: { pin: 'p-2', child: { pin: 'p-3' } } } },
      schema,
    );
    expect(masked).toEqual({ node: { pin: '***', child: { pin: '***', child: { pin: '***' } } } });

    const cycle = {
      type: 'object',
      $defs: { A: { $ref: '#/$defs/B' }, B: { anyOf: [{ $ref: '#/$defs/A' }, { $ref: '#' }] } },
      properties: { loop: { $ref: '#/$defs/A' } },
    };
    expect(maskSecretArguments({ loop: { note: 'kept' } }, cycle).masked).toEqual({
      loop: { note: 'kept' },
    });
    expect(declaresSecretArguments(cycle)).toBe(false);
  });

  it.each([
    ['another document', 'https://example.com/creds.json'],
    ['a relative document', 'creds.json#/Creds'],
    ['an anchor', '#creds'],
    ['a missing definition', '#/$defs/Missing'],
    ['a value that is no schema', '#/required'],
    ['an array index out of range', '#/required/7'],
    ['a malformed percent-encoding', '#/$defs/%E0%A4%A'],
    ['a pointer without a leading slash', '#$defs/Creds'],
  ])('withholds a value whose $ref is %s (fail closed)', (_label, ref) => {
    const schema = {
      type: 'object',
      $defs: { Creds: { type: 'object' } },
      properties: { creds: { $ref: ref }, plain: { type: 'string' } },
      required: ['creds'],
    };
    const { masked, secrets } = maskSecretArguments(
      { creds: { user: 'bob', pass: SECRET }, plain: 'kept' },
      schema,
    );
    expect(masked).toEqual({ creds: '***', plain: 'kept' });
    expect(secrets).toContain(SECRET);
    expect(declaresSecretArguments(schema)).toBe(true);
  });

  it('withholds every argument when the root $ref does not resolve', () => {
    const schema = { $ref: 'https://example.com/tool.json' };
    expect(maskSecretArguments({ user: 'bob', note: SECRET }, schema).masked).toEqual({
      user: '***',
      note: '***',
    });
    expect(maskSecretArguments(SECRET, schema).masked).toBe('***');
  });

  it('declares secrets a $ref target declares, and none for a $ref schema without any', () => {
    expect(declaresSecretArguments(refSchema)).toBe(true);
    const zodSchema = Tool.create({
      name: 't',
      description: 'd',
      params: z.object({ a: Creds, b: Creds }),
      handler: () => ToolResult.ok(1),
    }).inputSchema;
    expect(declaresSecretArguments(zodSchema)).toBe(true);
    expect(
      declaresSecretArguments({
        type: 'object',
        $defs: { Plain: { type: 'object', properties: { user: { type: 'string' } } } },
        properties: { who: { $ref: '#/$defs/Plain' } },
      }),
    ).toBe(false);
  });

  it('keeps the cost bounded: a diamond of $refs is read once, too many schemas fail closed', () => {
    // 2^60 paths to the bottom, 61 distinct schemas.
    const $defs: Record<string, unknown> = { D60: { type: 'string', writeOnly: true } };
    for (let level = 0; level < 60; level += 1) {
      const next = { $ref: `#/$defs/D${level + 1}` };
      $defs[`D${level}`] = { anyOf: [next, { ...next }] };
    }
    const diamond = { type: 'object', $defs, properties: { deep: { $ref: '#/$defs/D0' } } };
    const started = performance.now();
    expect(maskSecretArguments({ deep: SECRET, other: 'kept' }, diamond).masked).toEqual({
      deep: '***',
      other: 'kept',
    });
    expect(declaresSecretArguments(diamond)).toBe(true);

    // More branches than one lookup takes in: the value is withheld, and the schema declares secrets.
    const wide = {
      type: 'object',
      properties: { huge: { anyOf: Array.from({ length: 30_000 }, () => ({ type: 'object' })) } },
    };
    expect(maskSecretArguments({ huge: { note: SECRET }, other: 'kept' }, wide).masked).toEqual({
      huge: '***',
      other: 'kept',
    });
    expect(declaresSecretArguments(wide)).toBe(true);
    // Many values under one schema: the lookup is made once, not once per item.
    const list = Array.from({ length: 20_000 }, (_, index) => ({ user: `u${index}`, pass: 'pw' }));
    const manySchema = {
      type: 'object',
      $defs: refSchema.$defs,
      properties: { all: { type: 'array', items: { $ref: '#/$defs/Creds' } } },
    };
    const { masked } = maskSecretArguments({ all: list }, manySchema);
    expect((masked as { all: unknown[] }).all[19_999]).toEqual({ user: 'u19999', pass: '***' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('keeps $ref secrets out of telemetry spans', async () => {
    const connect = Tool.create({
      name: 'connect_db',
      description: 'Connects',
      params: z.object({ creds: Creds }),
      // A careless tool that echoes its arguments in its error.
      handler: (args) => ToolResult.error(`login failed for ${JSON.stringify(args)}`),
    });
    expect(JSON.stringify(connect.inputSchema)).toContain('"$ref":"#/$defs/Creds"');
    const session = new Session();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const stop = instrumentSession(session, {
      tools: [connect],
      tracer: provider.getTracer('t'),
    });
    try {
      await invokeTool(connect, { creds: { user: 'bob', pass: SECRET } }, { session });
    } finally {
      stop();
    }
    const span = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool connect_db');
    expect(span?.attributes['tool.arguments']).toBe('{"creds":{"user":"bob","pass":"***"}}');
    expect(span?.status.message).toContain('***');
    expect(JSON.stringify([span?.attributes, span?.status])).not.toContain(SECRET);
  });

  it('shows the approval handler a $ref secret masked', async () => {
    const asked: ApprovalRequest[] = [];
    const connect = Tool.create({
      name: 'connect_db',
      description: 'Connects',
      params: z.object({ creds: Creds }),
      handler: () => ToolResult.ok('connected'),
    });
    await invokeTool(
      connect,
      { creds: { user: 'bob', pass: SECRET } },
      {
        session: new Session(),
        policies: [requireApproval()],
        approval: (request) => {
          asked.push(request);
          return 'deny';
        },
      },
    );
    expect(asked[0]?.params).toEqual({ creds: { user: 'bob', pass: '***' } });
  });
});

describe('secrets under conditional, dependent and pattern keywords', () => {
  it.each([
    [
      'patternProperties',
      {
        type: 'object',
        properties: {
          env: {
            type: 'object',
            patternProperties: { '^[A-Z_]+$': { type: 'string', writeOnly: true } },
          },
        },
      },
      { env: { DATABASE_URL: 'hunter2-pp-secret' } },
      { env: { DATABASE_URL: '***' } },
    ],
    [
      'then',
      {
        type: 'object',
        properties: { mode: { type: 'string' } },
        if: { properties: { mode: { const: 'basic' } } },
        then: { properties: { pass: { type: 'string', 'x-secret': true } } },
      },
      { mode: 'basic', pass: 'hunter2-then-secret' },
      { mode: 'basic', pass: '***' },
    ],
    [
      'dependentSchemas',
      {
        type: 'object',
        properties: { user: { type: 'string' } },
        dependentSchemas: { user: { properties: { pin: { type: 'string', writeOnly: true } } } },
      },
      { user: 'ada', pin: 'hunter2-dep-secret' },
      { user: 'ada', pin: '***' },
    ],
  ])('%s', (_keyword, schema, args, expected) => {
    const { masked, secrets } = maskSecretArguments(args, schema);
    expect(masked).toEqual(expected);
    expect(secrets).toHaveLength(1);
  });
});
