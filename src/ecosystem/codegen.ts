/**
 * Typed bindings for a prompt's tools: a TypeScript module with a zod 4
 * schema and a type per tool, generated with `json-schema-to-zod` as source
 * text (never evaluated here). Users import it to get compile-time types for
 * the arguments they pass (`section.execute`, `invokeTool`) and a pre-flight
 * check that agrees with the run-time validators.
 */
import {
  jsonSchemaToZod,
  parseSchema,
  type JsonSchema,
  type JsonSchemaObject,
  type Refs,
  type Serializable,
} from 'json-schema-to-zod';
import type { McpServerConfig } from '../config/server-config.js';
import type { Tool } from '../tools/tool.js';
import { type Helpers, MULTIPLE_OF_HELPER } from './codegen-helpers.js';
import { prepareCodegenSchema } from './codegen-schema.js';
import { toolsOf, type ToolSource } from './tool-source.js';
import { McpSchemaError, messageOf } from '../core/errors.js';
import { createInputValidator } from '../mcp/schema/index.js';
import { SecretRedactor } from '../mcp/redact.js';
import { serverTextLine } from '../mcp/server-text.js';

/** Options of {@link generateToolBindings}. */
export interface GenerateToolBindingsOptions {
  /** Lines for the header comment (e.g. where the tools came from). @default none */
  readonly header?: readonly string[];
  /** Module the schemas import `z` from. @default 'zod' */
  readonly zodModule?: string;
  /**
   * Configs of the servers the tools come from: their secrets (`env`
   * values, header values, URL credentials and query values) are kept out
   * of the module, which is meant to be committed. They are masked in its
   * comments and `.describe()` texts, and a schema that checks one (a
   * property name, an `enum` or `const` value, a pattern) gets a loose
   * binding. (A bridged tool's name never holds one: `tool-naming.ts`.)
   * @default none: nothing is masked
   */
  readonly servers?: readonly McpServerConfig[];
}

/** What was generated for one tool. */
export interface GeneratedToolBinding {
  readonly toolName: string;
  /** The exported zod schema, e.g. `everythingEchoArgs`. */
  readonly schemaName: string;
  /** The exported type, e.g. `EverythingEchoArgs`. */
  readonly typeName: string;
  /**
   * False when the schema is outside what the converter keeps exactly, or
   * when the run time cannot use it (and refuses every call); the binding
   * is then `Record<string, unknown>`.
   */
  readonly exact: boolean;
  /**
   * Why it is not exact (JSON Pointers into the input schema). They hold
   * the server's property names as they are, but for the secrets of
   * `servers`, which are masked; the generated comment and the CLI clean
   * them, other callers should too before showing them.
   */
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
 * Server text is data in the generated file: in comments it is cleaned as
 * in the prompt (one line per line, no control or invisible characters),
 * and in string literals those characters are written as `\uXXXX`
 * escapes. With `servers`, none of their secrets is written (see
 * {@link GenerateToolBindingsOptions.servers}).
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
  const helpers: Helpers = { multipleOf: false };
  const bindings: GeneratedToolBinding[] = [];
  const blocks: string[] = [];
  const redactors = (options.servers ?? []).map((server) => SecretRedactor.forServer(server));
  const mask = (text: string): string =>
    redactors.reduce((out, redactor) => redactor.redact(out), text);
  for (const tool of toolsOf(source)) {
    const base = uniqueIdentifier(camelCase(tool.name), used);
    const schemaName = `${base}Args`;
    const typeName = `${base.charAt(0).toUpperCase()}${base.slice(1)}Args`;
    const prepared = prepareCodegenSchema(tool.inputSchema);
    let expression: string;
    const refusal = runTimeRefusal(tool);
    let issues = (refusal === undefined ? prepared.issues : [refusal, ...prepared.issues]).map(
      mask,
    );
    if (issues.length === 0) {
      try {
        const context: WriteContext = { helpers: { multipleOf: false }, mask, heldSecret: false };
        expression = jsonSchemaToZod(prepared.schema, {
          zodVersion: 4,
          module: 'none',
          withoutDefaults: true,
          parserOverride: (schema, refs) => writeServerText(schema, refs, context),
        });
        // Every piece of server text should have gone through `literal`.
        if (UNSAFE_IN_CODE.test(expression)) {
          throw new Error('its output holds a control or invisible character');
        }
        if (context.heldSecret) {
          // Masked, the binding would check something else than the
          // server does; written, the file would hold the secret.
          issues = [SECRET_ISSUE];
          expression = LOOSE;
        } else {
          // Only an expression that is kept may bring in a helper.
          helpers.multipleOf ||= context.helpers.multipleOf;
        }
      } catch (error) {
        issues = [mask(`#: the converter failed: ${messageOf(error)}`)];
        expression = LOOSE;
      }
    } else {
      expression = LOOSE;
    }
    const exact = issues.length === 0;
    bindings.push({ toolName: tool.name, schemaName, typeName, exact, issues });
    blocks.push(toolBlock(tool, schemaName, typeName, expression, issues, mask));
  }
  return { source: moduleText(bindings, blocks, helpers, options), tools: bindings };
}

