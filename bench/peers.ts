/**
 * The peer libraries the benchmark measures against. They live in
 * `bench/peers/` (its own package.json, installed by `npm run bench`), not in
 * the library's install: their peer requirements (`ai@4`, `zod@3` for
 * Mastra) clash with ours, and installed under `bench/` itself they would
 * shadow the library's own `zod` and SDK for every bench file. Each is
 * re-exported by a module in `bench/peers/` (so it resolves there) and
 * loaded by URL, so the library type-checks without them; these interfaces
 * are the small surface the benchmark uses.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** A LangChain tool, as far as the benchmark calls it. */
export interface InvokableTool {
  readonly name: string;
  invoke(input: unknown): Promise<unknown>;
}

/** What the benchmark uses of `@langchain/mcp-adapters`. */
export interface LangChainAdapters {
  MultiServerMCPClient: new (config: { mcpServers: Record<string, Record<string, unknown>> }) => {
    getTools(): Promise<unknown[]>;
    close(): Promise<void>;
  };
  loadMcpTools(serverName: string, client: Client | ListingClient): Promise<unknown[]>;
}

/** What `loadMcpTools` needs of a client, when only its schema step is timed. */
export interface ListingClient {
  listTools(): Promise<{ tools: unknown[] }>;
}

/** A Mastra tool, as far as the benchmark calls it. */
export interface MastraTool {
  execute(input: { context: unknown }): Promise<unknown>;
}

/** What the benchmark uses of `@mastra/mcp`. */
export interface MastraMcp {
  MCPClient: new (config: {
    id: string;
    servers: Record<string, { command: string; args: string[] }>;
  }) => { getTools(): Promise<Record<string, unknown>>; disconnect(): Promise<void> };
}

/** Where to install them when they are missing. */
const INSTALL_HINT =
  'run `npm run bench` (it installs bench/peers) or `npm --prefix bench/peers ci`';

async function load<T>(module: string, name: string): Promise<T> {
  try {
    return (await import(new URL(`./peers/${module}`, import.meta.url).href)) as T;
  } catch (error) {
    throw new Error(`the benchmark's peer ${name} is not installed: ${INSTALL_HINT}`, {
      cause: error,
    });
  }
}

/** `@langchain/mcp-adapters`. */
export function langChainAdapters(): Promise<LangChainAdapters> {
  return load<LangChainAdapters>('langchain.mjs', '@langchain/mcp-adapters');
}

/** `@mastra/mcp`. */
export function mastraMcp(): Promise<MastraMcp> {
  return load<MastraMcp>('mastra.mjs', '@mastra/mcp');
}
