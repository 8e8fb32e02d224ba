/**
 * Fixtures for the McpIntegrationSection tests: in-process servers whose
 * tool schemas the test controls exactly, a tiny HTTP host for SDK server
 * transports, an event recorder and temp directories.
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../src/config/server-config.js';
import { type EventClass, McpIntegrationSection, Session, type Tool } from '../../src/index.js';
import { everythingServerPath } from './everything.js';
import { LOOPBACK_HOST } from './ports.js';

/** What a tool handler of {@link rawToolServer} gets from the SDK. */
export type RawExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool of {@link rawToolServer}, described exactly as it goes on the wire. */
export interface RawTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: ToolAnnotations;
  /** @default a text result `called <name>` */
  readonly handler?: (
    args: Record<string, unknown> | undefined,
    extra: RawExtra,
  ) => CallToolResult | Promise<CallToolResult>;
}

/** A call as the server received it. */
export interface ReceivedCall {
  readonly name: string;
  readonly arguments: Record<string, unknown> | undefined;
}

/** Options of {@link rawToolServer}. */
export interface RawToolServerOptions {
  /** Tools per `tools/list` page (`nextCursor` pagination). @default all on one page */
  readonly pageSize?: number;
}

/** A low-level SDK server and what it saw. */
export interface RawToolServer {
  /** Not yet connected: give it to a section as `{ type: 'in-memory', server }`. */
  readonly server: Server;
  /** Every `tools/call`, in order. */
  readonly calls: ReceivedCall[];
  /** The cursor of every `tools/list` request (`undefined` for the first page). */
  readonly listCursors: (string | undefined)[];
  /** Calls of one tool by its wire name. */
  callsTo(name: string): ReceivedCall[];
}

/**
 * The config of a server `server` whose `env` holds `secret` and whose one
 * tool, closed-world and answering `ok`, is listed as `toolName`: a server
 * that puts its secret in its tool's name.
 */
export function secretInToolName(
  server: string,
  toolName: string,
  secret: string,
): McpServerConfig {
  const raw = rawToolServer([
    {
      name: toolName,
      inputSchema: { type: 'object' },
      annotations: { openWorldHint: false },
      handler: () => ({ content: [{ type: 'text', text: 'ok' }] }),
    },
  ]);
  return { name: server, transport: { type: 'in-memory', server: raw.server }, env: { K: secret } };
}

/**
 * A low-level SDK `Server` that lists `tools` exactly as given (raw JSON
 * Schemas, no zod in between) and records every call it receives.
 */
export function rawToolServer(
  tools: readonly RawTool[],
  options: RawToolServerOptions = {},
): RawToolServer {
  const server = new Server(
    { name: 'raw-tools', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  const calls: ReceivedCall[] = [];
  const listCursors: (string | undefined)[] = [];
  const pageSize = options.pageSize ?? Math.max(tools.length, 1);
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const cursor = request.params?.cursor;
    listCursors.push(cursor);
    const start = cursor === undefined ? 0 : Number(cursor.replace(/^page-/, ''));
    const end = start + pageSize;
    return {
      tools: tools.slice(start, end).map((tool) => ({
        name: tool.name,
        inputSchema: structuredClone(tool.inputSchema) as { type: 'object' },
        ...(tool.description === undefined ? {} : { description: tool.description }),
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      })),
      ...(end < tools.length ? { nextCursor: `page-${end}` } : {}),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments;
    calls.push({ name, arguments: args });
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) {
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
    }
    if (tool.handler !== undefined) return tool.handler(args, extra);
    return { content: [{ type: 'text', text: `called ${name}` }] };
  });
  return {
    server,
    calls,
    listCursors,
    callsTo: (name) => calls.filter((call) => call.name === name),
  };
}

/** Every event a session's bus published, in order. */
export interface EventRecorder {
  readonly all: object[];
  of<E extends object>(eventClass: EventClass<E>): E[];
  stop(): void;
}

/** Records every event published on `session.bus` from now on. */
export function recordEvents(session: Session): EventRecorder {
  const all: object[] = [];
  const stop = session.bus.subscribeAll((event) => {
    all.push(event);
  });
  return {
    all,
    of: <E extends object>(eventClass: EventClass<E>) =>
      all.filter((event): event is E => event instanceof eventClass),
    stop,
  };
}

/**
 * A new session, what it publishes, and a section over `servers` on it;
 * by default a server that cannot be connected is reported, not thrown.
 */
export function observedSection(
  servers: readonly McpServerConfig[],
  onConnectError: 'throw' | 'report' = 'report',
): { session: Session; events: EventRecorder; section: McpIntegrationSection } {
  const session = new Session();
  const events = recordEvents(session);
  const section = new McpIntegrationSection({ session, onConnectError, servers: [...servers] });
  return { session, events, section };
}

/** A section's tool by its bridged name; throws listing the names it has. */
export function toolNamed(section: McpIntegrationSection, name: string): Tool {
  const tool = section.tools().find((candidate) => candidate.name === name);
  if (tool === undefined) {
    const names = section.tools().map((candidate) => candidate.name);
    throw new Error(`no tool "${name}"; the section has ${names.join(', ')}`);
  }
  return tool;
}

/** The stdio transport of server-everything. */
export function everythingStdio(): {
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
} {
  return { type: 'stdio', command: process.execPath, args: [everythingServerPath, 'stdio'] };
}

/** A stdio server (`mcp-once-server.mjs`) that refuses to start a second time. */
export const onceServerPath: string = fileURLToPath(
  new URL('./mcp-once-server.mjs', import.meta.url),
);

/**
 * Preload for the conformance suite: binds host-less TCP listens to
 * 127.0.0.1 synchronously (its scenario servers read `address()` right
 * after `listen(0)`).
 */
export const conformancePreloadPath: string = fileURLToPath(
  new URL('./mcp-conformance-preload.mjs', import.meta.url),
);

/** A real temporary directory, removed on dispose. */
export interface TempDir {
  readonly path: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Creates a temporary directory (its real path, as the reference servers want it). */
export async function tempDir(prefix: string): Promise<TempDir> {
  const dir = realpathSync(await mkdtemp(path.join(os.tmpdir(), `${prefix}-`)));
  return {
    path: dir,
    [Symbol.asyncDispose]: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A request an {@link HttpHost} received. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** Routes one request; the host answers 500 when it throws. */
export type HttpRoute = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/** An HTTP server on 127.0.0.1 that records every request it gets. */
export interface HttpHost {
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** `http://127.0.0.1:<port><pathname>` */
  url(pathname: string): string;
  /** Stops listening and drops open connections (SSE streams); idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 (a free port) that hands each request to `route`. */
export async function startHttpHost(route: HttpRoute): Promise<HttpHost> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return {
    port,
    requests,
    url: (pathname) => `http://${LOOPBACK_HOST}:${port}${pathname}`,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Every message in an error's `cause` chain, for checking that nothing leaks. */
export function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && !seen.has(current);) {
    seen.add(current);
    if (current instanceof Error) {
      messages.push(`${current.name}: ${current.message}`, current.stack ?? '');
      current = current.cause;
    } else {
      messages.push(typeof current === 'string' ? current : JSON.stringify(current));
      current = undefined;
    }
  }
  return messages;
}
