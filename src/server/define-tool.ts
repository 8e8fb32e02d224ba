/**
 * `defineTool`: registers a tool on a `createMcpServer` server and wraps its
 * handler so that the rules hold without the author thinking about them:
 *
 * 1. the handler runs with the caller's identity and the server's settings
 *    in context (`getUserId()`, `workspaceToHostPath()`, `privateData.add()`);
 * 2. a `connect` tool is refused, unrun, once the caller's session holds
 *    private data (and when that cannot be checked: fail closed);
 * 3. `ToolRetryError` and `ToolFatalError` become `isError` results; only
 *    the latter may start with `[FATAL] ` (a leading one is neutralised in
 *    any other error, returned ones included); any other error, an SDK
 *    `McpError` included, is logged and reported generically, since its
 *    message may hold host paths or other internals (only a URL-elicitation
 *    request is left for the SDK to answer, and only before private data);
 * 4. if the handler called `privateData.add`, the result carries the
 *    `_meta["mcp-sections/private-data"]` marker.
 */
import type {
  McpServer,
  RegisteredTool,
  ToolCallback,
} from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  ShapeOutput,
  ZodRawShapeCompat,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  ErrorCode,
  McpError as SdkMcpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { PRIVATE_DATA_META_KEY, type PrivateDataMarker } from '../core/sensitivity.js';
import { toolkitSettingsOf, type ToolkitServerSettings } from './create-server.js';
import {
  ServerOptionsError,
  ToolFatalError,
  ToolRetryError,
  WorkspacePathError,
} from './errors.js';
import { identityFromAuthInfo } from './identity-auth-info.js';
import {
  TOOL_PERMISSIONS_META_KEY,
  checkPermissions,
  permissionAnnotations,
  type ToolPermission,
} from './permissions.js';
import { PrivateDataStore, strongestMarker, type SessionPrivateData } from './private-data.js';
import { getIdentity, runInScope, type Identity } from './request-context.js';

/** What the SDK passes a tool handler besides its arguments (signal, notifications...). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A handler's return value: text, or a full MCP result. */
export type ToolOutput = string | CallToolResult;

/** A tool handler: validated arguments in, text or a result out. */
export type ServerToolHandler<Shape extends ZodRawShapeCompat> = (
  args: ShapeOutput<Shape>,
  extra: ToolExtra,
) => ToolOutput | Promise<ToolOutput>;

/** A tool for {@link defineTool}. */
export interface ServerToolDefinition<Shape extends ZodRawShapeCompat> {
  /** `^[A-Za-z0-9_.-]{1,64}$`. */
  readonly name: string;
  readonly title?: string;
  /** What the tool does, for the model. Must not be blank. */
  readonly description: string;
  /** What the tool may do; `connect` tools are blocked once a session holds private data. */
  readonly permissions: readonly ToolPermission[];
  /** A zod raw shape, e.g. `{ path: z.string() }`. @default {} */
  readonly inputSchema?: Shape;
  /**
   * Extra MCP annotations. `readOnlyHint` and `openWorldHint` are derived
   * from `permissions` and cannot be set here.
   */
  readonly annotations?: Omit<ToolAnnotations, 'readOnlyHint' | 'openWorldHint'>;
  readonly handler: ServerToolHandler<Shape>;
}

/** Tool names accepted by {@link defineTool}. */
export const SERVER_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Registers `definition` on `server` with the toolkit's wiring.
 *
 * @returns The SDK's handle (enable, disable, remove).
 * @throws {ServerOptionsError} for a server not made by `createMcpServer`, a
 *   bad name, a blank description or bad permissions.
 * @example
 * ```ts
 * defineTool(server, {
 *   name: 'read_file',
 *   description: 'Read a text file from the workspace',
 *   permissions: ['read'],
 *   inputSchema: { path: z.string() },
 *   handler: async ({ path }, extra) => contextResult(await readWorkspaceFile(path, { signal: extra.signal })),
 * });
 * ```
 */
