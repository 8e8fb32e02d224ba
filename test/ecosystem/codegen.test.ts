import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generateToolBindings } from '../../src/ecosystem/codegen.js';
import { prepareCodegenSchema } from '../../src/ecosystem/codegen-schema.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import type { Tool } from '../../src/tools/tool.js';
import { everythingServerPath } from '../support/everything.js';
import { rawToolServer } from '../support/mcp-fixtures.js';
import { childPids, expectNoNewChildren } from '../support/processes.js';

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, '../..');

const ORDER_SCHEMA = {
  type: 'object',
  $defs: {
    item: {
      type: 'object',
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}$' },
        qty: { type: 'integer', minimum: 1 },
      },
      required: ['sku', 'qty'],
      additionalProperties: false,
    },
  },
  properties: {
    items: { type: 'array', items: { $ref: '#/$defs/item' }, minItems: 1 },
    note: { type: ['string', 'null'], maxLength: 10 },
    priority: { enum: ['low', 'high'] },
    email: { type: 'string', format: 'email' },
    retries: { type: 'integer', default: 3 },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['items'],
};
const CONDITIONAL_SCHEMA = {
  type: 'object',
  properties: { kind: { type: 'string' }, size: { type: 'number' } },
  if: { properties: { kind: { const: 'big' } } },
  then: { properties: { size: { minimum: 100 } } },
};

/** Arguments each tool must accept (true) or refuse (false), as the section's validators decide. */
const SAMPLES: Readonly<Record<string, readonly unknown[]>> = {
  everything_echo: [{ message: 'x' }, {}, { message: 1 }, { message: 'x', extra: 1 }, [], null],
  'everything_get-sum': [{ a: 1, b: 2.5 }, { a: 1 }, { a: '1', b: 2 }],
  'everything_get-annotated-message': [
    { messageType: 'error' },
    { messageType: 'warn' },
    { messageType: 'debug', includeImage: 'yes' },
    { messageType: 'debug', includeImage: true },
  ],
  'everything_get-resource-links': [{}, { count: 5 }, { count: 11 }, { count: 0 }],
  'everything_get-structured-content': [{ location: 'Chicago' }, { location: 'Paris' }],
  // `format` is an annotation at run time, so a bad URI is accepted by both.
  'everything_gzip-file-as-resource': [{ data: 'not a uri' }, { outputType: 'zip' }],
  raw_order: [
    { items: [{ sku: 'ABC', qty: 1 }] },
    {
      items: [{ sku: 'ABC', qty: 2 }],
      note: null,
      priority: 'low',
      email: 'nope',
      labels: { a: 'b' },
    },
    {},
    { items: [] },
    { items: [{ sku: 'abc', qty: 1 }] },
    { items: [{ sku: 'ABC', qty: 1, extra: true }] },
    { items: [{ sku: 'ABC', qty: 1.5 }] },
    { items: [{ sku: 'ABC', qty: 1 }], note: 'x'.repeat(11) },
    { items: [{ sku: 'ABC', qty: 1 }], priority: 'mid' },
    { items: [{ sku: 'ABC', qty: 1 }], retries: 'three' },
    { items: [{ sku: 'ABC', qty: 1 }], labels: { a: 1 } },
  ],
};

