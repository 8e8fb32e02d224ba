/**
 * One page of a `tools/list` result, checked and copied by hand.
 *
 * It accepts what the SDK's `ListToolsResultSchema` accepts for the tools
 * and the cursor, and returns the same shape: unknown members of a tool,
 * its annotations, execution and icons are dropped; the schemas keep
 * every member; every object the SDK copies is copied, but for a
 * schema's `properties` and `required` when they are a plain record and a
 * plain array (see {@link parseProperties}). The SDK's zod schema does the same work
 * in about 1.6 times the time (1,000 freshly parsed tools) and with more
 * garbage for the connect to collect: it was most of a connect to a
 * server with many tools. The equivalence is a property test against the
 * SDK's schema (`test/mcp/tool-listing.property.test.ts`).
 *
 * An in-process server hands over its own objects, not JSON: every value
 * it copies is read once (a getter cannot pass the check and then
 * change), arrays are read by index without calling their methods, and
 * only own members count where the SDK's records say so.
 *
 * Its messages name the place and what was expected, and show a value the
 * server sent only when it is short and needs no escaping, so that secret
 * masking, which looks for a secret whole, still finds it.
 *
 * What it does not check: the result's own `_meta` (nothing reads it).
 * Written for the schema of SDK 1.32; a test fails when the installed
 * SDK's schema has members this does not know (with a newer SDK at run
 * time, a member it adds is dropped, as an older SDK would drop it).
 */
import type { Tool as McpToolDescription } from '@modelcontextprotocol/sdk/types.js';
import { describeSent, isShowable } from '../core/describe-sent.js';
import { isJsonRecord } from '../core/json.js';

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
  if (!isJsonRecord(result)) throw invalid('the result', result, 'an object');
  const { tools, nextCursor } = result;
  if (nextCursor !== undefined && typeof nextCursor !== 'string') {
    throw invalid('nextCursor', nextCursor, 'a string');
  }
  if (!Array.isArray(tools)) throw invalid('tools', tools, 'an array');
  const parsed: McpToolDescription[] = [];
  const count = lengthOf(tools);
  for (let index = 0; index < count; index++) {
    const tool: unknown = tools[index];
    try {
      parsed.push(parseTool(tool));
    } catch (error) {
      if (!(error instanceof Misfit)) throw error;
      const name = isJsonRecord(tool) ? tool.name : undefined;
      const label =
        typeof name === 'string' && isShowable(name) ? ` (${JSON.stringify(name)})` : '';
      throw invalid(`tools[${index}]${label}${error.place}`, error.value, error.expected);
    }
  }
  return { tools: parsed, nextCursor };
}

/**
 * A member of a tool that breaks the schema, at a place relative to the
 * tool: the place is written out only when there is a problem to report.
 */
class Misfit extends Error {
  constructor(
    readonly place: string,
    readonly value: unknown,
    readonly expected: string,
  ) {
    super(`${place}: expected ${expected}`);
  }
}

/**
 * A member name every copy drops, as the SDK's schema does: assigned, it
 * would set the copy's prototype instead of a member.
 */
const PROTO = '__proto__';
const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TASK_SUPPORT = ['required', 'optional', 'forbidden'];
const ICON_THEMES = ['light', 'dark'];

function parseTool(tool: unknown): McpToolDescription {
  if (!isJsonRecord(tool)) throw new Misfit('', tool, 'an object');
  const { name } = tool;
  if (typeof name !== 'string') throw new Misfit('.name', name, 'a string');
  const copy: Record<string, unknown> = { name };
  copyOptional(tool, copy, 'title', '', isString, 'a string');
  copyParsed(tool, copy, 'icons', '', parseIcons);
  copyOptional(tool, copy, 'description', '', isString, 'a string');
  copy.inputSchema = parseObjectSchema(tool.inputSchema, '.inputSchema');
  copyParsed(tool, copy, 'outputSchema', '', parseObjectSchema);
  copyParsed(tool, copy, 'annotations', '', parseAnnotations);
  copyParsed(tool, copy, 'execution', '', parseExecution);
  copyParsed(tool, copy, '_meta', '', parseMeta);
  return copy as McpToolDescription;
}