export function defineTool<Shape extends ZodRawShapeCompat = Record<never, never>>(
  server: McpServer,
  definition: ServerToolDefinition<Shape>,
): RegisteredTool {
  const settings = toolkitSettingsOf(server);
  const { name } = definition;
  if (typeof name !== 'string' || !SERVER_TOOL_NAME_PATTERN.test(name)) {
    throw new ServerOptionsError(
      'name',
      `tool name ${JSON.stringify(name)} must match ${String(SERVER_TOOL_NAME_PATTERN)}`,
    );
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    throw new ServerOptionsError('description', `tool "${name}" needs a non-blank description`);
  }
  if (typeof definition.handler !== 'function') {
    throw new ServerOptionsError('handler', `tool "${name}" needs a handler function`);
  }
  const permissions = checkPermissions(name, definition.permissions);
  const annotations: ToolAnnotations = {
    ...definition.annotations,
    ...permissionAnnotations(permissions),
  };

  const callback = (args: ShapeOutput<Shape>, extra: ToolExtra): Promise<CallToolResult> =>
    runTool(definition, settings, permissions, args, extra);

  const config: {
    description: string;
    inputSchema: Shape;
    annotations: ToolAnnotations;
    _meta: Record<string, unknown>;
    title?: string;
  } = {
    description: definition.description,
    // Always a shape, so the SDK always calls back with (args, extra).
    inputSchema: definition.inputSchema ?? ({} as Shape),
    annotations,
    _meta: { [TOOL_PERMISSIONS_META_KEY]: [...permissions] },
  };
  if (definition.title !== undefined) config.title = definition.title;
  // The SDK's callback type is conditional on the schema type, which
  // TypeScript cannot resolve for a generic `Shape`; the shape is always
  // present, so the (args, extra) form is the one the SDK calls.
  return server.registerTool(name, config, callback as unknown as ToolCallback<Shape>);
}

async function runTool<Shape extends ZodRawShapeCompat>(
  definition: ServerToolDefinition<Shape>,
  settings: ToolkitServerSettings,
  permissions: readonly ToolPermission[],
  args: ShapeOutput<Shape>,
  extra: ToolExtra,
): Promise<CallToolResult> {
  // The SDK's per-request AuthInfo is authoritative; the ambient identity
  // serves in-process callers (runWithIdentity over an in-memory transport).
  const identity = identityFromAuthInfo(extra.authInfo) ?? getIdentity();
  const markers: PrivateDataMarker[] = [];
  return runInScope({ identity, settings, privateDataMarkers: markers }, async () => {
    if (permissions.includes('connect')) {
      const refusal = await connectRefusal(definition.name, identity, settings);
      if (refusal !== undefined) return refusal;
    }
    let result: CallToolResult;
    try {
      result = toCallToolResult(definition.name, await definition.handler(args, extra));
    } catch (error) {
      // The one error the SDK must answer itself (as a JSON-RPC error the
      // client acts on): but never once private data entered, since a thrown
      // error cannot carry the marker. Every other McpError (a failed
      // sampling, elicitation or sendRequest) is an error like any other.
      if (isUrlElicitationRequired(error) && markers.length === 0) throw error;
      result = errorResult(definition.name, error, extra, settings);
    }
    return withPrivateDataMarker(result, strongestMarker(markers));
  });
}

