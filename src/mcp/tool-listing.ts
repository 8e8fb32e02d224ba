/**
 * One page of a `tools/list` result, checked and copied by hand.
 *
 * It accepts what the SDK's `ListToolsResultSchema` accepts for the tools
 * and the cursor, and returns the same shape: unknown members of a tool,
 * its annotations, execution and icons are dropped; the schemas keep
 * every member; every object the SDK copies is copied. The SDK's zod
 * schema does the same work at about five times the cost, which was most
 * of a connect to a server with many tools. The equivalence is a property
 * test against the SDK's schema (`test/mcp/tool-listing.property.test.ts`).
 *
 * What it does not check: the result's own `_meta` (nothing reads it).
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';

/** A page of tools, and the cursor of the next page. */
export interface ToolListingPage {
  readonly tools: McpToolDescription[];
  readonly nextCursor: string | undefined;
}

/** Why a listing was refused: names the member, what it holds and what was expected. */
export class ToolListingError extends Error {
  override readonly name: string = 'ToolListingError';
}

/**
 * The page `result` holds.
 * @throws ToolListingError naming the first member that breaks the MCP schema.
 */
export function parseToolListing(result: unknown): ToolListingPage {
  if (!isObject(result)) throw invalid('the result', result, 'an object');
  const { tools, nextCursor } = result;
  if (nextCursor !== undefined && typeof nextCursor !== 'string') {
    throw invalid('nextCursor', nextCursor, 'a string');
  }
  if (!Array.isArray(tools)) throw invalid('tools', tools, 'an array');
  const parsed: McpToolDescription[] = [];
  for (let index = 0; index < tools.length; index++) {
    parsed.push(parseTool(tools[index], index));
  }
  return { tools: parsed, nextCursor };
}

/**
 * A member name every copy drops, as the SDK's schema does: assigned, it
 * would set the copy's prototype instead of a member.
 */
const PROTO = '__proto__';
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TASK_SUPPORT = ['required', 'optional', 'forbidden'];
const ICON_THEMES = ['light', 'dark'];

function parseTool(tool: unknown, index: number): McpToolDescription {
  if (!isObject(tool)) throw invalid(`tools[${index}]`, tool, 'an object');
  const { name } = tool;
  if (typeof name !== 'string') throw invalid(`tools[${index}].name`, name, 'a string');
  const at = `tools[${index}] (${quote(name)})`;
  const copy: Record<string, unknown> = { name };
  copyOptional(tool, copy, 'title', at, isString, 'a string');
  if ('icons' in tool) copy.icons = parseIcons(tool.icons, `${at}.icons`);
  copyOptional(tool, copy, 'description', at, isString, 'a string');
  copy.inputSchema = parseObjectSchema(tool.inputSchema, `${at}.inputSchema`);
  if ('outputSchema' in tool) {
    const output = tool.outputSchema;
    copy.outputSchema =
      output === undefined ? undefined : parseObjectSchema(output, `${at}.outputSchema`);
  }
  if ('annotations' in tool) copy.annotations = parseAnnotations(tool.annotations, at);
  if ('execution' in tool) copy.execution = parseExecution(tool.execution, at);
  if ('_meta' in tool) copy._meta = parseRecord(tool._meta, `${at}._meta`);
  return copy as McpToolDescription;
}

/** `inputSchema` or `outputSchema`: an object schema, copied one level deep as the SDK does. */
function parseObjectSchema(schema: unknown, at: string): Record<string, unknown> {
  if (!isObject(schema)) throw invalid(at, schema, 'a JSON Schema object with type "object"');
  const { type, properties, required } = schema;
  if (type !== 'object') throw invalid(`${at}.type`, type, '"object"');
  const copy: Record<string, unknown> = { type };
  if (properties !== undefined) {
    if (!isRecord(properties)) throw invalid(`${at}.properties`, properties, 'a plain object');
    const members: Record<string, unknown> = {};
    for (const key of Object.keys(properties)) {
      if (key === PROTO) continue;
      const member = properties[key];
      if (member === null || (typeof member !== 'object' && typeof member !== 'function')) {
        throw invalid(`${at}.properties[${quote(key)}]`, member, 'an object');
      }
      members[key] = member;
    }
    copy.properties = members;
  } else if ('properties' in schema) copy.properties = undefined;
  if (required !== undefined) {
    if (!Array.isArray(required)) throw invalid(`${at}.required`, required, 'an array of strings');
    for (let index = 0; index < required.length; index++) {
      if (typeof required[index] !== 'string') {
        throw invalid(`${at}.required[${index}]`, required[index], 'a string');
      }
    }
    copy.required = [...(required as string[])];
  } else if ('required' in schema) copy.required = undefined;
  // Every other member, inherited enumerable ones too, as the SDK's catchall copies them.
  for (const key in schema) {
    if (key !== 'type' && key !== 'properties' && key !== 'required' && key !== PROTO) {
      copy[key] = schema[key];
    }
  }
  return copy;
}

