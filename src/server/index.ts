/**
 * `mcp-sections/server`: a toolkit for writing MCP servers that keep the
 * rules of the client side — JWT identity, per-session workspaces,
 * context-sized results, declared permissions, private-data compliance,
 * two-tier errors and `config.yaml` loading. See `docs/server.md`.
 *
 * Every public name is listed here; nothing else is part of the API.
 */

// Building and serving a server.
export { createMcpServer, DEFAULT_SERVER_VERSION } from './create-server.js';
export type { CreateMcpServerOptions } from './create-server.js';
export { defineTool, SERVER_TOOL_NAME_PATTERN } from './define-tool.js';
export type {
  ServerToolDefinition,
  ToolExtra,
  ServerToolHandler,
  ToolOutput,
} from './define-tool.js';
export {
  serveHttp,
  DEFAULT_HTTP_HOST,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_USER,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_IDLE_TIMEOUT_MS,
} from './serve-http.js';
export type { HttpServerHandle, McpServerFactory, ServeHttpOptions } from './serve-http.js';

// Identity.
export {
  createTokenVerifier,
  signIdentityToken,
  TokenRejectedError,
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_JWKS_ALGORITHMS,
  MIN_HMAC_SECRET_BYTES,
} from './jwt.js';
export type {
  HmacJwtOptions,
  JwksJwtOptions,
  JwtAuthOptions,
  JwtCommonOptions,
  SignIdentityTokenOptions,
  TokenRejection,
  TokenVerifier,
  VerifiedToken,
} from './jwt.js';
export { getIdentity, getSessionId, getUserId, runWithIdentity } from './request-context.js';
export type { Identity } from './request-context.js';

// Workspace.
export { hostToWorkspacePath, workspaceToHostPath, WORKSPACE_PREFIX } from './workspace.js';
export type { WorkspaceScope } from './workspace.js';
export { DEFAULT_MAX_READ_BYTES, readWorkspaceFile, writeWorkspaceFile } from './workspace-file.js';
export type {
  ReadWorkspaceFileOptions,
  WorkspaceFileOptions,
  WriteWorkspaceFileOptions,
} from './workspace-file.js';

// Context-sized results.
export { contextResult, RESULTS_DIR } from './context-result.js';
export type { ContextResultOptions } from './context-result.js';
export { CONTEXT_PRESETS } from './context-presets.js';
export type { ContextPreset, ContextPresetName } from './context-presets.js';
export type { ResultFormat } from './result-format.js';

// Permissions and compliance.
export {
  permissionAnnotations,
  TOOL_PERMISSIONS,
  TOOL_PERMISSIONS_META_KEY,
} from './permissions.js';
export type { ToolPermission } from './permissions.js';
export {
  privateData,
  PrivateDataStore,
  NO_PRIVATE_DATA,
  PRIVATE_DATA_FILE_NAME,
} from './private-data.js';
export type { SessionPrivateData } from './private-data.js';
export { PRIVATE_DATA_META_KEY } from '../core/sensitivity.js';
export type { DataSensitivity, PrivateDataMarker } from '../core/sensitivity.js';

// Errors.
export {
  ContextResultError,
  PrivateDataError,
  ServerContextError,
  ServerOptionsError,
  ServerToolkitError,
  ToolFatalError,
  ToolRetryError,
  WorkspacePathError,
} from './errors.js';
export type { ServerToolkitErrorCode, WorkspacePathReason } from './errors.js';
export { FATAL_PREFIX, McpConfigError } from '../core/errors.js';

// Configuration.
export { loadMcpConfig } from '../config/config-yaml.js';
export { SERVER_NAME_PATTERN } from '../config/server-config.js';
export type { LoadMcpConfigOptions } from '../config/config-yaml.js';
export type { EnvironmentVariables } from '../config/env-expansion.js';
export type { McpServerConfig } from '../config/server-config.js';
