/**
 * `mcp-sections/ai-sdk`: the Vercel AI SDK adapter, in an entry of its own
 * so that its types (which need the optional peer `ai`) are not part of the
 * main entry's.
 */
export { toAiSdkTools } from './ecosystem/ai-sdk.js';
export type { AiSdkTool, AiSdkToolOutput, ToAiSdkToolsOptions } from './ecosystem/ai-sdk.js';