/** Why a schema that checks a server's secret gets a loose binding. */
const SECRET_ISSUE =
  "#: a property name, `enum` or `const` value or pattern holds a secret of its server's config, which this file must not hold";

/** What the converter's override writes with, besides the schema. */
interface WriteContext {
  readonly helpers: Helpers;
  /** The servers' secrets masked in `text`. */
  readonly mask: (text: string) => string;
  /** Set once a name or value the schema checks holds a secret: its binding is not kept. */
  heldSecret: boolean;
}

/**
 * Why the run time refuses every call of an MCP tool (its validator cannot
 * use the schema: a value JSON cannot carry, a malformed keyword, …), as an
 * issue; `undefined` when it can. No binding of such a tool is exact. The
 * validator is cached by schema content, so the call the section makes
 * later costs nothing more.
 */
function runTimeRefusal(tool: Tool): string | undefined {
  if (tool.origin.kind !== 'mcp') return undefined;
  try {
    createInputValidator(tool.inputSchema, { serverName: tool.origin.server, toolName: tool.name });
    return undefined;
  } catch (error) {
    const reason = error instanceof McpSchemaError ? error.reason : messageOf(error);
    return `#: the run time refuses every call, as it cannot use this schema: ${reason}`;
  }
}

const LOOSE = 'z.record(z.string(), z.unknown())';
/**
 * Names the module declares besides the per-tool ones: a tool whose
 * identifier would make one of them (`tool` → `toolArgs`, `ToolArgs`)
 * gets a numbered one instead.
 */
const MODULE_NAMES = new Set(['toolArgs', 'ToolArgs']);

/** Longest issue line in a comment: a pointer can hold long property names. */
const MAX_ISSUE_LINE = 500;

/**
 * Characters that JSON.stringify leaves raw and a reader of the file
 * cannot see or that a terminal acts on: controls (DEL, C1), line and
 * paragraph separators, format characters (bidi controls, zero-width
 * characters) and every other default-ignorable code point.
 */
const UNSAFE_IN_LITERAL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;
const UNSAFE_IN_CODE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/**
 * `value` as a JavaScript literal whose text holds no unsafe character (they
 * become `\uXXXX`).
 * @throws {TypeError} for a number that is not finite: JSON.stringify would
 * write `null` (`prepareCodegenSchema` reports them first).
 */
function literal(value: Serializable): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TypeError(`the number ${String(value)} has no JSON literal`);
  }
  return JSON.stringify(value).replace(UNSAFE_IN_LITERAL, (character) =>
    Array.from(
      { length: character.length },
      (_, index) => `\\u${character.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`,
    ).join(''),
  );
}

