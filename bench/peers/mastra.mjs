// Re-exported from here so that it resolves in bench/peers/node_modules.
export * from '@mastra/mcp';