/** `inputSchema` or `outputSchema`: an object schema, copied one level deep as the SDK does. */
function parseObjectSchema(schema: unknown, at: string): Record<string, unknown> {
  if (!isJsonRecord(schema))
    throw new Misfit(at, schema, 'a JSON Schema object with type "object"');
  const { type } = schema;
  if (type !== 'object') throw new Misfit(`${at}.type`, type, '"object"');
  const copy: Record<string, unknown> = { type };
  copyParsed(schema, copy, 'properties', at, parseProperties);
  copyParsed(schema, copy, 'required', at, parseRequired);
  // Every other member, inherited enumerable ones too, as the SDK's catchall copies them.
  for (const key in schema) {
    if (key !== 'type' && key !== 'properties' && key !== 'required' && key !== PROTO) {
      copy[key] = schema[key];
    }
  }
  return copy;
}

function parseAnnotations(annotations: unknown, at: string): Record<string, unknown> {
  if (!isJsonRecord(annotations)) throw new Misfit(at, annotations, 'an object');
  const copy: Record<string, unknown> = {};
  copyOptional(annotations, copy, 'title', at, isString, 'a string');
  for (const hint of ANNOTATION_HINTS) {
    copyOptional(annotations, copy, hint, at, isBoolean, 'a boolean');
  }
  return copy;
}

function parseExecution(execution: unknown, at: string): Record<string, unknown> {
  if (!isJsonRecord(execution)) throw new Misfit(at, execution, 'an object');
  const copy: Record<string, unknown> = {};
  copyOptional(execution, copy, 'taskSupport', at, isOneOf(TASK_SUPPORT), oneOf(TASK_SUPPORT));
  return copy;
}

function parseIcons(icons: unknown, at: string): Record<string, unknown>[] {
  if (!Array.isArray(icons)) throw new Misfit(at, icons, 'an array of icons');
  const copy: Record<string, unknown>[] = [];
  const count = lengthOf(icons);
  for (let index = 0; index < count; index++) {
    const icon: unknown = icons[index];
    const place = `${at}[${index}]`;
    if (!isJsonRecord(icon)) throw new Misfit(place, icon, 'an object');
    const { src } = icon;
    if (typeof src !== 'string') throw new Misfit(`${place}.src`, src, 'a string');
    const parsed: Record<string, unknown> = { src };
    copyOptional(icon, parsed, 'mimeType', place, isString, 'a string');
    copyParsed(icon, parsed, 'sizes', place, parseStrings);
    copyOptional(icon, parsed, 'theme', place, isOneOf(ICON_THEMES), oneOf(ICON_THEMES));
    copy.push(parsed);
  }
  return copy;
}

/** An array of strings, copied; each item read once. */
function parseStrings(list: unknown, at: string): string[] {
  if (!Array.isArray(list)) throw new Misfit(at, list, 'an array of strings');
  const copy: string[] = [];
  const count = lengthOf(list);
  for (let index = 0; index < count; index++) {
    const item: unknown = list[index];
    if (typeof item !== 'string') throw new Misfit(`${at}[${index}]`, item, 'a string');
    copy.push(item);
  }
  return copy;
}

/**
 * A schema's `required`: a plain array of strings is checked where it
 * stands and kept, as a plain `properties` record is (see
 * {@link parseProperties}); any other array is copied.
 */
function parseRequired(list: unknown, at: string): string[] {
  if (!Array.isArray(list) || Object.getPrototypeOf(list) !== Array.prototype) {
    return parseStrings(list, at);
  }
  const count = lengthOf(list);
  for (let index = 0; index < count; index++) {
    const item: unknown = list[index];
    if (typeof item !== 'string') throw new Misfit(`${at}[${index}]`, item, 'a string');
  }
  return list as string[];
}

/**
 * A record, copied: its own enumerable string-keyed members, each value
 * read once (and, for `properties`, required to be an object); a symbol
 * key is refused, as the SDK's record refuses a key that is not a string.
 */
