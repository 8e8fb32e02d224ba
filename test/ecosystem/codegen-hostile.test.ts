/**
 * `generateToolBindings` against schemas and names a hostile server
 * chooses: the module must still parse, hold no raw control or invisible
 * character, stay small, and say "exact" only where its verdicts are the
 * run time's.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generateToolBindings, type GeneratedBindings } from '../../src/ecosystem/codegen.js';
import { MAX_NODES } from '../../src/ecosystem/codegen-schema.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import type { Tool } from '../../src/tools/tool.js';
import { rawToolServer, type RawTool } from '../support/mcp-fixtures.js';

const repo = path.resolve(import.meta.dirname, '../..');
const ESC = '\u001b';
/** What must not appear raw in the generated file (line feeds aside). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

const BIDI_NAME = `id\u202E\u2066 ${ESC}[8m`;
const ENUM_VALUES = ['a\u200Bb', 'c\u0085', 'd\u{E0041}'];

/** Definitions that each refer twice to the next: 2^levels copies once inlined. */
function doublingSchema(levels: number): Record<string, unknown> {
  const $defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string' } };
  for (let level = 0; level < levels; level += 1) {
    const next = { $ref: `#/$defs/d${level + 1}` };
    $defs[`d${level}`] = { type: 'object', properties: { a: next, b: next } };
  }
  return { type: 'object', $defs, properties: { x: { $ref: '#/$defs/d0' } } };
}

const RAW_TOOLS: readonly RawTool[] = [
  {
    // A description and a property name that together spell `new RegExp("…")`.
    name: 'breaker',
    description: 'innocent looking',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'matches new RegExp(' },
        ')b': { type: 'string' },
        c: { type: 'string', pattern: '^\\p{Lu}$', description: 'new RegExp("x")' },
      },
    },
  },
  {
    name: `lookup${ESC}]0;owned${ESC}\\${ESC}[2K`,
    description: 'Looks up a record',
    inputSchema: {
      type: 'object',
      properties: {
        [BIDI_NAME]: { type: 'string', enum: ENUM_VALUES, description: `x\u202Ey${ESC}[2J` },
      },
      required: [BIDI_NAME],
    },
  },
  {
    name: 'inexact',
    description: 'Has a property whose schema is not converted',
    inputSchema: { type: 'object', properties: { [BIDI_NAME]: { type: 'string', not: {} } } },
  },
  {
    name: 'min_excl',
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: 10 } },
      required: ['n'],
    },
  },
  {
    name: 'max_excl',
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'number', maximum: 100, exclusiveMaximum: 10 } },
      required: ['n'],
    },
  },
  {
    name: 'items_false',
    inputSchema: {
      type: 'object',
      properties: { l: { type: 'array', items: false } },
      required: ['l'],
    },
  },
  {
    name: 'enum_len',
    inputSchema: {
      type: 'object',
      properties: { s: { type: 'string', enum: ['a', 'bbbbbb'], minLength: 5 } },
      required: ['s'],
    },
  },
  {
    name: 'enum_const',
    inputSchema: {
      type: 'object',
      properties: { s: { type: 'string', enum: ['safe', 'rm-rf'], const: 'safe' } },
      required: ['s'],
    },
  },
  { name: 'dag', inputSchema: doublingSchema(16) },
];

/** Arguments whose verdicts the run time and an exact binding must share (both verdicts each). */
const SAMPLES: Readonly<Record<string, readonly unknown[]>> = {
  raw_breaker: [{ a: 'x', ')b': 'y', c: 'Ä' }, { c: 'a' }, { ')b': 1 }],
  raw_min_excl: [{ n: 5 }, { n: 10 }, { n: 11 }],
  raw_max_excl: [{ n: 50 }, { n: 10 }, { n: 5 }],
  raw_items_false: [{ l: [1, 2] }, { l: [] }],
};

