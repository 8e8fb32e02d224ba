import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createInputValidator } from './schema/index.js';
import { messageOf } from '../core/errors.js';

/**
 * What masks the secrets a violation's message may quote: in the data it
 * quotes (masked before the message cuts a value short), and in its text.
 */
export interface QuoteMask {
  readonly data: <T>(value: T) => T;
  readonly text: (text: string) => string;
}

/**
 * Why a successful result breaks the tool's declared `outputSchema`, or
 * undefined when it keeps it (or declares none). The check uses the same
 * engine as arguments: no code generated from the server's schema. A tool
 * that declares an output schema must return `structuredContent` (MCP).
 * With `mask` (asked for only when the result breaks the schema), the
 * secrets it masks are masked in the message: the server's own, and the
 * call's secret arguments the server may echo.
 */
export function outputSchemaViolation(
  outputSchema: unknown,
  result: CallToolResult,
  ids: { readonly serverName: string; readonly toolName: string },
  mask?: () => QuoteMask | undefined,
): string | undefined {
  const violation = violationOf(outputSchema, result, ids);
  const masks = violation === undefined ? undefined : mask?.();
  if (violation === undefined || masks === undefined) return violation;
  // The message quotes the server's values, cut and escaped, where masking
  // could no longer find a secret: it is written again from masked copies.
  const masked = violationOf(masks.data(outputSchema), masks.data(result), ids);
  return masks.text(
    masked ??
      `tool "${ids.toolName}" of server "${ids.serverName}" returned structuredContent that does not match its outputSchema`,
  );
}

function violationOf(
  outputSchema: unknown,
  result: CallToolResult,
  ids: { readonly serverName: string; readonly toolName: string },
): string | undefined {
  if (outputSchema === undefined || result.isError === true) return undefined;
  if (result.structuredContent === undefined) {
    return `tool "${ids.toolName}" of server "${ids.serverName}" declares an outputSchema but returned no structuredContent`;
  }
  let validator;
  try {
    validator = createInputValidator(outputSchema, ids);
  } catch (error) {
    return `tool "${ids.toolName}" of server "${ids.serverName}" has an outputSchema that cannot be used: ${messageOf(error)}`;
  }
  const parsed = validator.safeParse(result.structuredContent);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.length === 0 ? '(result)' : issue.path.map(String).join('.');
      return `${at}: ${issue.message}`;
    })
    .join('; ');
  return `tool "${ids.toolName}" of server "${ids.serverName}" returned structuredContent that does not match its outputSchema: ${issues}`;
}
