/**
 * One factory per way of calling `echo`: the raw SDK client, this
 * library's bridged tool through `invokeTool`, LangChain's adapters and
 * Mastra's client. Each opens its own server (its own process on stdio)
 * so that no two contenders share a pipe.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { invokeTool, McpIntegrationSection, Session, type Tool } from '../src/index.js';
import type { McpTransportConfig } from '../src/config/server-config.js';
import { type InvokableTool, langChainAdapters, type MastraTool, mastraMcp } from './peers.js';
import { ECHO_ARGS, ECHO_TEXT, echoServer, everythingStdio } from './servers.js';
import type { Contender } from './stats.js';

/** A contender holding a connection; `close()` ends it and its server. */
export interface OpenContender extends Contender {
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

/** A raw SDK client on its own transport, already connected. */
export async function rawClient(transport: Transport, server?: McpServer): Promise<Client> {
  const client = new Client(CLIENT_INFO);
  if (transport === 'stdio') {
    const { command, args } = everythingStdio();
    await client.connect(new StdioClientTransport({ command, args: [...args], stderr: 'ignore' }));
  } else {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await (server ?? echoServer()).connect(serverSide);
    await client.connect(clientSide);
  }
  return client;
}

/** `Client.callTool` of the SDK, nothing else. */
export async function openRaw(name: string, transport: Transport): Promise<OpenContender> {
  const client = await rawClient(transport);
  const params = { name: 'echo', arguments: { ...ECHO_ARGS } };
  expectEcho(firstText((await client.callTool(params)) as CallToolResult), name);
  return {
    name,
    run: async () => {
      await client.callTool(params);
    },
    close: () => client.close(),
  };
}

/** The section's transport config for `transport`. */
export function sectionTransport(transport: Transport): McpTransportConfig {
  if (transport === 'in-memory') return { type: 'in-memory', server: echoServer() };
  const { command, args } = everythingStdio();
  return { type: 'stdio', command, args };
}

/** A connected section and its bridged `echo` tool. */
export async function openSection(
  transport: Transport,
  session = new Session(),
): Promise<{ section: McpIntegrationSection; echo: Tool; session: Session }> {
  const section = new McpIntegrationSection({
    servers: [{ name: 'everything', transport: sectionTransport(transport) }],
    session,
  });
  await section.connect();
  const echo = section.tools().find((tool) => tool.name === 'everything_echo');
  if (echo === undefined) throw new Error('the section has no everything_echo tool');
  return { section, echo, session };
}

/** `invokeTool` on the bridged `echo`: validation, snapshot, event included. */
export async function openBridged(name: string, transport: Transport): Promise<OpenContender> {
  const { section, echo, session } = await openSection(transport);
  const first = await invokeTool(echo, { ...ECHO_ARGS }, { session });
  expectEcho(first.message, name);
  return {
    name,
    run: async () => {
      const result = await invokeTool(echo, ECHO_ARGS, { session });
      if (!result.success) throw new Error(`${name}: ${result.message}`);
    },
    close: () => section.disconnect(),
  };
}

/**
 * LangChain: `MultiServerMCPClient` → `getTools()` → `tool.invoke` on stdio;
 * in memory (which `MultiServerMCPClient` cannot reach) `loadMcpTools` on a
 * raw SDK client, the function `MultiServerMCPClient` itself uses.
 */
export async function openLangChain(name: string, transport: Transport): Promise<OpenContender> {
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
  return {
    name,
    run: async () => {
      await echo.invoke(ECHO_ARGS);
    },
    close,
  };
}

/** Mastra: `MCPClient` → `getTools()` → `execute({ context })`. stdio (or HTTP) only. */
export async function openMastra(name: string): Promise<OpenContender> {
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
      run: async () => {
        await echo.execute({ context: ECHO_ARGS });
      },
      close: () => client.disconnect(),
    };
  } catch (error) {
    await client.disconnect().catch(() => undefined);
    throw error;
  }
}
