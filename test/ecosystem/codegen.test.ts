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
