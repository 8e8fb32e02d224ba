/**
 * Typed bindings for a prompt's tools: a TypeScript module with a zod 4
 * schema and a type per tool, generated with `json-schema-to-zod` as source
 * text (never evaluated here). Users import it to get compile-time types for
 * the arguments they pass (`section.execute`, `invokeTool`) and a pre-flight
 * check that agrees with the run-time validators.
 */
import { jsonSchemaToZod } from 'json-schema-to-zod';
import type { Tool } from '../tools/tool.js';
import { prepareCodegenSchema } from './codegen-schema.js';
import { toolsOf, type ToolSource } from './tool-source.js';
import { messageOf } from '../core/errors.js';

/** Options of {@link generateToolBindings}. */
export interface GenerateToolBindingsOptions {
  /** Lines for the header comment (e.g. where the tools came from). @default none */
  readonly header?: readonly string[];
  /** Module the schemas import `z` from. @default 'zod' */
  readonly zodModule?: string;
}

/** What was generated for one tool. */
export interface GeneratedToolBinding {
  readonly toolName: string;
  /** The exported zod schema, e.g. `everythingEchoArgs`. */
  readonly schemaName: string;
  /** The exported type, e.g. `EverythingEchoArgs`. */
  readonly typeName: string;
  /** False when the schema is outside what the converter keeps exactly; the binding is then `Record<string, unknown>`. */
  readonly exact: boolean;
  /** Why it is not exact (JSON Pointers into the input schema). */
  readonly issues: readonly string[];
}

/** A generated module. */
export interface GeneratedBindings {
  /** The TypeScript source text. */
  readonly source: string;
  readonly tools: readonly GeneratedToolBinding[];
}

/**
 * Generates a TypeScript module with, per tool, `export const <name>Args`
 * (a zod 4 schema) and `export type <Name>Args` (its input type), plus
 * `toolArgs` (schemas by tool name), `ToolName`, `ToolArgs` (types by tool
 * name) and `inexactTools`.
 *
 * The schemas accept and refuse what the run-time validators do: `format`
 * is not asserted and `default` is not applied (both as at run time), and a
 * schema the converter would loosen (`$ref` cycles, `oneOf`, `allOf`, `not`,
 * `if`, `patternProperties`, `uniqueItems`, ...) is not converted: its
 * binding is `z.record(z.string(), z.unknown())`, listed in `inexactTools`
 * with the reasons in a comment.
 *
 * @example
 * const { source } = generateToolBindings(rendered, { header: ['from .mcp.json'] });
 * await writeFile('tools.ts', source);
 */
export function generateToolBindings(
  source: ToolSource,
  options: GenerateToolBindingsOptions = {},
): GeneratedBindings {
  const used = new Set<string>();
  const bindings: GeneratedToolBinding[] = [];
  const blocks: string[] = [];
  for (const tool of toolsOf(source)) {
    const base = uniqueIdentifier(camelCase(tool.name), used);
    const schemaName = `${base}Args`;
    const typeName = `${base.charAt(0).toUpperCase()}${base.slice(1)}Args`;
    const prepared = prepareCodegenSchema(tool.inputSchema);
    let expression: string;
    let issues = prepared.issues;
    if (issues.length === 0) {
      try {
        expression = withUnicodeRegExps(
          jsonSchemaToZod(prepared.schema, {
            zodVersion: 4,
            module: 'none',
            withoutDefaults: true,
          }),
        );
      } catch (error) {
        issues = [`#: the converter failed: ${messageOf(error)}`];
        expression = LOOSE;
      }
    } else {
      expression = LOOSE;
    }
    const exact = issues.length === 0;
    bindings.push({ toolName: tool.name, schemaName, typeName, exact, issues });
    blocks.push(toolBlock(tool, schemaName, typeName, expression, issues));
  }
  return { source: moduleText(bindings, blocks, options), tools: bindings };
}

const LOOSE = 'z.record(z.string(), z.unknown())';

