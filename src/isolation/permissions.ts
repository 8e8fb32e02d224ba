import type { ToolPermission } from '../config/server-config.js';
import type { ToolAnnotations } from '../tools/tool.js';

/** What is known of a tool's reach, from the config or its MCP annotations. */
export interface ToolReach {
  /** The tool's permissions: configured, or inferred from its annotations. */
  readonly permissions: readonly ToolPermission[];
  /**
   * True when the tool was *declared* able to reach the network: a
   * configured `connect`, or `openWorldHint: true`.
   */
  readonly declaredConnect: boolean;
  /**
   * True when the tool was *declared* unable to: configured permissions
   * without `connect`, or `openWorldHint: false`. A tool that says nothing
   * is neither: MCP defines a missing `openWorldHint` as true.
   */
  readonly declaredClosedWorld: boolean;
}

/**
 * A tool's reach: the configured permission list when there is one;
 * otherwise inferred from its MCP annotations, `read` for
 * `readOnlyHint: true` and `connect` unless `openWorldHint: false`.
 */
export function resolveReach(
  configured: readonly ToolPermission[] | undefined,
  annotations: ToolAnnotations | undefined,
): ToolReach {
  if (configured !== undefined) {
    const connect = configured.includes('connect');
    return { permissions: configured, declaredConnect: connect, declaredClosedWorld: !connect };
  }
  const readOnly = annotations?.readOnlyHint === true;
  const hint = annotations?.openWorldHint;
  // Six readings in all, shared and frozen: a connect bridges thousands of tools.
  const key = (readOnly ? 3 : 0) + (hint === true ? 1 : hint === false ? 2 : 0);
  return (INFERRED_REACHES[key] ??= inferredReach(readOnly, hint));
}

/** The reaches inferred from annotations, by readOnlyHint and openWorldHint (see {@link resolveReach}). */
const INFERRED_REACHES: ToolReach[] = [];

function inferredReach(readOnly: boolean, hint: boolean | undefined): ToolReach {
  const permissions: ToolPermission[] = [];
  if (readOnly) permissions.push('read');
  if (hint !== false) permissions.push('connect');
  return Object.freeze({
    permissions: Object.freeze(permissions),
    declaredConnect: hint === true,
    declaredClosedWorld: hint === false,
  });
}

/**
 * The stricter of two readings of one tool's reach (as bridged, and as its
 * server lists it now): declared able to reach the network if either says
 * so, declared closed-world only if both do.
 */
export function stricterReach(a: ToolReach, b: ToolReach): ToolReach {
  if (a === b) return a;
  return {
    permissions: [...new Set([...a.permissions, ...b.permissions])],
    declaredConnect: a.declaredConnect || b.declaredConnect,
    declaredClosedWorld: a.declaredClosedWorld && b.declaredClosedWorld,
  };
}

/** What the refusal decision needs to know of the session and the server. */
export interface RefusalContext {
  /** The session's level is above `public`. */
  readonly hasPrivateData: boolean;
  /** The server has an isolated endpoint or sandbox configured. */
  readonly serverIsolated: boolean;
}

/**
 * Why a call must be refused while the session holds private data, or
 * undefined. On an isolated server the isolation protects, and only tools
 * declared network-capable are refused; on any other server every tool
 * not declared closed-world is refused.
 */
export function callRefusal(
  toolName: string,
  reach: ToolReach,
  context: RefusalContext,
): string | undefined {
  if (!context.hasPrivateData) return undefined;
  if (reach.declaredConnect) {
    return (
      `tool "${toolName}" is blocked: it has the "connect" permission and the session holds private data, ` +
      'so it could send that data out of the network'
    );
  }
  if (context.serverIsolated || reach.declaredClosedWorld) return undefined;
  return (
    `tool "${toolName}" is blocked: the session holds private data, its server has no isolation, ` +
    'and the tool is not declared closed-world (openWorldHint: false, or permissions without "connect"), ' +
    'so MCP counts it as able to reach the network'
  );
}
