/**
 * One HTTP server on 127.0.0.1 that hosts an MCP deployment (streamable
 * HTTP, an SDK `McpServer` per session) on each of several paths, as a
 * gateway that routes by path does, and records every request. `intercept`
 * may answer a request itself (a redirect, an endless stream, …).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** One request the gateway received. */
export interface GatewayRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

/** Answers a request itself and returns true, or returns false to let the deployment answer. */
export type GatewayIntercept = (req: IncomingMessage, res: ServerResponse, body: string) => boolean;

/** A running gateway. */
export interface PathGateway {
  base: string;
  readonly requests: GatewayRequest[];
  intercept: GatewayIntercept | undefined;
  close(): Promise<void>;
}

/** Tools of each deployment: `store` (closed-world) and `load`, whose result escalates to confidential. */
function deployment(path: string): McpServer {
  const server = new McpServer({ name: `gateway${path.replace(/\//g, '-')}`, version: '1.0.0' });
  server.registerTool(
    'store',
    {
      description: 'Stores a note',
      inputSchema: { note: z.string() },
      annotations: { openWorldHint: false },
    },
    ({ note }) => ({
      content: [{ type: 'text', text: `${path} stored ${note.length} characters` }],
    }),
  );
  server.registerTool(
    'load',
    { description: 'Loads private data', annotations: { openWorldHint: false } },
    () => ({
      content: [{ type: 'text', text: 'loaded' }],
      _meta: { 'mcp-sections/private-data': { dataset: 'patients', sensitivity: 'confidential' } },
    }),
  );
  return server;
}

/** Starts a gateway hosting a deployment on each of `paths`. */
export async function startPathGateway(paths: readonly string[]): Promise<PathGateway> {
  const requests: GatewayRequest[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers: McpServer[] = [];
  const gateway: PathGateway = {
    base: '',
    requests,
    intercept: undefined,
    close: () => Promise.resolve(),
  };
  const readBody = async (req: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = req.method === 'POST' ? await readBody(req) : '';
    const path = (req.url ?? '').split('?')[0] ?? '';
    requests.push({ method: req.method ?? '', path, body });
    if (gateway.intercept?.(req, res, body) === true) return;
    if (!paths.includes(path)) {
      res.writeHead(404).end('no such path');
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      if (typeof id === 'string' || req.method !== 'POST') {
        res.writeHead(typeof id === 'string' ? 404 : 400).end('no such session');
        return;
      }
      const server = deployment(path);
      servers.push(server);
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, created);
        },
      });
      transport = created;
      await server.connect(created);
    }
    await transport.handleRequest(req, res, body === '' ? undefined : JSON.parse(body));
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  gateway.base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  gateway.close = async () => {
    await Promise.all(servers.map((server) => server.close().catch(() => undefined)));
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  };
  return gateway;
}