function parseRecord(
  record: unknown,
  at: string,
  membersAreSchemas: boolean,
): Record<string, unknown> {
  if (!isPlainObject(record)) throw new Misfit(at, record, 'a plain object');
  for (const symbol of Object.getOwnPropertySymbols(record)) {
    if (Object.prototype.propertyIsEnumerable.call(record, symbol)) {
      throw new Misfit(at, record, 'an object with string keys only');
    }
  }
  // A spread reads each own enumerable member once and, for an object made
  // by JSON.parse, copies its shape whole: member by member, every record
  // with names of its own made new hidden classes, most of a listing's cost.
  const copy: Record<string, unknown> = { ...record };
  if (Object.hasOwn(copy, PROTO)) delete copy[PROTO];
  // A getter or a proxy may have made a symbol enumerable since the check above.
  for (const symbol of Object.getOwnPropertySymbols(copy))
    delete (copy as Record<symbol, unknown>)[symbol];
  if (membersAreSchemas) {
    for (const key in copy) {
      if (!Object.hasOwn(copy, key)) continue; // a key someone gave Object.prototype
      checkSchemaMember(copy[key], key, at);
    }
  }
  return copy;
}

/**
 * Copies `from[key]`, read once, when present and valid; a member that is
 * there but `undefined` is copied as such, as the SDK does.
 */
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
  if (!valid(value)) throw new Misfit(`${at}.${key}`, value, expected);
  to[key] = value;
}

/**
 * Copies `from[key]`, read once, as `parse` makes it (told its place,
 * `${at}.${key}`), when present; a member that is there but `undefined`
 * is copied as such, as the SDK does.
 */
function copyParsed(
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  key: string,
  at: string,
  parse: (value: unknown, at: string) => unknown,
): void {
  if (!(key in from)) return;
  const value = from[key];
  to[key] = value === undefined ? undefined : parse(value, `${at}.${key}`);
}

/**
 * A schema's `properties`: a record of schemas. A plain record of its own
 * members, as every listing sent as JSON is, is checked where it stands
 * and kept, not copied: copying a record with member names of its own
 * made a hidden class per tool, and was a third of a connect to a server
 * with many tools. It then stays the server's object, as everything
 * under it does already (docs/schemas.md: an in-process server that
 * edits its schemas after listing them changes what the model is shown;
 * the validator keeps its own copy). Any other record (a `__proto__`
 * member, a symbol key, another prototype) is copied as the SDK copies it.
 */
function parseProperties(properties: unknown, at: string): Record<string, unknown> {
  if (!isOwnPlainRecord(properties)) return parseRecord(properties, at, true);
  for (const key in properties) {
    if (!Object.hasOwn(properties, key)) continue; // a key someone gave Object.prototype
    checkSchemaMember(properties[key], key, at);
  }
  return properties;
}

/**
 * A plain object (as the SDK's records require) with `Object.prototype` as
 * its prototype, and neither a symbol key nor an own `__proto__` member:
 * its own enumerable members are what the SDK's record would copy, and
 * the same object may stand for the copy.
 */
function isOwnPlainRecord(value: unknown): value is Record<string, unknown> {
  return (
    isPlainObject(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, PROTO) &&
    Object.getOwnPropertySymbols(value).length === 0
  );
}

/** A member of `properties`, which must be a schema: an object. */
function checkSchemaMember(value: unknown, key: string, at: string): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    const name = isShowable(key) ? JSON.stringify(key) : '…';
    throw new Misfit(`${at}[${name}]`, value, 'an object');
  }
}

/** A tool's `_meta`: a record of anything. */
function parseMeta(meta: unknown, at: string): Record<string, unknown> {
  return parseRecord(meta, at, false);
}

/** An array's length, read once, as a count (a proxy's length could be anything). */
function lengthOf(list: readonly unknown[]): number {
  const length: unknown = list.length;
  return typeof length === 'number' && Number.isSafeInteger(length) && length > 0 ? length : 0;
}

/** Plain as the SDK's records require (zod's test: a constructor that is `Object`-like, or none). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isJsonRecord(value)) return false;
  const constructor: unknown = value.constructor;
  if (typeof constructor !== 'function') return true;
  const prototype: unknown = (constructor as { prototype?: unknown }).prototype;
  return isJsonRecord(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

function isBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

function isOneOf(options: readonly string[]): (value: unknown) => boolean {
  return (value) => typeof value === 'string' && options.includes(value);
}

function oneOf(options: readonly string[]): string {
  return `one of ${options.map((option) => JSON.stringify(option)).join(', ')}`;
}

function invalid(at: string, value: unknown, expected: string): ToolListingError {
  return new ToolListingError(
    `tools/list sent ${at} = ${describeSent(value)}; expected ${expected}`,
  );
}
