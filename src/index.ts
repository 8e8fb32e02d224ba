/**
 * mcp-sections: typed prompt sections for LLM agents, with safe,
 * session-aware MCP server integration.
 *
 * Every public name is listed here; `test/public-api.test.ts` pins the list.
 */

// Errors and sensitivity (shared with the server toolkit).
export {
  FATAL_PREFIX,
  McpConfigError,
  McpConnectionError,
  McpError,
  McpFatalToolError,
  McpSchemaError,
  McpTimeoutError,
  McpToolError,
  PromptError,
  PromptOutputError,
  PromptOverridesError,
  PromptRenderError,
  PromptValidationError,
} from './core/errors.js';
export type { McpErrorCode, PromptErrorCode } from './core/errors.js';
export {
  DATA_SENSITIVITY_LEVELS,
  PRIVATE_DATA_META_KEY,
  isDataSensitivity,
  maxSensitivity,
  sensitivityRank,
} from './core/sensitivity.js';
export type { DataSensitivity, PrivateDataMarker } from './core/sensitivity.js';

// Session runtime.
export { InProcessEventBus } from './runtime/event-bus.js';
export type {
  DispatchResult,
  EventBus,
  EventClass,
  EventHandler,
  Unsubscribe,
} from './runtime/event-bus.js';
export { defineEvent } from './runtime/define-event.js';
export type { EventConstructor } from './runtime/define-event.js';
export {
  PromptExecuted,
  PromptRendered,
  RollbackConflict,
  SensitivityEscalated,
  ToolInvoked,
} from './runtime/events.js';
export type {
  PromptExecutedInit,
  PromptRenderedInit,
  RollbackConflictInit,
  SensitivityEscalatedInit,
  TokenUsage,
  ToolInvokedInit,
  ToolSource,
} from './runtime/events.js';
export type { CallInfo, CallScope, RollbackConflictPath } from './runtime/call-journal.js';
export { PrivateData } from './runtime/private-data.js';
export type { PrivateDataState } from './runtime/private-data.js';
export { ResourceRegistry } from './runtime/resources.js';
export type { ResourceKey } from './runtime/resources.js';
export { Session, SessionSnapshot } from './runtime/session.js';
export type { MirrorEventsOptions, SessionOptions, SliceOptions } from './runtime/session.js';
export { Slice } from './runtime/slice.js';

// Session stores.
export { SessionStoreError } from './runtime/store/errors.js';
export type { SessionStoreErrorCode } from './runtime/store/errors.js';
export { serializeEvent } from './runtime/store/event-serialization.js';
export type {
  RemoteSessionEvent,
  SerializedSessionEvent,
} from './runtime/store/event-serialization.js';
export {
  DEFAULT_FILE_LOCK_TIMEOUT_MS,
  DEFAULT_STALE_LOCK_MS,
  FileSessionStore,
  defaultSessionDirectory,
  sessionFileName,
} from './runtime/store/file-session-store.js';
export type { FileSessionStoreOptions } from './runtime/store/file-session-store.js';
export type { JsonValue } from './runtime/store/json-value.js';
export type {
  SessionStore,
  StoreCallOptions,
  StoredSession,
  VersionedPrivateData,
} from './runtime/store/session-store.js';
export type { SliceReducer } from './runtime/slice.js';

// Tools.
export { invokeTool } from './tools/invoke-tool.js';
export type { InvokeToolOptions } from './tools/invoke-tool.js';
export { MAX_TOOL_DESCRIPTION_LENGTH, TOOL_NAME_PATTERN, Tool } from './tools/tool.js';
export type {
  JsonSchema,
  ToolAnnotations,
  ToolHandler,
  ToolOptions,
  ToolOrigin,
} from './tools/tool.js';
export type { ToolContext } from './tools/tool-context.js';
export type { ToolExample } from './tools/tool-examples.js';
export { ToolResult } from './tools/tool-result.js';