describe('prepareCodegenSchema', () => {
  it('keeps each header line a comment, whatever line terminator it holds', () => {
    const { source } = generateToolBindings([], {
      header: ['from a\u2028globalThis.ran = 1', 'b\u2029c\r\nd'],
    });
    const lines = source.split(/\r\n|[\n\r\u2028\u2029]/);
    expect(lines.slice(1, 3)).toEqual(['// from a globalThis.ran = 1', '// b c d']);
  });

  it('inlines local references and drops what the run time does not assert', () => {
    const before = JSON.stringify(ORDER_SCHEMA);
    const { schema, issues } = prepareCodegenSchema(ORDER_SCHEMA);
    expect(issues).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string', pattern: '^[A-Z]{3}$' },
              qty: { type: 'integer', minimum: 1 },
            },
            required: ['sku', 'qty'],
            additionalProperties: false,
          },
          minItems: 1,
        },
        note: { type: ['string', 'null'], maxLength: 10 },
        priority: { enum: ['low', 'high'] },
        email: { type: 'string' },
        retries: { type: 'integer' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['items'],
    });
    expect(JSON.stringify(ORDER_SCHEMA)).toBe(before);
  });

  it.each([
    [CONDITIONAL_SCHEMA, '#: "if" is not converted exactly'],
    [{ type: 'object', properties: { a: { $ref: '#' } } }, ': recursive "$ref" #'],
    [{ type: 'object', properties: { a: { $ref: 'https://x/s.json' } } }, 'is not local'],
    [
      { type: 'object', properties: { a: { type: 'string', anyOf: [{ minLength: 1 }] } } },
      '"anyOf" beside type',
    ],
    [
      { type: 'object', properties: { a: { type: 'string', enum: ['x', 1] } } },
      '"enum" values that "type" refuses',
    ],
    [
      { type: 'object', properties: {}, required: ['ghost'] },
      'requires ghost without a property schema',
    ],
    [
      { type: 'object', properties: { a: { properties: { b: { type: 'string' } } } } },
      '"properties" on a schema without "type"',
    ],
    [
      { type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } },
      'tuple "items"',
    ],
    [
      { type: 'object', properties: { u: { type: 'array', uniqueItems: true } } },
      '"uniqueItems" is not converted exactly',
    ],
    [
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as object,
      '"__proto__"',
    ],
  ])('reports what it cannot convert exactly: %j', (schema, issue) => {
    expect(prepareCodegenSchema(schema).issues.join('\n')).toContain(issue);
  });
});

describe('generated patterns', () => {
  it('run with the u flag, as the run time reads them', () => {
    const schema = {
      type: 'object',
      properties: { c: { type: 'string', pattern: '^\\u{41}\\p{Lu}$' } },
    };
    const letter = {
      name: 'letter',
      description: 'Takes one letter',
      inputSchema: schema,
      origin: { kind: 'native' },
    };
    const { source, tools } = generateToolBindings([letter as unknown as Tool]);
    expect(tools[0]?.exact).toBe(true);
    expect(source).toContain('new RegExp("^\\\\u{41}\\\\p{Lu}$", "u")');
  });
});

