/**
 * One factory per way of calling `echo`: the raw SDK client, the library's
 * bridged tool through `invokeTool` (dist or src, with or without a caller
 * signal, subscribers, many tools, a big session), LangChain's adapters and
 * Mastra's client. Each opens its own server — its own process on stdio, its
 * own `McpServer` in memory — so that no two contenders share a pipe.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpIntegrationSection, Session, Tool, ToolResult } from '../src/index.js';
import type { SdkCopy } from './copies.js';
import type { Caller } from './interleave.js';
import type { Library } from './library.js';
import { type InvokableTool, langChainAdapters, type MastraTool, mastraMcp } from './peers.js';
import { ECHO_ARGS, ECHO_TEXT, echoServer, everythingStdio } from './servers.js';

/** A contender holding a connection; `close()` ends it and its server. */
export interface OpenCaller extends Caller {
  close(): Promise<void>;
}

/** Where a contender's server runs. */
export type Transport = 'stdio' | 'in-memory';

const CLIENT_INFO = { name: 'bench', version: '1.0.0' };

function expectEcho(text: unknown, who: string): void {
  if (text !== ECHO_TEXT) throw new Error(`${who}: expected "${ECHO_TEXT}", got ${String(text)}`);
}

function firstText(result: CallToolResult): unknown {
  const block = result.content[0];
  return block?.type === 'text' ? block.text : undefined;
}

/** A raw SDK client on its own transport (and its own server), connected. */
export async function rawClient(
  transport: Transport,
  server: McpServer | Server = echoServer(),
  sdk: SdkCopy = { Client, StdioClientTransport },
): Promise<Client> {
  const client = new sdk.Client(CLIENT_INFO);
  if (transport === 'stdio') {
    const { command, args } = everythingStdio();
    await client.connect(
      new sdk.StdioClientTransport({ command, args: [...args], stderr: 'ignore' }),
    );
  } else {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
  }
  return client;
}

/** Options of {@link openRaw}. */
export interface RawOptions {
  /** Pass a fresh `AbortSignal` with every call, as a caller with a per-call timeout does. */
  readonly signal?: boolean;
  /** The in-memory server. @default echoServer() */
  readonly server?: McpServer | Server;
  /** The SDK's client classes (`copies.ts`). @default the project's SDK */
  readonly sdk?: SdkCopy;
}

/** `Client.callTool` of the SDK, nothing else. */
export async function openRaw(
  name: string,
  transport: Transport,
  options: RawOptions = {},
): Promise<OpenCaller> {
  const client = await rawClient(transport, options.server, options.sdk);
  const params = { name: 'echo', arguments: ECHO_ARGS };
  expectEcho(firstText((await client.callTool(params)) as CallToolResult), name);
  const call = options.signal
    ? () => client.callTool(params, undefined, { signal: new AbortController().signal })
    : () => client.callTool(params);
  const check = (result: unknown): void => expectEcho(firstText(result as CallToolResult), name);
  return { name, call, check, close: () => client.close() };
}

/** Options of {@link openSection}. */
export interface SectionOptions {
  /** The session the section belongs to. @default a new one */
  readonly session?: Session;
  /** The in-memory server. @default echoServer() */
  readonly server?: McpServer | Server;
  /** The server's `permissions` (by original tool name). @default none */
  readonly permissions?: Readonly<Record<string, readonly ('read' | 'write' | 'connect')[]>>;
}

/** A connected section of `lib` and its bridged `echo` tool. */
export async function openSection(
  lib: Library,
  transport: Transport,
  options: SectionOptions = {},
): Promise<{ section: McpIntegrationSection; echo: Tool; session: Session }> {
  const session = options.session ?? new lib.Session();
  const { command, args } = everythingStdio();
  const section = new lib.McpIntegrationSection({
    servers: [
      {
        name: 'everything',
        transport:
          transport === 'in-memory'
            ? { type: 'in-memory', server: options.server ?? echoServer() }
            : { type: 'stdio', command, args: [...args] },
        ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
      },
    ],
    session,
  });
  await section.connect();
  const echo = section.tools().find((tool) => tool.name === 'everything_echo');
  if (echo === undefined) {
    await section.disconnect();
    throw new Error('the section has no everything_echo tool');
  }
  return { section, echo, session };
}

/** Options of {@link openBridged}. */
export interface BridgedOptions extends SectionOptions {
  /** Pass a fresh `AbortSignal` with every call. */
  readonly signal?: boolean;
  /** How many `ToolInvoked` subscribers (each does nothing) the session has. @default 0 */
  readonly subscribers?: number;
}

