/**
 * The servers the benchmarks talk to: server-everything over stdio (one
 * process per contender), an SDK `McpServer` with `echo` in process, a
 * low-level `Server` that lists any set of tools, and a server for shared
 * sessions (a closed-world `echo`, a network tool, a tool that returns
 * private data).
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

/** What `echo` answers to {@link ECHO_ARGS}, on every server here. */
export const ECHO_TEXT = 'Echo: hello';

/** The `_meta` key of the private-data marker (the library's `PRIVATE_DATA_META_KEY`). */
export const MARKER_KEY = 'mcp-sections/private-data';

/** Command line of a server-everything stdio process. */
export interface StdioCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** server-everything on stdio, started with the same Node as the benchmark. */
export function everythingStdio(): StdioCommand {
  return { command: process.execPath, args: [everythingServerPath, 'stdio'] };
}

/**
 * A fresh in-process server with one `echo` tool, like server-everything's,
 * declared closed-world so that it stays callable after an escalation.
 */
export function echoServer(): McpServer {
  const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
  server.registerTool(
    'echo',
    {
      description: 'Echoes back the input string',
      inputSchema: { message: z.string() },
      annotations: { openWorldHint: false },
    },
    ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }),
  );
  return server;
}

/** `echo` as a listed tool (JSON Schema), for {@link listingServer}. */
export const ECHO_TOOL: McpToolDescription = {
  name: 'echo',
  description: 'Echoes back the input string',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
  annotations: { openWorldHint: false },
};

/** `count` small tools `tool_0`… plus {@link ECHO_TOOL}, for the scaling rows. */
export function smallTools(count: number): McpToolDescription[] {
  const tools: McpToolDescription[] = [ECHO_TOOL];
  for (let i = 1; i < count; i += 1) {
    tools.push({
      name: `tool_${i}`,
      description: `Tool number ${i}: looks up record ${i} by id`,
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
        required: ['id'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  }
  return tools;
}

/**
 * A fresh low-level server that lists `tools`, answers `echo` like
 * {@link echoServer} and any other call with its arguments as text.
 * `listing` may produce a fresh copy for every `tools/list`, as a real
 * transport would (it parses the JSON anew); by default the same objects.
 */
export function listingServer(
  tools: readonly McpToolDescription[],
  listing: () => readonly McpToolDescription[] = () => tools,
): Server {
  const server = new Server(
    { name: 'bench-many', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...listing()] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    const text =
      request.params.name === 'echo' ? `Echo: ${String(args.message)}` : JSON.stringify(args);
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

/**
 * A server for shared sessions: `echo` (closed-world), `fetch_url`
 * (open-world: refused once the session holds private data) and
 * `load_dataset`, whose result carries the private-data marker, so calling
 * it escalates the session.
 */
export function sessionServer(): McpServer {
  const server = echoServer();
  server.registerTool(
    'fetch_url',
    {
      description: 'Fetches a URL (pretends to)',
      inputSchema: { url: z.string() },
      annotations: { openWorldHint: true },
    },
    ({ url }) => ({ content: [{ type: 'text', text: `fetched ${url}` }] }),
  );
  server.registerTool(
    'load_dataset',
    {
      description: 'Loads a private dataset',
      inputSchema: {
        dataset: z.string(),
        sensitivity: z.enum(['internal', 'confidential', 'secret']),
      },
      annotations: { openWorldHint: false },
    },
    ({ dataset, sensitivity }) => ({
      content: [{ type: 'text', text: `loaded ${dataset}` }],
      _meta: { [MARKER_KEY]: { dataset, sensitivity } },
    }),
  );
  return server;
}
