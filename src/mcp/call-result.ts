/**
 * Reading a `tools/call` result as the SDK reads it for `Client.callTool`
 * (`CallToolResultSchema`, through its own zod adapter), with the common
 * answer checked directly: text blocks (without annotations or `_meta`)
 * and at most an `isError` flag. Anything else (structured content,
 * `_meta`, images, resources, annotations, unknown members of the result)
 * goes through the schema, which gives the verdict; a broken result's error says where and
 * how, where the SDK's is zod's whole report. The direct check accepts
 * only what the schema accepts, and gives what it gives: a copy of the
 * result and its blocks, as the schema copies what it parses (values it
 * does not parse, such as structured content's, it keeps as sent, an
 * in-process server's own objects included).
 */
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cutText } from '../core/well-formed.js';
import { isPlainObject } from '../core/json.js';

/**
 * The server's `tools/call` result, checked.
 * @throws Error naming where the result breaks the MCP schema and how (the
 *   schema's ZodError, which the SDK would reject with, as its cause).
 */
export function readCallToolResult(result: unknown): CallToolResult {
  const plain = directRead(result);
  if (plain !== undefined) return plain;
  const parsed = safeParse(CallToolResultSchema, result);
  if (parsed.success) return parsed.data;
  const { error } = parsed as { readonly error: { readonly issues: readonly Issue[] } };
  throw new Error(`its result breaks the MCP schema: ${describeIssues(error.issues)}`, {
    cause: error,
  });
}

/**
 * The direct check's copy, or undefined for the schema to decide: also
 * when reading the result throws (an in-process server's proxy or getter),
 * which the schema may not have to read. A getter is read again by the
 * schema then, and may answer differently.
 */
function directRead(result: unknown): CallToolResult | undefined {
  try {
    return plainTextResult(result);
  } catch {
    return undefined;
  }
}

/** Most problems a broken result's error names. */
const MAX_DESCRIBED_ISSUES = 5;

/** Longest piece of a path an error writes (an in-process server's symbol can be any length). */
const MAX_PATH_PIECE_CHARS = 100;

/** One problem as zod reports it; a union's has each form's problems. */
interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly errors?: readonly (readonly Issue[])[];
}

/**
 * `issues` as `content.0.text: Invalid input: expected string…`. A content
 * block that fails every form is described by the form its `type` names
 * (zod lists every form's problems); with no such form, as a block of no
 * known type.
 */
function describeIssues(issues: readonly Issue[]): string {
  const lines: string[] = [];
  collect(issues, [], lines);
  const more = lines.length > MAX_DESCRIBED_ISSUES ? '; and more' : '';
  return `${lines.slice(0, MAX_DESCRIBED_ISSUES).join('; ')}${more}`;
}

function collect(issues: readonly Issue[], prefix: readonly PropertyKey[], lines: string[]): void {
  for (const issue of issues) {
    if (lines.length > MAX_DESCRIBED_ISSUES) return;
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors !== undefined) {
      const named = issue.errors.find((form) => !form.some(isTypeMismatch));
      if (named !== undefined) collect(named, path, lines);
      else lines.push(`${where(path)}: not a content block of a type MCP knows`);
      continue;
    }
    lines.push(`${where(path)}: ${issue.message}`);
  }
}

function isTypeMismatch(issue: Issue): boolean {
  return issue.code === 'invalid_value' && issue.path.length === 1 && issue.path[0] === 'type';
}

function where(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(result)';
  return path.map((piece) => cutText(String(piece), MAX_PATH_PIECE_CHARS)).join('.');
}

/**
 * A copy of `result` when it is text blocks and an optional `isError`,
 * nothing else. The members the schema reads are looked for as it looks
 * (`in`: a getter, an inherited or a hidden member counts, and such a
 * result goes to the schema); any other member goes to the schema too,
 * which keeps it.
 */
function plainTextResult(result: unknown): CallToolResult | undefined {
  if (!isPlainObject(result) || 'structuredContent' in result || '_meta' in result) {
    return undefined;
  }
  let isError: boolean | undefined;
  if ('isError' in result) {
    const flag = result['isError'];
    if (typeof flag !== 'boolean') return undefined;
    isError = flag;
  }
  for (const key in result) if (key !== 'content' && key !== 'isError') return undefined;
  const blocks = result['content'];
  if (!Array.isArray(blocks) || Object.getPrototypeOf(blocks) !== Array.prototype) return undefined;
  const content: CallToolResult['content'] = [];
  for (let index = 0; index < blocks.length; index += 1) {
    const text = plainText(blocks[index]);
    if (text === undefined) return undefined;
    content.push({ type: 'text', text });
  }
  return isError === undefined ? { content } : { content, isError };
}

/**
 * The text of a text block with nothing the schema would keep beside it
 * (other members it drops, as the schema does).
 */
function plainText(block: unknown): string | undefined {
  if (!isPlainObject(block) || 'annotations' in block || '_meta' in block) return undefined;
  const { type, text } = block;
  return type === 'text' && typeof text === 'string' ? text : undefined;
}
