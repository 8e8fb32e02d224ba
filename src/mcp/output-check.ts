import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createInputValidator } from './schema/index.js';
import { messageOf } from '../core/errors.js';
import type { SecretRedactor } from './redact.js';

/**
 * Why a successful result breaks the tool's declared `outputSchema`, or
 * undefined when it keeps it (or declares none). The check uses the same
 * engine as arguments: no code generated from the server's schema. A tool
 * that declares an output schema must return `structuredContent` (MCP).
 * With `redactor`, the server's secrets are masked in the message.
 */
export function outputSchemaViolation(
  outputSchema: unknown,
  result: CallToolResult,
  ids: { readonly serverName: string; readonly toolName: string },
  redactor?: SecretRedactor,
): string | undefined {
  const violation = violationOf(outputSchema, result, ids);
  if (violation === undefined || redactor?.hasSecrets !== true) return violation;
  // The message quotes the server's values, cut and escaped, where masking
  // could no longer find a secret: it is written again from masked copies.
  const masked = violationOf(redactor.redactData(outputSchema), redactor.redactData(result), ids);
  return redactor.redact(
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
