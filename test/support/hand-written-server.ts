/**
 * The source of a stdio MCP server written by hand (a few lines of Node
 * writing JSON-RPC lines), for tests of what the SDK's server would never
 * send: answers past a limit, pages without end, a crash on a call.
 */

/** What the server does, as JavaScript run inside it (`message` and `send` are in scope). */
export interface HandWrittenServer {
  /** The server's name in its `initialize` answer. */
  readonly name: string;
  /** Runs once, before any message. */
  readonly preamble?: string;
  /** Answers an `initialize` request. @default an answer with the tools capability */
  readonly initialize?: string;
  /** Answers a `tools/list` request. */
  readonly toolsList: string;
  /** Answers a `tools/call` request. @default an empty result */
  readonly toolsCall?: string;
}

/** The server's source, for `node -e`. Requests it does not know get an empty result. */
export function handWrittenServer(server: HandWrittenServer): string {
  return `
const readline = require('node:readline');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
${server.preamble ?? ''}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === 'initialize') {
    ${
      server.initialize ??
      `send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: ${JSON.stringify(server.name)}, version: '1' } } });`
    }
  } else if (message.method === 'tools/list') {
    ${server.toolsList}
  } else if (message.method === 'tools/call' && ${String(server.toolsCall !== undefined)}) {
    ${server.toolsCall ?? ''}
  } else {
    send({ jsonrpc: '2.0', id: message.id, result: {} });
  }
});
`;
}