function parseAnnotations(annotations: unknown, tool: string): Record<string, unknown> | undefined {
  if (annotations === undefined) return undefined;
  const at = `${tool}.annotations`;
  if (!isObject(annotations)) throw invalid(at, annotations, 'an object');
  const copy: Record<string, unknown> = {};
  copyOptional(annotations, copy, 'title', at, isString, 'a string');
  for (const hint of ANNOTATION_HINTS)
    copyOptional(annotations, copy, hint, at, isBoolean, 'a boolean');
  return copy;
}

function parseExecution(execution: unknown, tool: string): Record<string, unknown> | undefined {
  if (execution === undefined) return undefined;
  const at = `${tool}.execution`;
  if (!isObject(execution)) throw invalid(at, execution, 'an object');
  const copy: Record<string, unknown> = {};
  copyOptional(execution, copy, 'taskSupport', at, isOneOf(TASK_SUPPORT), oneOf(TASK_SUPPORT));
  return copy;
}

function parseIcons(icons: unknown, at: string): Record<string, unknown>[] | undefined {
  if (icons === undefined) return undefined;
  if (!Array.isArray(icons)) throw invalid(at, icons, 'an array of icons');
  return icons.map((icon: unknown, index) => {
    const place = `${at}[${index}]`;
    if (!isObject(icon)) throw invalid(place, icon, 'an object');
    if (typeof icon.src !== 'string') throw invalid(`${place}.src`, icon.src, 'a string');
    const copy: Record<string, unknown> = { src: icon.src };
    copyOptional(icon, copy, 'mimeType', place, isString, 'a string');
    copyOptional(icon, copy, 'sizes', place, isStringArray, 'an array of strings');
    if (Array.isArray(copy.sizes)) copy.sizes = [...(copy.sizes as string[])];
    copyOptional(icon, copy, 'theme', place, isOneOf(ICON_THEMES), oneOf(ICON_THEMES));
    return copy;
  });
}

/** A record of any values, copied. */
function parseRecord(record: unknown, at: string): Record<string, unknown> | undefined {
  if (record === undefined) return undefined;
  if (!isRecord(record)) throw invalid(at, record, 'a plain object');
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key !== PROTO) copy[key] = record[key];
  }
  return copy;
}

/** Copies `from[key]` when present and valid; `undefined` is copied as absent-but-named, as zod does. */
function copyOptional(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  key: string,
  at: string,
  valid: (value: unknown) => boolean,
  expected: string,
): void {
  const value = from[key];
  if (value === undefined) {
    if (key in from) to[key] = undefined;
    return;
  }
  if (!valid(value)) throw invalid(`${at}.${key}`, value, expected);
  to[key] = value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose prototype is `Object.prototype` or null, as the SDK's records require. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every(isString);
}

function isOneOf(options: readonly string[]): (value: unknown) => boolean {
  return (value) => typeof value === 'string' && options.includes(value);
}

function oneOf(options: readonly string[]): string {
  return `one of ${options.map((option) => JSON.stringify(option)).join(', ')}`;
}

function invalid(at: string, value: unknown, expected: string): ToolListingError {
  return new ToolListingError(`tools/list sent ${at} = ${describe(value)}; expected ${expected}`);
}

/** A short, one-line account of a value the server sent. */
function describe(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'nothing';
    case 'string':
      return quote(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? `an array of ${value.length}` : 'an object';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return String(value);
  }
}

/** A server string, quoted and capped, for a message. */
function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