/** The refusal of a `connect` tool, or `undefined` when it may run. */
async function connectRefusal(
  toolName: string,
  identity: Identity | undefined,
  settings: ToolkitServerSettings,
): Promise<CallToolResult | undefined> {
  if (identity === undefined) {
    return textResult(
      `Tool "${toolName}" was not run: it has the "connect" permission and the caller's session ` +
        `is unknown, so its private-data state cannot be checked.`,
      true,
    );
  }
  let state: SessionPrivateData;
  try {
    state = await new PrivateDataStore(settings.privateDataDir).read(identity);
  } catch (error) {
    settings.onToolError(error, toolName);
    return textResult(
      `Tool "${toolName}" was not run: it has the "connect" permission and this session's ` +
        `private-data state cannot be read, so connect tools are blocked.`,
      true,
    );
  }
  if (!state.hasPrivateData) return undefined;
  const refusal = textResult(
    `Tool "${toolName}" was not run: it has the "connect" permission, and this session holds ` +
      `private data (${state.sensitivity}: ${state.datasets.join(', ')}). Connect tools are ` +
      `blocked once private data enters a session; continue with tools that stay local.`,
    true,
  );
  // Repeat the marker, so a client that missed the first one ratchets now.
  const dataset = state.datasets[state.datasets.length - 1];
  return dataset === undefined
    ? refusal
    : withPrivateDataMarker(refusal, { dataset, sensitivity: state.sensitivity });
}

function toCallToolResult(toolName: string, output: unknown): CallToolResult {
  if (typeof output === 'string') return textResult(output, false);
  if (
    typeof output === 'object' &&
    output !== null &&
    Array.isArray((output as CallToolResult).content)
  ) {
    const result = output as CallToolResult;
    return result.isError === true ? withoutFatalLead(result) : result;
  }
  throw new TypeError(
    `handler of tool "${toolName}" returned ${output === null ? 'null' : typeof output}; ` +
      `return a string (contextResult() makes one) or a CallToolResult`,
  );
}

function errorResult(
  toolName: string,
  error: unknown,
  extra: ToolExtra,
  settings: ToolkitServerSettings,
): CallToolResult {
  if (error instanceof ToolFatalError) return textResult(error.message, true);
  if (error instanceof ToolRetryError) return textResult(notFatal(error.message), true);
  if (error instanceof WorkspacePathError && error.agentFacing) {
    return textResult(notFatal(error.message), true);
  }
  if (extra.signal.aborted) return textResult(`Tool "${toolName}" was cancelled.`, true);
  settings.onToolError(error, toolName);
  return textResult(
    `Tool "${toolName}" failed with an internal error; the details are in the server log.`,
    true,
  );
}

function isUrlElicitationRequired(error: unknown): boolean {
  return (
    error instanceof SdkMcpError && (error.code as ErrorCode) === ErrorCode.UrlElicitationRequired
  );
}

/** `FATAL_PREFIX` at the start of a message, allowing for leading white space and case. */
const LOOKS_FATAL = /^\s*\[FATAL\]/i;

/**
 * Keeps a retryable message from reading as fatal: one that starts with
 * `[FATAL] ` (say, because it quotes a path the model chose) gets `Error: `
 * in front, so that only a `ToolFatalError` aborts the client's run.
 */
function notFatal(message: string): string {
  return LOOKS_FATAL.test(message) ? `Error: ${message}` : message;
}

/**
 * An error result a handler returned itself, with a leading `[FATAL] `
 * neutralised: the client reads the first block as the start of the
 * message, and only a `ToolFatalError` may abort the run.
 */
function withoutFatalLead(result: CallToolResult): CallToolResult {
  const [first, ...rest] = result.content;
  if (first?.type === 'text') {
    const text = notFatal(first.text);
    return text === first.text ? result : { ...result, content: [{ ...first, text }, ...rest] };
  }
  if (
    first?.type === 'resource' &&
    'text' in first.resource &&
    LOOKS_FATAL.test(first.resource.text)
  ) {
    return { ...result, content: [{ type: 'text', text: 'Error:' }, ...result.content] };
  }
  return result;
}

function textResult(text: string, isError: boolean): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (isError) result.isError = true;
  return result;
}

function withPrivateDataMarker(
  result: CallToolResult,
  marker: PrivateDataMarker | undefined,
): CallToolResult {
  if (marker === undefined) return result;
  return {
    ...result,
    _meta: {
      ...result._meta,
      [PRIVATE_DATA_META_KEY]: { dataset: marker.dataset, sensitivity: marker.sensitivity },
    },
  };
}
