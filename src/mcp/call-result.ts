/**
 * Reading a `tools/call` result as the SDK reads it for `Client.callTool`
 * (`CallToolResultSchema`, through its own zod adapter), with the common
 * answer checked directly: text blocks (without annotations or `_meta`)
 * and at most an `isError` flag. Anything else (structured content,
 * `_meta`, images, resources, annotations, unknown members of the result)
 * goes through the schema, which gives the verdict; a broken result's error says where and
 * how, where the SDK's is zod's whole report. The direct check accepts
 * only what the schema accepts, and gives what it gives: a copy of the
 * result and its blocks, so that nothing the server still holds (an
 * in-process server's own objects) is shared with the session.
 */
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { boundedQuote } from '../core/errors.js';
import { isPlainObject } from '../core/json.js';

/**
 * The server's `tools/call` result, checked.
 * @throws Error naming where the result breaks the MCP schema and how (the
 *   schema's ZodError, which the SDK would reject with, as its cause).
 */
export function readCallToolResult(result: unknown): CallToolResult {
  const plain = plainTextResult(result);
  if (plain !== undefined) return plain;
  const parsed = safeParse(CallToolResultSchema, result);
  if (parsed.success) return parsed.data;
  const { error } = parsed as { readonly error: { readonly issues: readonly Issue[] } };
  throw new Error(
    boundedQuote(`its result breaks the MCP schema: ${describeIssues(error.issues)}`),
    { cause: error },
  );
}

/** Most problems a broken result's error names. */
const MAX_DESCRIBED_ISSUES = 5;

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
  return path.length === 0 ? '(result)' : path.map(String).join('.');
}

/**
 * A copy of `result` when it is text blocks and an optional `isError`,
 * nothing else. The members the schema reads are read as it reads them
 * (a getter, an inherited or a hidden member counts: such a result goes
 * to the schema); any other member goes to the schema too, which keeps it.
 */
function plainTextResult(result: unknown): CallToolResult | undefined {
  if (!isPlainObject(result)) return undefined;
  const { content: blocks, isError, structuredContent, _meta } = result;
  if (structuredContent !== undefined || _meta !== undefined) return undefined;
  if (isError !== undefined && typeof isError !== 'boolean') return undefined;
  for (const key in result) if (key !== 'content' && key !== 'isError') return undefined;
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
  if (!isPlainObject(block)) return undefined;
  const { type, text, annotations, _meta } = block;
  if (type !== 'text' || typeof text !== 'string') return undefined;
  return annotations === undefined && _meta === undefined ? text : undefined;
}
