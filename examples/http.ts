/**
 * A server reached over streamable HTTP with a bearer token. To stay
 * self-contained the example serves an in-process SDK server on
 * 127.0.0.1 first; point `url` at your own server instead.
 *
 *   npx tsx examples/http.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { McpIntegrationSection, Session, ToolInvoked, invokeTool } from '../src/index.js';

const TOKEN = randomUUID();

function buildServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool(
    'forecast',
    {
      description: 'Tomorrow’s forecast for a city',
      inputSchema: { city: z.string().min(1), unit: z.enum(['C', 'F']).default('C') },
      annotations: { readOnlyHint: true },
    },
    ({ city, unit }) => ({ content: [{ type: 'text', text: `${city}: 21°${unit}, light wind` }] }),
  );
  return server;
}

function authorized(request: IncomingMessage): boolean {
  return request.headers.authorization === `Bearer ${TOKEN}`;
}

// Stateless streamable HTTP: a fresh server and transport per request.
const http = createServer((request, response) => {
  if (!authorized(request)) {
    response.writeHead(401).end('missing or wrong bearer token');
    return;
  }
  const transport = new StreamableHTTPServerTransport({});
  const server = buildServer();
  response.on('close', () => {
    void transport.close();
    void server.close();
  });
  server
    .connect(transport)
    .then(() => transport.handleRequest(request, response))
    .catch(() => response.writeHead(500).end());
});
await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

const session = new Session();
session.bus.subscribe(ToolInvoked, (event) =>
  console.log(`[event] ${event.toolName}: ${event.result.message}`),
);
const section = new McpIntegrationSection({
  session,
  servers: [
    {
      name: 'weather',
      transport: { type: 'streamable-http', url, headers: { Authorization: `Bearer ${TOKEN}` } },
      timeoutMs: 5_000,
    },
  ],
});

try {
  await section.connect();
  const [forecast] = section.tools();
  if (forecast === undefined) throw new Error('the weather server listed no tools');
  const result = await invokeTool(forecast, { city: 'Lisbon' }, { session });
  console.log(`${forecast.name} → ${result.message}`);
} finally {
  await section.disconnect();
  await new Promise((done) => http.close(done));
}
