import { describe, expect, it } from 'vitest';
import * as server from '../../src/server/index.js';

describe('mcp-sections/server public surface', () => {
  it('exports exactly these runtime names (change on purpose)', () => {
    expect(Object.keys(server).sort()).toEqual([
      'CONTEXT_PRESETS',
      'ContextResultError',
      'DEFAULT_CLOCK_TOLERANCE_SEC',
      'DEFAULT_HTTP_HOST',
      'DEFAULT_JWKS_ALGORITHMS',
      'DEFAULT_MAX_READ_BYTES',
      'DEFAULT_MAX_REQUEST_BODY_BYTES',
      'DEFAULT_MAX_SESSIONS',
      'DEFAULT_MAX_SESSIONS_PER_USER',
      'DEFAULT_MCP_PATH',
      'DEFAULT_SERVER_VERSION',
      'DEFAULT_SESSION_IDLE_TIMEOUT_MS',
      'FATAL_PREFIX',
      'MIN_HMAC_SECRET_BYTES',
      'McpConfigError',
      'NO_PRIVATE_DATA',
      'PRIVATE_DATA_FILE_NAME',
      'PRIVATE_DATA_META_KEY',
      'PrivateDataError',
      'PrivateDataStore',
      'RESULTS_DIR',
      'SERVER_NAME_PATTERN',
      'SERVER_TOOL_NAME_PATTERN',
      'ServerContextError',
      'ServerOptionsError',
      'ServerToolkitError',
      'TOOL_PERMISSIONS',
      'TOOL_PERMISSIONS_META_KEY',
      'TokenRejectedError',
      'ToolFatalError',
      'ToolRetryError',
      'WORKSPACE_PREFIX',
      'WorkspacePathError',
      'contextResult',
      'createMcpServer',
      'createTokenVerifier',
      'defineTool',
      'getIdentity',
      'getSessionId',
      'getUserId',
      'hostToWorkspacePath',
      'loadMcpConfig',
      'permissionAnnotations',
      'privateData',
      'readWorkspaceFile',
      'runWithIdentity',
      'serveHttp',
      'signIdentityToken',
      'workspaceToHostPath',
      'writeWorkspaceFile',
    ]);
  });

  it('keeps the wire constants the client relies on', () => {
    expect(server.PRIVATE_DATA_META_KEY).toBe('mcp-sections/private-data');
    expect(server.FATAL_PREFIX).toBe('[FATAL] ');
    expect(new server.ToolFatalError('db down').message).toBe('[FATAL] db down');
    expect(server.CONTEXT_PRESETS.default.threshold).toBe(5000);
    expect(server.CONTEXT_PRESETS.sql_query.threshold).toBe(2000);
    expect(server.CONTEXT_PRESETS.log_search.threshold).toBe(10000);
  });

  it('shares only core modules that import nothing but Node built-ins and each other', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const dir = new URL('../../src/core/', import.meta.url);
    for (const file of await readdir(dir)) {
      const text = await readFile(new URL(file, dir), 'utf8');
      for (const [, target] of text.matchAll(/from '([^']+)'/g)) {
        expect(target).toMatch(/^(node:|\.\/[a-z-]+\.js$)/);
      }
    }
  });
});