describe('generateToolBindings', () => {
  const before = childPids();
  const session = new Session();
  const raw = rawToolServer([
    { name: 'order', description: 'Places an order', inputSchema: ORDER_SCHEMA },
    { name: 'conditional', description: 'Uses if/then', inputSchema: CONDITIONAL_SCHEMA },
  ]);
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'everything',
        transport: {
          type: 'stdio',
          command: process.execPath,
          args: [everythingServerPath, 'stdio'],
        },
      },
      { name: 'raw', transport: { type: 'in-memory', server: raw.server } },
    ],
    session,
  });
  const dir = path.join(repo, '.tmp', `codegen-${randomUUID()}`);
  let tools: readonly Tool[];

  beforeAll(async () => {
    await section.connect();
    tools = section.tools();
    await mkdir(dir, { recursive: true });
  });

  afterAll(async () => {
    await section.disconnect();
    await rm(dir, { recursive: true, force: true });
    expect(await expectNoNewChildren(before)).toEqual([]);
  });

  it('writes a module that type-checks and agrees with the run-time validators', async () => {
    const generated = generateToolBindings(tools, { header: ['from the test'] });
    expect(generated.tools.filter((tool) => !tool.exact).map((tool) => tool.toolName)).toEqual([
      'raw_conditional',
    ]);
    await writeFile(path.join(dir, 'tools.ts'), generated.source);
    await writeFile(
      path.join(dir, 'usage.ts'),
      [
        "import { toolArgs, type EverythingEchoArgs, type RawOrderArgs, type ToolArgs, type ToolName } from './tools.js';",
        "export const echo: EverythingEchoArgs = { message: 'hi' };",
        '// @ts-expect-error message must be a string',
        'export const wrongType: EverythingEchoArgs = { message: 1 };',
        "export const order: ToolArgs['raw_order'] = { items: [{ sku: 'ABC', qty: 2 }], note: null };",
        '// @ts-expect-error items is required',
        "export const missing: ToolArgs['raw_order'] = {};",
        '// @ts-expect-error priority is "low" | "high"',
        "export const badEnum: RawOrderArgs = { items: [], priority: 'mid' };",
        "export const name: ToolName = 'everything_get-sum';",
        '// @ts-expect-error not a tool',
        "export const notATool: ToolName = 'everything_nope';",
        'export const parsed: { message: string } = toolArgs.everything_echo.parse(echo);',
        "export const loose: ToolArgs['raw_conditional'] = { anything: [1, 2] };",
        '',
      ].join('\n'),
    );
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: path.relative(dir, path.join(repo, 'tsconfig.json')),
        compilerOptions: { noEmit: true },
        include: ['*.ts'],
      }),
    );
    const tsc = path.join(repo, 'node_modules', '.bin', 'tsc');
    const checked = await run(tsc, ['--noEmit', '-p', dir], { cwd: repo }).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) =>
        `${error.stdout ?? ''}${error.stderr ?? ''}` || 'tsc failed',
    );
    expect(checked).toBe('');

    const module = (await import(pathToFileURL(path.join(dir, 'tools.ts')).href)) as {
      toolArgs: Record<string, z.ZodType>;
      inexactTools: readonly string[];
    };
    expect(module.inexactTools).toEqual(['raw_conditional']);
    expect(Object.keys(module.toolArgs)).toEqual(tools.map((tool) => tool.name));
    for (const [name, samples] of Object.entries(SAMPLES)) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      const generatedSchema = module.toolArgs[name]!;
      const verdicts = await Promise.all(
        samples.map(async (sample) => ({
          sample,
          runtime: (await tool.params.safeParseAsync(sample)).success,
          generated: generatedSchema.safeParse(sample).success,
        })),
      );
      for (const verdict of verdicts)
        expect(verdict.generated, `${name} ${JSON.stringify(verdict.sample)}`).toBe(
          verdict.runtime,
        );
      // Each tool's samples include both verdicts, so agreement is not vacuous.
      expect(new Set(verdicts.map((verdict) => verdict.runtime)), name).toEqual(
        new Set([true, false]),
      );
    }
  });
});

/** A tool object as `generateToolBindings` reads it, without a handler. */
function nativeTool(name: string, inputSchema: Record<string, unknown> = { type: 'object' }): Tool {
  return {
    name,
    description: `Tool ${name}`,
    inputSchema,
    origin: { kind: 'native' },
  } as unknown as Tool;
}

/** What `tsc --noEmit` says about the `.ts` files in `dir` (with the repo's options): '' when they check. */
async function typeCheck(dir: string): Promise<string> {
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.relative(dir, path.join(repo, 'tsconfig.json')),
      compilerOptions: { noEmit: true },
      include: ['*.ts'],
    }),
  );
  const tsc = path.join(repo, 'node_modules', '.bin', 'tsc');
  return run(tsc, ['--noEmit', '-p', dir], { cwd: repo }).then(
    () => '',
    (error: { stdout?: string; stderr?: string }) =>
      `${error.stdout ?? ''}${error.stderr ?? ''}` || 'tsc failed',
  );
}