// Tool policies (docs/policies.md).
export { PolicyDecision } from './tools/policy/policy-decision.js';
export { POLICY_NAME_PATTERN } from './tools/policy/tool-policy.js';
export type { PolicyDenial, ToolPolicy } from './tools/policy/tool-policy.js';
export type { ToolSelector } from './tools/policy/tool-selector.js';
export { DEFAULT_APPROVAL_TIMEOUT_MS } from './tools/policy/approval.js';
export type {
  Approval,
  ApprovalHandler,
  ApprovalOptions,
  ApprovalRequest,
  ApprovalVerdict,
  PolicyReason,
} from './tools/policy/approval.js';
export { requireApproval } from './tools/policy/require-approval.js';
export type { RequireApprovalOptions } from './tools/policy/require-approval.js';
export { denyAfterEscalation } from './tools/policy/deny-after-escalation.js';
export type { DenyAfterEscalationOptions } from './tools/policy/deny-after-escalation.js';
export { DEFAULT_READ_BEFORE_WRITE, readBeforeWrite } from './tools/policy/read-before-write.js';
export type { ReadBeforeWriteOptions } from './tools/policy/read-before-write.js';

// Prompts.
export { MarkdownSection } from './prompt/markdown-section.js';
export type { MarkdownSectionOptions } from './prompt/markdown-section.js';
export { Prompt } from './prompt/prompt.js';
export type { PromptOptions, RenderOptions, WithOverridesOptions } from './prompt/prompt.js';
export { PromptTemplate } from './prompt/prompt-template.js';
export type { PromptTemplateOptions } from './prompt/prompt-template.js';
export { RenderedPrompt } from './prompt/rendered-prompt.js';
export { parseOutput } from './prompt/parse-output.js';
export type { ToolDefinition } from './prompt/rendered-prompt.js';
export { SECTION_KEY_PATTERN, Section } from './prompt/section.js';
export type {
  ParamsSchema,
  SectionBodyRenderer,
  SectionEnabledContext,
  SectionOptions,
  SectionRenderContext,
} from './prompt/section.js';
export type {
  SectionSummaryContext,
  SectionVisibility,
  VisibilitySelector,
} from './prompt/visibility.js';
export {
  OPEN_SECTIONS_TOOL_NAME,
  READ_SECTION_TOOL_NAME,
} from './prompt/disclosure/disclosure-tools.js';
export type { OpenSectionsResult } from './prompt/disclosure/disclosure-tools.js';
export { OPENED_SECTIONS_SLICE } from './prompt/disclosure/opened-sections.js';
export type { OpenedSections } from './prompt/disclosure/opened-sections.js';

// Prompt overrides.
export { CONTENT_HASH_PATTERN, contentHash } from './prompt/overrides/content-hash.js';
export { describePrompt, seedPromptOverrides } from './prompt/overrides/descriptor.js';
export type {
  PromptDescriptor,
  SectionDescriptor,
  SeedPromptOverridesOptions,
  ToolDescriptor,
} from './prompt/overrides/descriptor.js';
export {
  PromptOverrideApplied,
  PromptOverrideRefused,
  PromptOverrideSkipped,
} from './prompt/overrides/events.js';
export type {
  PromptOverrideAppliedInit,
  PromptOverrideEventInit,
  PromptOverrideRefusedInit,
  PromptOverrideSkippedInit,
  PromptOverrideSkipReason,
  PromptOverrideTarget,
} from './prompt/overrides/events.js';
export {
  DEFAULT_OVERRIDES_FILE_FORMAT,
  FilePromptOverridesStore,
} from './prompt/overrides/file-store.js';
export type {
  FilePromptOverridesStoreOptions,
  OverridesFileFormat,
} from './prompt/overrides/file-store.js';
export {
  DEFAULT_OVERRIDES_TAG,
  OVERRIDES_FORMAT_VERSION,
  parsePromptOverrides,
} from './prompt/overrides/prompt-overrides.js';
export type {
  ParsePromptOverridesOptions,
  PromptOverrides,
  PromptOverridesRef,
  SectionOverride,
  ToolOverride,
} from './prompt/overrides/prompt-overrides.js';
export type { OverridesStoreCallOptions, PromptOverridesStore } from './prompt/overrides/store.js';