/**
 * The converter writes `new RegExp("…")` without flags; the run time reads
 * a pattern with the `u` flag (`\u{41}`, `\p{Lu}`, `.` over an emoji),
 * so the generated code does too.
 */
function withUnicodeRegExps(expression: string): string {
  return expression.replace(/new RegExp\(("(?:[^"\\]|\\.)*")\)/g, 'new RegExp($1, "u")');
}

function toolBlock(
  tool: Tool,
  schemaName: string,
  typeName: string,
  expression: string,
  issues: readonly string[],
): string {
  const origin =
    tool.origin.kind === 'mcp'
      ? [`MCP server \`${tool.origin.server}\`, tool \`${tool.origin.originalName}\`.`]
      : [];
  const remarks =
    issues.length === 0
      ? []
      : [
          '',
          '@remarks Not exact: the input schema uses what the generated zod cannot express',
          ...issues.map((issue) => `- ${issue}`),
          'The section still validates these arguments exactly at call time.',
        ];
  return [
    docComment([`Arguments of \`${tool.name}\`: ${tool.description}`, ...origin, ...remarks]),
    `export const ${schemaName} = ${expression};`,
    docComment([`Arguments of \`${tool.name}\`, as callers write them.`]),
    `export type ${typeName} = z.input<typeof ${schemaName}>;`,
  ].join('\n');
}

function moduleText(
  bindings: readonly GeneratedToolBinding[],
  blocks: readonly string[],
  options: GenerateToolBindingsOptions,
): string {
  const header = [
    'Generated by mcp-sections codegen. Do not edit: run it again when the tools change.',
    ...(options.header ?? []),
  ];
  const entries = bindings.map(
    (binding) => `  ${JSON.stringify(binding.toolName)}: ${binding.schemaName},`,
  );
  const inexact = bindings
    .filter((binding) => !binding.exact)
    .map((binding) => JSON.stringify(binding.toolName));
  return [
    ...header.map((line) => `// ${line.replace(/[\r\n\u2028\u2029]+/g, ' ')}`),
    `import { z } from ${JSON.stringify(options.zodModule ?? 'zod')};`,
    '',
    ...blocks.flatMap((block) => [block, '']),
    "/** Every tool's argument schema, by tool name. */",
    entries.length === 0
      ? 'export const toolArgs = {} as const;'
      : ['export const toolArgs = {', ...entries, '} as const;'].join('\n'),
    '',
    '/** The name of a tool. */',
    'export type ToolName = keyof typeof toolArgs;',
    '',
    '/** The arguments of each tool, by tool name. */',
    'export type ToolArgs = { [K in ToolName]: z.input<(typeof toolArgs)[K]> };',
    '',
    '/** Tools whose bindings accept any object (see their remarks); the section still validates them. */',
    `export const inexactTools: readonly ToolName[] = [${inexact.join(', ')}];`,
    '',
  ].join('\n');
}

function docComment(lines: readonly string[]): string {
  const body = lines
    .flatMap((line) => line.split(/\r?\n/))
    .map((line) => (line === '' ? ' *' : ` * ${line.replace(/\*\//g, '*\\/')}`));
  return ['/**', ...body, ' */'].join('\n');
}

/** `everything_get-sum` → `everythingGetSum`; a leading digit gets a `t` before it. */
function camelCase(name: string): string {
  const words = name.split(/[^a-zA-Z0-9]+/).filter((word) => word.length > 0);
  const joined = words
    .map((word, index) =>
      index === 0 ? word.toLowerCase() : word.charAt(0).toUpperCase() + word.slice(1).toLowerCase(),
    )
    .join('');
  const identifier = joined.length === 0 ? 'tool' : joined;
  return /^[0-9]/.test(identifier) ? `t${identifier}` : identifier;
}

function uniqueIdentifier(base: string, used: Set<string>): string {
  let candidate = base;
  for (let n = 2; used.has(candidate); n += 1) candidate = `${base}${n}`;
  used.add(candidate);
  return candidate;
}