/**
 * The converter's `parserOverride`: writes, in its place, the parts of a
 * schema that hold server text (descriptions, property names, `enum` and
 * `const` values, patterns), so that text reaches the code only through
 * {@link literal}. The converter writes the rest and calls back here for
 * each sub-schema. Only the subset `prepareCodegenSchema` lets through
 * needs handling, written as the converter would.
 */
function writeServerText(
  schema: JsonSchemaObject,
  refs: Refs,
  context: WriteContext,
): string | undefined {
  if (typeof schema.description === 'string') {
    const { description, ...rest } = schema;
    // An annotation: masked, it checks the same.
    return `${parseSchema(rest, refs)}.describe(${literal(context.mask(description))})`;
  }
  const checked = (value: Serializable): string => checkedLiteral(value, context);
  // The converter reads `enum` before `const` and both before `type`
  // (`anyOf`, which it reads first, never stands beside them here).
  if (schema.enum !== undefined) return enumExpression(schema.enum, checked);
  if (schema.const !== undefined) return `z.literal(${checked(schema.const)})`;
  if (
    schema.type === 'integer' ||
    (schema.type === 'number' && typeof schema.multipleOf === 'number')
  ) {
    return numberExpression(schema, refs, context.helpers);
  }
  if (schema.type === 'string' && typeof schema.pattern === 'string') {
    // The run time reads a pattern with the `u` flag (`\u{41}`, `\p{Lu}`,
    // `.` over an emoji), so the generated code does too.
    const { pattern, ...rest } = schema;
    return `${parseSchema(rest, refs)}.regex(new RegExp(${checked(pattern)}, "u"))`;
  }
  if (schema.type === 'object' && schema.properties !== undefined) {
    return objectExpression(schema, schema.properties, refs, checked);
  }
  return undefined;
}

/** `value` as a {@link literal}, noting in `context` when it holds a server's secret. */
function checkedLiteral(value: Serializable, context: WriteContext): string {
  const text = literal(value);
  if (context.mask(text) !== text) context.heldSecret = true;
  return text;
}

/**
 * A number with `type: integer` or `multipleOf`, checked as the run time
 * does: the converter writes zod's `.int()`, which also refuses integers
 * past 2^53 (`2 ** 60`, `1e300`) that `Number.isInteger` accepts, and
 * `.multipleOf()`, which divides in floating point (see `MULTIPLE_OF_HELPER`).
 */
function numberExpression(schema: JsonSchemaObject, refs: Refs, helpers: Helpers): string {
  const { multipleOf, ...rest } = schema;
  let expression = parseSchema({ ...rest, type: 'number' }, refs);
  if (schema.type === 'integer' || multipleOf === 1) {
    expression += '.refine(Number.isInteger, "Invalid input: expected an integer")';
  }
  if (typeof multipleOf === 'number' && multipleOf !== 1) {
    helpers.multipleOf = true;
    const message = literal(`Invalid input: expected a multiple of ${multipleOf}`);
    expression += `.refine((value) => isMultipleOf(value, ${literal(multipleOf)}), ${message})`;
  }
  return expression;
}

function enumExpression(
  values: readonly Serializable[],
  write: (value: Serializable) => string,
): string {
  if (values.length === 0) return 'z.never()';
  if (values.length === 1) return `z.literal(${write(values[0]!)})`;
  if (values.every((value) => typeof value === 'string')) {
    return `z.enum([${values.map((value) => write(value)).join(', ')}])`;
  }
  return `z.union([${values.map((value) => `z.literal(${write(value)})`).join(', ')}])`;
}

