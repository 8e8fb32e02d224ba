import type { ToolPermission } from '../mcp/config-types.js';
import type { ToolAnnotations } from '../tools/tool.js';

/**
 * A tool's permissions: the configured list when there is one; otherwise
 * `connect` when its MCP annotations say `openWorldHint: true`, plus `read`
 * for `readOnlyHint: true`.
 */
export function resolvePermissions(
  configured: readonly ToolPermission[] | undefined,
  annotations: ToolAnnotations | undefined,
): readonly ToolPermission[] {
  if (configured !== undefined) return configured;
  const inferred: ToolPermission[] = [];
  if (annotations?.readOnlyHint === true) inferred.push('read');
  if (annotations?.openWorldHint === true) inferred.push('connect');
  return inferred;
}

/** Why a call must be refused while the session holds private data, or undefined. */
export function connectRefusal(
  toolName: string,
  permissions: readonly ToolPermission[],
  hasPrivateData: boolean,
): string | undefined {
  if (!hasPrivateData || !permissions.includes('connect')) return undefined;
  return (
    `tool "${toolName}" is blocked: it has the "connect" permission and the session holds private data, ` +
    'so it could send that data out of the network'
  );
}