describe('generateToolBindings with a hostile server', () => {
  const session = new Session();
  const raw = rawToolServer(RAW_TOOLS);
  const section = new McpIntegrationSection({
    servers: [{ name: 'raw', transport: { type: 'in-memory', server: raw.server } }],
    session,
  });
  const dir = path.join(repo, '.tmp', `codegen-hostile-${randomUUID()}`);
  const native = {
    name: `native\u202Etool${ESC}[31m`,
    description: `First line${ESC}]0;title\u0007\nSecond\u2066 line\r\nends *\u200B/ here`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    origin: { kind: 'native' },
  } as unknown as Tool;
  const proto = {
    name: '__proto__',
    description: 'A tool named like the prototype key',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    origin: { kind: 'native' },
  } as unknown as Tool;
  let tools: readonly Tool[];
  let generated: GeneratedBindings;
  let module: { toolArgs: Record<string, z.ZodType>; inexactTools: readonly string[] };

  beforeAll(async () => {
    await section.connect();
    tools = section.tools();
    generated = generateToolBindings([...tools, native, proto]);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'tools.ts'), generated.source);
    // Importing compiles it: a module that does not parse fails here.
    module = (await import(pathToFileURL(path.join(dir, 'tools.ts')).href)) as typeof module;
  });

  afterAll(async () => {
    await section.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  function binding(name: string) {
    return generated.tools.find((tool) => tool.toolName === name)!;
  }

  it('keeps text that looks like code inside its string literals', () => {
    expect(binding('raw_breaker').exact).toBe(true);
    expect(generated.source).toContain('.describe("matches new RegExp(")');
    expect(generated.source).toContain('")b": z.string()');
    expect(generated.source).toContain('.regex(new RegExp("^\\\\p{Lu}$", "u")).describe(');
    expect(module.toolArgs['raw_breaker']?.safeParse({ ')b': 'y' }).success).toBe(true);
  });

  it('writes no raw control, bidi or invisible character, in comments or literals', () => {
    const offending = [...generated.source.replace(/\n/g, '')].filter((c) => UNSAFE.test(c));
    expect(offending).toEqual([]);
    // Comments: cleaned as server text in the prompt is, one line per line.
    expect(generated.source).toContain(' * MCP server `raw`, tool `lookup ]0;owned \\ [2K`.');
    expect(generated.source).toContain(' * Arguments of `nativetool [31m`: First line ]0;title');
    expect(generated.source).toContain(' * Second line\n * ends *\\/ here\n');
    expect(generated.source).toContain(' * - #/properties/id [8m: "not" is not converted exactly');
    // Literals: escaped, so the values are the server's own.
    expect(generated.source).toContain('"id\\u202E\\u2066 \\u001b[8m": z.enum(');
    expect(generated.source).toContain('"d\\uDB40\\uDC41"');
    expect(generated.source).toContain('["native\\u202Etool\\u001b[31m"]: ');
  });

  it('keeps the values of escaped literals', async () => {
    const lookup = tools.find((tool) => tool.name.startsWith('raw_lookup'))!;
    const generatedSchema = module.toolArgs[lookup.name]!;
    for (const value of [...ENUM_VALUES, 'ab']) {
      const sample = { [BIDI_NAME]: value };
      expect(generatedSchema.safeParse(sample).success, value).toBe(
        (await lookup.params.safeParseAsync(sample)).success,
      );
    }
    expect(generatedSchema.safeParse({ [BIDI_NAME]: ENUM_VALUES[2] }).success).toBe(true);
    expect(Object.keys(module.toolArgs)).toContain(native.name);
  });

  it('says exact only where its verdicts are the run time’s', async () => {
    for (const name of ['raw_min_excl', 'raw_max_excl', 'raw_items_false']) {
      expect(binding(name), name).toMatchObject({ exact: true, issues: [] });
    }
    expect(binding('raw_enum_len').issues).toEqual(['#/properties/s: "enum" beside minLength']);
    expect(binding('raw_enum_const').issues).toEqual(['#/properties/s: "enum" beside const']);
    expect(module.inexactTools).toEqual(expect.arrayContaining(['raw_enum_len', 'raw_enum_const']));
    for (const [name, samples] of Object.entries(SAMPLES)) {
      const tool = tools.find((candidate) => candidate.name === name)!;
      const verdicts = await Promise.all(
        samples.map(async (sample) => ({
          sample,
          runtime: (await tool.params.safeParseAsync(sample)).success,
          generated: module.toolArgs[name]!.safeParse(sample).success,
        })),
      );
      for (const verdict of verdicts) {
        expect(verdict.generated, `${name} ${JSON.stringify(verdict.sample)}`).toBe(
          verdict.runtime,
        );
      }
      expect(new Set(verdicts.map((verdict) => verdict.runtime)), name).toEqual(
        new Set([true, false]),
      );
    }
  });

  it('keeps a tool named __proto__ an own property of toolArgs, never its prototype', () => {
    // A quoted `"__proto__": …` in an object literal sets the prototype.
    expect(generated.source).toContain('  ["__proto__"]: protoArgs,');
    expect(Object.hasOwn(module.toolArgs, '__proto__')).toBe(true);
    expect(Object.keys(module.toolArgs)).toContain('__proto__');
    expect(Object.getPrototypeOf(module.toolArgs)).toBe(Object.prototype);
    expect('safeParse' in module.toolArgs).toBe(false);
    expect(module.toolArgs['__proto__']?.safeParse({ q: 1 }).success).toBe(false);
    expect(module.toolArgs['__proto__']?.safeParse({ q: 'x' }).success).toBe(true);
  });

  it('falls back to the loose binding for a schema that inlining would blow up', () => {
    expect(binding('raw_dag')).toMatchObject({
      exact: false,
      issues: [`#: too large to convert, over ${MAX_NODES} schema nodes with its "$ref"s inlined`],
    });
    expect(generated.source).toContain(
      'export const rawDagArgs = z.record(z.string(), z.unknown());',
    );
    expect(generated.source.length).toBeLessThan(20_000);
  });
});
