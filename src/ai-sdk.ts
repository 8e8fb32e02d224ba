/**
 * `mcp-sections/ai-sdk`: the Vercel AI SDK tools and `evaluate` adapter, in
 * an entry of its own so that their types (which need the optional peer
 * `ai`) are not part of the main entry's.
 */
export { toAiSdkTools } from './ecosystem/ai-sdk.js';
export type { AiSdkTool, AiSdkToolOutput, ToAiSdkToolsOptions } from './ecosystem/ai-sdk.js';
export { aiSdk } from './evaluate/adapters/ai-sdk.js';
export type { AiSdkAdapterOptions, AiSdkSettings } from './evaluate/adapters/ai-sdk.js';
