/**
 * Tool permissions on the server: every tool declares what it may do, and
 * the declaration is published in the tool's MCP annotations (and `_meta`)
 * so that a client can enforce the same rules without being told twice.
 */
import type { ToolPermission } from '../config/server-config.js';
import { ServerOptionsError } from './errors.js';

export type { ToolPermission } from '../config/server-config.js';

/** Every permission, in a stable order. */
export const TOOL_PERMISSIONS: readonly ToolPermission[] = Object.freeze([
  'read',
  'write',
  'connect',
]);

/** Key under a tool definition's `_meta` listing its declared permissions. */
export const TOOL_PERMISSIONS_META_KEY = 'mcp-sections/permissions';

/**
 * Checks a tool's declared permissions and returns them without duplicates.
 *
 * @throws {ServerOptionsError} for an empty list or an unknown permission,
 *   naming the tool, the position and the value.
 */
export function checkPermissions(
  toolName: string,
  permissions: unknown,
): readonly ToolPermission[] {
  if (!Array.isArray(permissions) || permissions.length === 0) {
    throw new ServerOptionsError(
      'permissions',
      `tool "${toolName}" must declare its permissions as a non-empty list of read, write, connect; got ${JSON.stringify(permissions)}`,
    );
  }
  const seen = new Set<ToolPermission>();
  permissions.forEach((permission: unknown, index) => {
    if (!(TOOL_PERMISSIONS as readonly unknown[]).includes(permission)) {
      throw new ServerOptionsError(
        `permissions[${index}]`,
        `permissions[${index}] of tool "${toolName}" must be one of read, write, connect; got ${JSON.stringify(permission)}`,
      );
    }
    seen.add(permission as ToolPermission);
  });
  return Object.freeze(TOOL_PERMISSIONS.filter((p) => seen.has(p)));
}

/**
 * The MCP annotations implied by `permissions`. Both hints are always set,
 * because MCP takes an absent `openWorldHint` as `true` and an absent
 * `readOnlyHint` as `false`.
 *
 * @example
 * ```ts
 * permissionAnnotations(['read']);    // { readOnlyHint: true, openWorldHint: false }
 * permissionAnnotations(['connect']); // { readOnlyHint: false, openWorldHint: true }
 * ```
 */
export function permissionAnnotations(permissions: readonly ToolPermission[]): {
  readonly readOnlyHint: boolean;
  readonly openWorldHint: boolean;
} {
  return {
    readOnlyHint: permissions.every((p) => p === 'read'),
    openWorldHint: permissions.includes('connect'),
  };
}