/** An object with `properties` (and `required`, `additionalProperties`), as the converter writes it. */
function objectExpression(
  schema: JsonSchemaObject,
  properties: Readonly<Record<string, JsonSchema>>,
  refs: Refs,
  write: (value: Serializable) => string,
): string {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const fields = Object.entries(properties).map(([name, property]) => {
    const value = parseSchema(property, { ...refs, path: [...refs.path, 'properties', name] });
    const field = `${write(name)}: ${value}`;
    return required.includes(name) ? field : `${field}.optional()`;
  });
  const shape = fields.length === 0 ? 'z.object({})' : `z.object({ ${fields.join(', ')} })`;
  if (schema.additionalProperties === undefined) return shape;
  const others = parseSchema(schema.additionalProperties, {
    ...refs,
    path: [...refs.path, 'additionalProperties'],
  });
  return others === 'z.never()' ? `${shape}.strict()` : `${shape}.catchall(${others})`;
}

function toolBlock(
  tool: Tool,
  schemaName: string,
  typeName: string,
  expression: string,
  issues: readonly string[],
  mask: (text: string) => string,
): string {
  const origin =
    tool.origin.kind === 'mcp'
      ? [`MCP server \`${tool.origin.server}\`, tool \`${mask(tool.origin.originalName)}\`.`]
      : [];
  const remarks =
    issues.length === 0
      ? []
      : [
          '',
          '@remarks Not exact: the input schema uses what the generated zod cannot express',
          ...issues.map((issue) => serverTextLine(`- ${issue}`, MAX_ISSUE_LINE)),
          'The section still validates these arguments exactly at call time.',
        ];
  return [
    docComment([`Arguments of \`${tool.name}\`: ${mask(tool.description)}`, ...origin, ...remarks]),
    `export const ${schemaName} = ${expression};`,
    docComment([`Arguments of \`${tool.name}\`, as callers write them.`]),
    `export type ${typeName} = z.input<typeof ${schemaName}>;`,
  ].join('\n');
}

function moduleText(
  bindings: readonly GeneratedToolBinding[],
  blocks: readonly string[],
  helpers: Helpers,
  options: GenerateToolBindingsOptions,
): string {
  const header = [
    'Generated by mcp-sections codegen. Do not edit: run it again when the tools change.',
    ...(options.header ?? []),
  ];
  const entries = bindings.map(
    // Computed keys: a quoted `"__proto__": …` would set the prototype, not a tool.
    (binding) => `  [${literal(binding.toolName)}]: ${binding.schemaName},`,
  );
  const inexact = bindings
    .filter((binding) => !binding.exact)
    .map((binding) => literal(binding.toolName));
  return [
    ...header.map((line) => `// ${commentLine(line)}`),
    `import { z } from ${literal(options.zodModule ?? 'zod')};`,
    '',
    ...(helpers.multipleOf ? [MULTIPLE_OF_HELPER, ''] : []),
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

/**
 * A doc comment of `lines`, each split at its line breaks and cleaned as
 * server text is (tool names, descriptions and property names come from
 * the server, and would otherwise reach the file and a terminal showing
 * it with escape sequences, bidi controls and invisible characters).
 */
function docComment(lines: readonly string[]): string {
  const body = lines
    .flatMap((line) => line.split(/\r\n|[\n\r\u2028\u2029]/))
    .map(commentLine)
    .map((line) => (line === '' ? ' *' : ` * ${line.replace(/\*\//g, '*\\/')}`));
  return ['/**', ...body, ' */'].join('\n');
}

/**
 * `text` on one line without control or invisible characters. Cleaning
 * comes before `*\/` is escaped: removing an invisible character can join
 * a `*` and a `/`.
 */
function commentLine(text: string): string {
  return serverTextLine(text, Number.POSITIVE_INFINITY);
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

/** `base`, or `base2`, `base3`, …: the first not used whose derived names are not the module's own. */
function uniqueIdentifier(base: string, used: Set<string>): string {
  const taken = (candidate: string): boolean =>
    used.has(candidate) ||
    MODULE_NAMES.has(`${candidate}Args`) ||
    MODULE_NAMES.has(`${candidate.charAt(0).toUpperCase()}${candidate.slice(1)}Args`);
  let candidate = base;
  for (let n = 2; taken(candidate); n += 1) candidate = `${base}${n}`;
  used.add(candidate);
  return candidate;
}