/** `invokeTool` on the bridged `echo`: validation, snapshot, rollback, events, ratchet included. */
export async function openBridged(
  lib: Library,
  name: string,
  transport: Transport,
  options: BridgedOptions = {},
): Promise<OpenCaller> {
  const { section, echo, session } = await openSection(lib, transport, options);
  let seen = 0;
  for (let i = 0; i < (options.subscribers ?? 0); i += 1) {
    session.bus.subscribe(lib.ToolInvoked, () => {
      seen += 1;
    });
  }
  const first = await lib.invokeTool(echo, { ...ECHO_ARGS }, { session });
  expectEcho(first.message, name);
  if ((options.subscribers ?? 0) > 0 && seen === 0) throw new Error(`${name}: no ToolInvoked seen`);
  const call = options.signal
    ? () => lib.invokeTool(echo, ECHO_ARGS, { session, signal: new AbortController().signal })
    : () => lib.invokeTool(echo, ECHO_ARGS, { session });
  const check = (result: unknown): void => {
    const { success, message } = result as ToolResult;
    if (!success) throw new Error(`${name}: ${message}`);
    expectEcho(message, name);
  };
  return { name, call, check, close: () => section.disconnect() };
}

/**
 * LangChain: `MultiServerMCPClient` → `getTools()` → `tool.invoke` on stdio;
 * in memory (which `MultiServerMCPClient` cannot reach) `loadMcpTools` on a
 * raw SDK client, the function `MultiServerMCPClient` itself uses.
 */
export async function openLangChain(name: string, transport: Transport): Promise<OpenCaller> {
  const { MultiServerMCPClient, loadMcpTools } = await langChainAdapters();
  let tools: readonly InvokableTool[];
  let close: () => Promise<void>;
  if (transport === 'stdio') {
    const { command, args } = everythingStdio();
    const client = new MultiServerMCPClient({
      mcpServers: {
        everything: { transport: 'stdio', command, args: [...args], stderr: 'ignore' },
      },
    });
    tools = (await client.getTools()) as readonly InvokableTool[];
    close = () => client.close();
  } else {
    const client = await rawClient('in-memory');
    tools = (await loadMcpTools('everything', client)) as readonly InvokableTool[];
    close = () => client.close();
  }
  const echo = tools.find((tool) => tool.name === 'echo' || tool.name.endsWith('__echo'));
  if (echo === undefined) throw new Error(`${name}: no echo tool`);
  expectEcho(await echo.invoke({ ...ECHO_ARGS }), name);
  const check = (result: unknown): void => expectEcho(result, name);
  return { name, call: () => echo.invoke(ECHO_ARGS), check, close };
}

/** Mastra: `MCPClient` → `getTools()` → `execute({ context })`. stdio (or HTTP) only. */
export async function openMastra(name: string): Promise<OpenCaller> {
  const { MCPClient } = await mastraMcp();
  const { command, args } = everythingStdio();
  const client = new MCPClient({
    id: `bench-${name.replace(/\W+/g, '-')}`,
    servers: { everything: { command, args: [...args] } },
  });
  try {
    const tools = (await client.getTools()) as Record<string, MastraTool | undefined>;
    const echo = tools.everything_echo;
    if (echo === undefined) throw new Error(`${name}: no everything_echo tool`);
    const first = (await echo.execute({ context: { ...ECHO_ARGS } })) as CallToolResult;
    expectEcho(firstText(first), name);
    return {
      name,
      call: () => echo.execute({ context: ECHO_ARGS }),
      check: (result: unknown) => expectEcho(firstText(result as CallToolResult), name),
      close: () => client.disconnect(),
    };
  } catch (error) {
    await client.disconnect().catch(() => undefined);
    throw error;
  }
}

/**
 * Opens every contender in order; a peer (a name in `optional`) that cannot
 * run is reported instead of failing the comparison. On any other failure
 * closes what was opened and rethrows.
 */
export async function openAll(
  attempts: readonly (readonly [string, () => Promise<OpenCaller>])[],
  optional: readonly string[] = [],
): Promise<{ open: OpenCaller[]; failed: Record<string, string> }> {
  const open: OpenCaller[] = [];
  const failed: Record<string, string> = {};
  for (const [name, start] of attempts) {
    try {
      open.push(await start());
    } catch (error) {
      if (!optional.includes(name)) {
        await closeAll(open);
        throw error;
      }
      const message = error instanceof Error ? error.message : String(error);
      failed[name] = `cannot run: ${message.split('\n')[0] ?? message}`;
    }
  }
  return { open, failed };
}

/** Closes every contender, even when one fails to close. */
export async function closeAll(open: readonly OpenCaller[]): Promise<void> {
  await Promise.allSettled(open.map((c) => c.close()));
}