// Server configs: one schema, and the file formats that produce it.
export {
  DEFAULT_TIMEOUT_MS,
  SERVER_NAME_PATTERN,
  TOOL_PREFIX_PATTERN,
  serverConfigSchema,
} from './config/server-config.js';
export type {
  InMemoryTransportConfig,
  McpIsolationConfig,
  McpServerConfig,
  McpTransportConfig,
  ResolvedServerConfig,
  SseTransportConfig,
  StdioTransportConfig,
  StreamableHttpTransportConfig,
  ToolPermission,
} from './config/server-config.js';
export { parseServerConfigs } from './config/parse-server-configs.js';
export type { ConfigSource } from './config/parse-server-configs.js';
export { loadMcpConfig } from './config/config-yaml.js';
export type { LoadMcpConfigOptions } from './config/config-yaml.js';
export { loadMcpJson, normalizeServerName } from './config/mcp-json.js';
export type { LoadMcpJsonOptions } from './config/mcp-json.js';
export { loadServerConfigs } from './config/load-server-configs.js';
export type { LoadServerConfigsOptions } from './config/load-server-configs.js';
export type { EnvironmentVariables } from './config/env-expansion.js';

// MCP integration.
export { McpClientGroup } from './mcp/client-group.js';
export type { AvailableServer, McpClientGroupOptions } from './mcp/client-group.js';
export { McpConnectionPool } from './mcp/connection-pool.js';
export type { PoolCallOptions } from './mcp/connection-pool.js';
export type {
  ElicitationHandler,
  RootsHandler,
  SamplingHandler,
  ServerRequestContext,
} from './mcp/client-handlers.js';

export {
  McpIsolationFailed,
  McpNetworkDenied,
  McpSectionIsolated,
  McpServerConnected,
  McpServerDisconnected,
  McpServerLog,
  McpServerUnavailable,
  McpToolProgress,
  McpToolsChanged,
  McpToolTimedOut,
  PrivateDataMarkerMalformed,
} from './mcp/events.js';
export type { McpServerLogInit } from './mcp/events.js';
export { DEFAULT_SERVER_LOG_LEVEL } from './mcp/server-log.js';
export { DEFAULT_MAX_RESULT_CHARS } from './mcp/result-limit.js';
export type { ExecuteOptions, ExecuteRequest } from './mcp/execute.js';
export {
  DEFAULT_HEALTH_INTERVAL_MS,
  DEFAULT_HEALTH_TIMEOUT_MS,
  McpHealthMonitor,
  McpServerHealthChanged,
  WITHHELD_HEALTH_TEXT,
} from './mcp/health-monitor.js';
export type { McpHealthMonitorOptions, McpServerHealth } from './mcp/health-monitor.js';
export type { McpToolValue } from './mcp/result-mapping.js';
export type { RetryOptions } from './mcp/retry-policy.js';
export {
  DEFAULT_MCP_SECTION_KEY,
  DEFAULT_MCP_SECTION_TITLE,
  McpIntegrationSection,
} from './mcp/section.js';
export type { McpIntegrationSectionOptions } from './mcp/section.js';
export type { McpTool } from './mcp/bridge-tool.js';
export type {
  ConnectionState,
  McpToolDescription,
  ReconnectPolicy,
} from './mcp/server-connection.js';

// Text-protocol helpers.
export {
  ToolNameError,
  classifyError,
  normalizeToolName,
  parseActionInput,
  splitToolName,
  wasNeverDelivered,
} from './executor/index.js';
export type { ParseActionInputOptions, RetryClass } from './executor/index.js';

