/**
 * `mcp-sections/langchain`: the LangChain JS adapter, in an entry of its own
 * so that its types (which need the optional peer `@langchain/core`) are not
 * part of the main entry's.
 */
export { SectionStructuredTool, toLangChainTools } from './ecosystem/langchain.js';
export type { ToLangChainToolsOptions } from './ecosystem/langchain.js';