describe('generateToolBindings: names and numbers', () => {
  const dir = path.join(repo, '.tmp', `codegen-names-${randomUUID()}`);
  const session = new Session();
  const numbers = rawToolServer([
    {
      name: 'int',
      inputSchema: { type: 'object', properties: { v: { type: 'integer', minimum: 0 } } },
    },
    {
      name: 'whole',
      inputSchema: { type: 'object', properties: { v: { type: 'number', multipleOf: 1 } } },
    },
    {
      name: 'nullable_int',
      inputSchema: { type: 'object', properties: { v: { type: ['integer', 'null'] } } },
    },
    {
      name: 'int_by_4',
      inputSchema: { type: 'object', properties: { v: { type: 'integer', multipleOf: 4 } } },
    },
    {
      name: 'by_3',
      inputSchema: { type: 'object', properties: { v: { type: 'number', multipleOf: 3 } } },
    },
    {
      name: 'tenths',
      inputSchema: { type: 'object', properties: { v: { type: 'number', multipleOf: 0.1 } } },
    },
    // What JSON.parse makes of 1e400 and -1e400.
    {
      name: 'infinite',
      inputSchema: {
        type: 'object',
        properties: {
          v: { enum: [Infinity] },
          w: { const: -Infinity },
          x: { type: 'number', enum: [Infinity, 2] },
        },
      },
    },
    {
      name: 'infinite_default',
      inputSchema: { type: 'object', properties: { v: { type: 'number', default: Infinity } } },
    },
  ]);
  const section = new McpIntegrationSection({
    servers: [{ name: 'num', transport: { type: 'in-memory', server: numbers.server } }],
    session,
  });

  beforeAll(async () => {
    await section.connect();
    await mkdir(dir, { recursive: true });
  });

  afterAll(async () => {
    await section.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  it("gives tools named like the module's own names identifiers of their own", async () => {
    // `tool`, `_` and `-` all camel-case to `tool`, whose `toolArgs` and
    // `ToolArgs` are the module's own.
    const generated = generateToolBindings(['tool', '_', '-', 'tool2'].map((n) => nativeTool(n)));
    expect(generated.tools.map(({ schemaName, typeName }) => [schemaName, typeName])).toEqual([
      ['tool2Args', 'Tool2Args'],
      ['tool3Args', 'Tool3Args'],
      ['tool4Args', 'Tool4Args'],
      ['tool22Args', 'Tool22Args'],
    ]);
    const names = path.join(dir, 'names');
    await mkdir(names);
    await writeFile(path.join(names, 'tools.ts'), generated.source);
    await writeFile(
      path.join(names, 'usage.ts'),
      [
        "import { toolArgs, type Tool2Args, type ToolArgs, type ToolName } from './tools.js';",
        'export const own: Tool2Args = {};',
        "export const byName: ToolArgs['_'] = {};",
        "export const name: ToolName = '-';",
        'export const parsed: object = toolArgs.tool.parse({});',
        '',
      ].join('\n'),
    );
    expect(await typeCheck(names)).toBe('');
    const module = (await import(pathToFileURL(path.join(names, 'tools.ts')).href)) as {
      toolArgs: Record<string, z.ZodType>;
    };
    expect(Object.keys(module.toolArgs)).toEqual(['tool', '_', '-', 'tool2']);
  });

  it('checks integers and multiples as the run time does, past 2^53 and in decimal', async () => {
    const tools = section.tools();
    const generated = generateToolBindings(tools);
    const samples: Readonly<Record<string, readonly unknown[]>> = {
      num_int: [0, 7, 2 ** 60, 1e300, 1.5, -1, 'x'],
      num_whole: [-3, 2 ** 60, 1e300, 3.5],
      num_nullable_int: [null, 2 ** 60, 1e300, 0.5],
      num_int_by_4: [8, 2 ** 60, 2 ** 60 + 256, 6, 4.4],
      num_by_3: [9, 1.5e1, 1e20, 10],
      num_tenths: [0.3, 0.7, 123456789.1, 0.1 + 0.2, 0.35],
    };
    for (const name of Object.keys(samples)) {
      expect(generated.tools.find((tool) => tool.toolName === name)?.exact, name).toBe(true);
    }
    const numbersDir = path.join(dir, 'numbers');
    await mkdir(numbersDir);
    await writeFile(path.join(numbersDir, 'tools.ts'), generated.source);
    expect(await typeCheck(numbersDir)).toBe('');
    const module = (await import(pathToFileURL(path.join(numbersDir, 'tools.ts')).href)) as {
      toolArgs: Record<string, z.ZodType>;
    };
    for (const [name, values] of Object.entries(samples)) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      const verdicts = await Promise.all(
        values.map(async (v) => ({
          v,
          runtime: (await tool.params.safeParseAsync({ v })).success,
          generated: module.toolArgs[name]!.safeParse({ v }).success,
        })),
      );
      for (const verdict of verdicts) {
        expect(verdict.generated, `${name} ${String(verdict.v)}`).toBe(verdict.runtime);
      }
      expect(new Set(verdicts.map((verdict) => verdict.runtime)), name).toEqual(
        new Set([true, false]),
      );
    }
  });

  it('never calls exact a schema the run time cannot use, such as one holding Infinity', () => {
    const generated = generateToolBindings(section.tools());
    const infinite = generated.tools.find((tool) => tool.toolName === 'num_infinite');
    expect(infinite).toMatchObject({ exact: false });
    expect(infinite?.issues).toEqual([
      expect.stringMatching(
        /^#: the run time refuses every call, as it cannot use this schema: .*Infinity.*JSON numbers must be finite/,
      ),
      '#/properties/v: "enum" with a number that is not finite',
      '#/properties/w: "const" with a number that is not finite',
      '#/properties/x: "enum" with a number that is not finite',
    ]);
    // A `default` the binding leaves out still makes the run time refuse the schema.
    const withDefault = generated.tools.find((tool) => tool.toolName === 'num_infinite_default');
    expect(withDefault).toMatchObject({ exact: false });
    expect(withDefault?.issues[0]).toMatch(/^#: the run time refuses every call/);
    expect(generated.source).not.toContain('z.literal(null)');
    expect(generated.source).toContain(
      'export const inexactTools: readonly ToolName[] = ["num_infinite", "num_infinite_default"];',
    );
  });
});

describe("generateToolBindings: the servers' secrets", () => {
  // Lower-case letters and digits: it fits in a bridged name unchanged.
  const secret = 'ghpz9xq7kl2mn4pr8st1uv';
  const session = new Session();
  const raw = rawToolServer([
    { name: `tok_${secret}`, inputSchema: { type: 'object' } },
    {
      name: 'described',
      description: `Reads with ${secret}`,
      inputSchema: {
        type: 'object',
        properties: { q: { type: 'string', description: `use key ${secret}` } },
      },
    },
    {
      name: 'named',
      inputSchema: { type: 'object', properties: { [`k_${secret}`]: { type: 'string' } } },
    },
    {
      name: 'choice',
      inputSchema: { type: 'object', properties: { v: { enum: ['a', secret] } } },
    },
    {
      name: 'pattern',
      inputSchema: {
        type: 'object',
        properties: { v: { type: 'string', pattern: `^${secret}$` } },
      },
    },
    {
      name: 'inexact',
      inputSchema: {
        type: 'object',
        properties: { [`k_${secret}`]: { type: 'string', not: { const: 'x' } } },
      },
    },
  ]);
  const servers = [
    {
      name: 'sec',
      transport: { type: 'in-memory' as const, server: raw.server },
      env: { K: secret },
    },
  ];
  const section = new McpIntegrationSection({ servers, session });

  beforeAll(async () => {
    await section.connect();
  });

  afterAll(async () => {
    await section.disconnect();
  });

  it('never writes one', () => {
    const generated = generateToolBindings(section.tools(), { servers });
    expect(generated.source).not.toContain(secret);
    expect(JSON.stringify(generated.tools)).not.toContain(secret);
    // A name that held one: bridged from its masked form, its original masked in the comment.
    expect(generated.tools[0]?.toolName).toMatch(/^sec_tok_{5}[0-9a-f]{8}$/);
    expect(generated.source).toContain('MCP server `sec`, tool `tok_***`.');
    // An annotation is masked, and the binding checks what the run time does.
    expect(generated.source).toContain('Arguments of `sec_described`: Reads with ***');
    expect(generated.source).toContain(
      'export const secDescribedArgs = z.object({ "q": z.string().describe("use key ***").optional() });',
    );
    expect(generated.tools.find((tool) => tool.toolName === 'sec_described')?.exact).toBe(true);
    // A name or value the schema checks cannot be masked: the binding is loose.
    for (const name of ['sec_named', 'sec_choice', 'sec_pattern']) {
      expect(generated.tools.find((tool) => tool.toolName === name)).toMatchObject({
        exact: false,
        issues: [expect.stringContaining("holds a secret of its server's config")],
      });
    }
    // Issues quote property names: masked.
    expect(generated.tools.find((tool) => tool.toolName === 'sec_inexact')?.issues).toEqual([
      '#/properties/k_***: "not" is not converted exactly',
    ]);
  });
});
