/**
 * Shared pieces of the server-toolkit tests: temporary directories, tokens,
 * and an SDK client over streamable HTTP. Every resource made here is
 * released by the test that made it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { signIdentityToken } from '../../src/server/index.js';

/** HS256 secret of the tests (48 bytes). */
export const SECRET = 'test-secret-0123456789-abcdefghijklmnopqrstuvwxyz';

/** A fresh workspace root and private-data directory, apart. */
export interface TempDirs {
  readonly base: string;
  readonly workspaceRoot: string;
  readonly privateDataDir: string;
  remove(): Promise<void>;
}

export async function makeTempDirs(): Promise<TempDirs> {
  const base = await mkdtemp(path.join(tmpdir(), 'mcp-sections-server-'));
  return {
    base,
    workspaceRoot: path.join(base, 'workspace'),
    privateDataDir: path.join(base, 'private-data'),
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/** A token for `userId`/`sessionId`, signed with {@link SECRET} unless told otherwise. */
export function tokenFor(
  userId: string,
  sessionId: string,
  options: { secret?: string; expiresInSec?: number } = {},
): Promise<string> {
  return signIdentityToken(
    { userId, sessionId },
    { secret: options.secret ?? SECRET, expiresInSec: options.expiresInSec ?? 300 },
  );
}

/** Connects an SDK client to `url` with `Authorization: Bearer <token>`. */
export async function connectClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'server-toolkit-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Ends the MCP session (HTTP DELETE) and closes the client. */
export async function endSession(client: Client): Promise<void> {
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
  await client.close();
}

/** Calls a tool and returns the result typed as a plain `CallToolResult`. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a result's first content item. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== 'text')
    throw new Error(`expected text content, got ${JSON.stringify(result.content)}`);
  return first.text;
}

/** A JSON-RPC `tools/call` body, for raw HTTP requests. */
export function toolCallBody(name: string, args: Record<string, unknown> = {}, id = 99): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
}

/** Headers of a raw MCP POST. */
export function mcpHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'Mcp-Protocol-Version': '2025-06-18',
    ...extra,
  };
}

/** A raw `initialize` POST with `token` (no SDK client): read its status and `mcp-session-id`. */
export function rawInitialize(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: mcpHeaders({ Authorization: `Bearer ${token}` }),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
}
