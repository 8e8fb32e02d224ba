/**
 * The servers the benchmarks talk to: server-everything over stdio (one
 * process per contender), an SDK `McpServer` with an `echo` tool in
 * process, and a low-level `Server` that lists any set of tools.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { everythingServerPath } from '../test/support/everything.js';

/** The arguments every per-call benchmark sends to `echo`. */
export const ECHO_ARGS: Readonly<{ message: string }> = Object.freeze({ message: 'hello' });

/** What `echo` answers to {@link ECHO_ARGS}, on both servers. */
export const ECHO_TEXT = 'Echo: hello';

/** Command line of a server-everything stdio process. */
export interface StdioCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** server-everything on stdio, started with the same Node as the benchmark. */
export function everythingStdio(): StdioCommand {
  return { command: process.execPath, args: [everythingServerPath, 'stdio'] };
}

/** A fresh in-process server with one `echo` tool, like server-everything's. */
export function echoServer(): McpServer {
  const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes back the input string', inputSchema: { message: z.string() } },
    ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  return server;
}

/**
 * A fresh low-level server that lists `tools` as given (JSON Schema, not
 * zod) and answers every call with the text of its arguments.
 */
export function listingServer(tools: readonly McpToolDescription[]): Server {
  const server = new Server(
    { name: 'bench-many', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }],
  }));
  return server;
}