// Ecosystem: LLM API tool formats, config files, code generation, telemetry.
export {
  invokeFromAnthropic,
  toAnthropicToolResult,
  toAnthropicTools,
} from './ecosystem/anthropic.js';
export { ANTHROPIC_IMAGE_TYPES } from './ecosystem/anthropic.js';
export type {
  AnthropicImageBlock,
  AnthropicInputSchema,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
  AnthropicToolUse,
} from './ecosystem/anthropic.js';
export { generateToolBindings } from './ecosystem/codegen.js';
export type {
  GeneratedBindings,
  GeneratedToolBinding,
  GenerateToolBindingsOptions,
} from './ecosystem/codegen.js';
export { openAIStrictIssues } from './ecosystem/openai-strict.js';
export { invokeFromOpenAI, toOpenAIToolMessage, toOpenAITools } from './ecosystem/openai.js';
export type {
  OpenAICustomToolCall,
  OpenAIFunctionTool,
  OpenAIFunctionToolCall,
  OpenAIToolCall,
  OpenAIToolCallRef,
  OpenAIToolMessage,
  ToOpenAIToolsOptions,
} from './ecosystem/openai.js';
export {
  invokeFromOpenAIResponses,
  toOpenAIFunctionCallOutput,
  toOpenAIResponsesTools,
} from './ecosystem/openai-responses.js';
export type {
  OpenAIFunctionCallItem,
  OpenAIFunctionCallOutputImage,
  OpenAIFunctionCallOutputItem,
  OpenAIFunctionCallOutputText,
  OpenAIResponsesFunctionTool,
  ToOpenAIResponsesToolsOptions,
} from './ecosystem/openai-responses.js';
export { isSecretArgumentName } from './tools/secret-arguments.js';
export { SECRET_MASK } from './tools/secret-text.js';
export { TRACER_NAME, instrumentSession } from './ecosystem/telemetry.js';
export type {
  InstrumentSessionOptions,
  SessionInstrumentation,
  ToolLookup,
} from './ecosystem/telemetry.js';
export { PROVIDER_TOOL_NAME_PATTERN } from './ecosystem/tool-source.js';
export type {
  ProviderInvokeOptions,
  ToolSource as ProviderToolSource,
} from './ecosystem/tool-source.js';

// Session traces (`mcp-sections debug` shows them; docs/debugging.md).
export { TraceError } from './trace/errors.js';
export type { TraceErrorCode } from './trace/errors.js';
export { TraceRecorder } from './trace/trace-recorder.js';
export { WITHHELD_PRIVATE } from './ecosystem/withhold-private.js';
export type { TraceRecorderOptions } from './trace/trace-recorder.js';
export { DEFAULT_TRACE_MAX_BYTES, DEFAULT_TRACE_MAX_FILES } from './trace/trace-file.js';
export { DEFAULT_TRACE_MAX_TEXT_LENGTH } from './trace/trace-masker.js';
export { TRACE_FORMAT_VERSION } from './trace/trace-format.js';
export type {
  TraceEventRecord,
  TraceHeaderRecord,
  TraceRecord,
  TraceSnapshotRecord,
  TraceToolInfo,
  TraceToolsRecord,
} from './trace/trace-format.js';
export { readTrace } from './trace/trace-reader.js';
export type { LoadedTrace } from './trace/trace-reader.js';
// Evaluation: a prompt run end to end against a model, one loop for every provider.
export {
  DEFAULT_MAX_TOOL_CALLS_PER_TURN,
  DEFAULT_MAX_TURNS,
  evaluate,
} from './evaluate/evaluate.js';
export type { EvaluatedToolCall, EvaluateOptions, EvaluateResult } from './evaluate/evaluate.js';
export { EvaluateError } from './evaluate/errors.js';
export type { EvaluateErrorCode, EvaluateProgress } from './evaluate/errors.js';
export type {
  ModelAdapter,
  ModelRequest,
  ModelToolCall,
  ModelTurn,
  ToolCallOutcome,
  TurnUsage,
} from './evaluate/adapter.js';
export { openaiChat } from './evaluate/adapters/openai-chat.js';
export type {
  OpenAIChatAdapterOptions,
  OpenAIChatClient,
  OpenAIChatCompletion,
  OpenAIChatMessage,
  OpenAIChatRequest,
  OpenAIChatToolCall,
} from './evaluate/adapters/openai-chat.js';
export { openaiResponses } from './evaluate/adapters/openai-responses.js';
export type {
  OpenAIResponse,
  OpenAIResponsesAdapterOptions,
  OpenAIResponsesClient,
  OpenAIResponsesItem,
  OpenAIResponsesOutputItem,
  OpenAIResponsesRequest,
} from './evaluate/adapters/openai-responses.js';
export { DEFAULT_ANTHROPIC_MAX_TOKENS, anthropic } from './evaluate/adapters/anthropic.js';
export type {
  AnthropicAdapterOptions,
  AnthropicClient,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicRequest,
} from './evaluate/adapters/anthropic.js';
