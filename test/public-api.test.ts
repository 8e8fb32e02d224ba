import { describe, expect, it } from 'vitest';
import {
  EvaluateError,
  McpConfigError,
  McpConnectionError,
  McpError,
  McpFatalToolError,
  McpSchemaError,
  McpTimeoutError,
  McpToolError,
  PromptError,
  PromptOverridesError,
  PromptRenderError,
  PromptValidationError,
} from '../src/index.js';

describe('public API', () => {
  // The public surface changes on purpose only: adding or removing an export
  // means editing this list in the same change.
  it('exports exactly these runtime names', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'ANTHROPIC_IMAGE_TYPES',
      'CONTENT_HASH_PATTERN',
      'DATA_SENSITIVITY_LEVELS',
      'DEFAULT_ANTHROPIC_MAX_TOKENS',
      'DEFAULT_APPROVAL_TIMEOUT_MS',
      'DEFAULT_FILE_LOCK_TIMEOUT_MS',
      'DEFAULT_HEALTH_INTERVAL_MS',
      'DEFAULT_HEALTH_TIMEOUT_MS',
      'DEFAULT_MAX_RESULT_CHARS',
      'DEFAULT_MAX_TOOL_CALLS_PER_TURN',
      'DEFAULT_MAX_TURNS',
      'DEFAULT_MCP_SECTION_KEY',
      'DEFAULT_MCP_SECTION_TITLE',
      'DEFAULT_OVERRIDES_FILE_FORMAT',
      'DEFAULT_OVERRIDES_TAG',
      'DEFAULT_READ_BEFORE_WRITE',
      'DEFAULT_SERVER_LOG_LEVEL',
      'DEFAULT_STALE_LOCK_MS',
      'DEFAULT_TIMEOUT_MS',
      'DEFAULT_TRACE_MAX_BYTES',
      'DEFAULT_TRACE_MAX_FILES',
      'DEFAULT_TRACE_MAX_TEXT_LENGTH',
      'EvaluateError',
      'FATAL_PREFIX',
      'FilePromptOverridesStore',
      'FileSessionStore',
      'InProcessEventBus',
      'MAX_TOOL_DESCRIPTION_LENGTH',
      'MarkdownSection',
      'McpClientGroup',
      'McpConfigError',
      'McpConnectionError',
      'McpConnectionPool',
      'McpError',
      'McpFatalToolError',
      'McpHealthMonitor',
      'McpIntegrationSection',
      'McpIsolationFailed',
      'McpNetworkDenied',
      'McpSchemaError',
      'McpSectionIsolated',
      'McpServerConnected',
      'McpServerDisconnected',
      'McpServerHealthChanged',
      'McpServerLog',
      'McpServerUnavailable',
      'McpTimeoutError',
      'McpToolError',
      'McpToolProgress',
      'McpToolTimedOut',
      'McpToolsChanged',
      'OPENED_SECTIONS_SLICE',
      'OPEN_SECTIONS_TOOL_NAME',
      'OVERRIDES_FORMAT_VERSION',
      'POLICY_NAME_PATTERN',
      'PRIVATE_DATA_META_KEY',
      'PROVIDER_TOOL_NAME_PATTERN',
      'PolicyDecision',
      'PrivateData',
      'PrivateDataMarkerMalformed',
      'Prompt',
      'PromptError',
      'PromptExecuted',
      'PromptOutputError',
      'PromptOverrideApplied',
      'PromptOverrideRefused',
      'PromptOverrideSkipped',
      'PromptOverridesError',
      'PromptRenderError',
      'PromptRendered',
      'PromptTemplate',
      'PromptValidationError',
      'READ_SECTION_TOOL_NAME',
      'RenderedPrompt',
      'ResourceRegistry',
      'RollbackConflict',
      'SECRET_MASK',
      'SECTION_KEY_PATTERN',
      'SERVER_NAME_PATTERN',
      'Section',
      'SensitivityEscalated',
      'Session',
      'SessionSnapshot',
      'SessionStoreError',
      'Slice',
      'TOOL_NAME_PATTERN',
      'TOOL_PREFIX_PATTERN',
      'TRACER_NAME',
      'TRACE_FORMAT_VERSION',
      'Tool',
      'ToolInvoked',
      'ToolNameError',
      'ToolResult',
      'TraceError',
      'TraceRecorder',
      'WITHHELD_HEALTH_TEXT',
      'WITHHELD_PRIVATE',
      'anthropic',
      'classifyError',
      'contentHash',
      'defaultSessionDirectory',
      'defineEvent',
      'denyAfterEscalation',
      'describePrompt',
      'evaluate',
      'generateToolBindings',
      'instrumentSession',
      'invokeFromAnthropic',
      'invokeFromOpenAI',
      'invokeFromOpenAIResponses',
      'invokeTool',
      'isDataSensitivity',
      'isSecretArgumentName',
      'loadMcpConfig',
      'loadMcpJson',
      'loadServerConfigs',
      'maxSensitivity',
      'normalizeServerName',
      'normalizeToolName',
      'openAIStrictIssues',
      'openaiChat',
      'openaiResponses',
      'parseActionInput',
      'parseOutput',
      'parsePromptOverrides',
      'parseServerConfigs',
      'readBeforeWrite',
      'readTrace',
      'requireApproval',
      'seedPromptOverrides',
      'sensitivityRank',
      'serializeEvent',
      'serverConfigSchema',
      'sessionFileName',
      'splitToolName',
      'toAnthropicToolResult',
      'toAnthropicTools',
      'toOpenAIFunctionCallOutput',
      'toOpenAIResponsesTools',
      'toOpenAIToolMessage',
      'toOpenAITools',
      'wasNeverDelivered',
    ]);
  });

  describe('error classes', () => {
    it.each([
      [new McpConfigError('servers[0].name', 'bad name'), 'McpConfigError', 'mcp-config'],
      [
        new McpConnectionError('github', 'stdio', 'refused'),
        'McpConnectionError',
        'mcp-connection',
      ],
      [new McpToolError('github', 'search', 'failed'), 'McpToolError', 'mcp-tool'],
      [new McpTimeoutError('github', 30_000, 'slow'), 'McpTimeoutError', 'mcp-timeout'],
      [new McpSchemaError('github', 'search', 'bad $ref'), 'McpSchemaError', 'mcp-schema'],
      [new McpFatalToolError('search', 'disk gone'), 'McpFatalToolError', 'mcp-fatal-tool'],
    ])('%s is an McpError with its name and code', (error, name, code) => {
      expect(error).toBeInstanceOf(McpError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
    });

    it.each([
      [new PromptValidationError('bad key'), 'PromptValidationError', 'prompt-validation'],
      [new PromptRenderError('no value'), 'PromptRenderError', 'prompt-render'],
      [new PromptOverridesError('bad file'), 'PromptOverridesError', 'prompt-overrides'],
    ])('%s is a PromptError with its name and code', (error, name, code) => {
      expect(error).toBeInstanceOf(PromptError);
      expect(error).not.toBeInstanceOf(McpError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
    });

    it('EvaluateError carries its code, its progress and the native cause', () => {
      const cause = new McpFatalToolError('search', 'disk gone');
      const progress = {
        turns: 2,
        toolCalls: 3,
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      };
      const error = new EvaluateError('evaluate-fatal-tool', 'stopped', progress, { cause });
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(McpError);
      expect([error.name, error.code, error.progress, error.cause]).toEqual([
        'EvaluateError',
        'evaluate-fatal-tool',
        progress,
        cause,
      ]);
    });

    it('keep the native cause', () => {
      const cause = new Error('ECONNREFUSED');
      expect(new McpConnectionError('github', 'sse', 'refused', { cause }).cause).toBe(cause);
    });

    it('McpSchemaError says which tool of which server and why', () => {
      expect(new McpSchemaError('github', 'search', 'remote $ref').message).toBe(
        'tool "search" of server "github": remote $ref',
      );
    });
  });
});
