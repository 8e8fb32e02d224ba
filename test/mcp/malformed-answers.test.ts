/**
 * A stdio server whose answers break JSON-RPC
 * (written by hand, below): an answer to a call
 * that cannot be read fails that call at once, saying what is wrong with
 * it (dropped, it left the call waiting for its whole timeout, which then
 * blamed the timeout); a line the server never ended does not take the
 * next answer with it; and a server that writes to stdout what is not
 * JSON-RPC is told so when its handshake fails.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import process from 'node:process';
import { afterEach, describe, expect, it } from 'vitest';
import { invokeTool, McpIntegrationSection, Session, type Tool } from '../../src/index.js';
import { handWrittenServer } from '../support/hand-written-server.js';

/**
 * A stdio server by hand whose answers break JSON-RPC: `echo` answers
 * well; `number_result`
 * answers `result: 42`; `bad_error` an error whose code is a string;
 * `huge` 11 MB, past what a stdio connection reads; `cut_short` the start
 * of an answer with no newline, never ended; `slow` after 300 ms (so that
 * its answer comes right after a cut-short line). With `banner`, it writes
 * HTML to stdout instead of answering `initialize`.
 */
function server(banner = false): string {
  const names = ['echo', 'number_result', 'bad_error', 'huge', 'cut_short', 'slow'];
  return handWrittenServer({
    name: 'malformed-answers',
    ...(banner
      ? { initialize: `process.stdout.write('<html><body>Server starting...</body></html>\\n');` }
      : {}),
    toolsList: `send({ jsonrpc: '2.0', id: message.id, result: { tools: ${JSON.stringify(
      names.map((name) => ({
        name,
        inputSchema: { type: 'object' },
        annotations: { openWorldHint: false },
      })),
    )} } });`,
    toolsCall: `
    const { id } = message;
    const text = (value) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: value }] } });
    switch (message.params.name) {
      case 'echo': send(text('echo: ' + message.params.arguments.text)); break;
      case 'number_result': send({ jsonrpc: '2.0', id, result: 42 }); break;
      case 'bad_error': send({ jsonrpc: '2.0', id, error: { code: 'abc', message: 'no' } }); break;
      case 'huge': send(text('y'.repeat(11 * 1024 * 1024))); break;
      case 'cut_short':
        process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":{"content":[{"type":"te');
        break;
      default: setTimeout(() => send(text('slow done')), 300);
    }`,
  });
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function connected(banner = false, timeoutMs = 20_000) {
  const session = new Session();
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'h',
        transport: { type: 'stdio', command: process.execPath, args: ['-e', server(banner)] },
        timeoutMs,
      },
    ],
    session,
    onConnectError: 'report',
  });
  sections.push(section);
  await section.connect();
  const tool = (name: string): Tool => {
    const found = section.tools().find((candidate) => candidate.name === `h_${name}`);
    if (found === undefined) throw new Error(`no tool ${name}`);
    return found;
  };
  return { session, section, tool };
}

describe('answers a client cannot read', () => {
  it('fails a call answered with a result that is not an object at once, and says so', async () => {
    const { session, tool } = await connected();
    const started = performance.now();
    const result = await invokeTool(tool('number_result'), {}, { session });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ success: false });
    expect(result.message).toBe(
      'tool "number_result" of server "h" failed: its answer is not a JSON-RPC response: "result" is a number, expected an object',
    );
    // The connection is as good as before.
    expect(await invokeTool(tool('echo'), { text: 'hi' }, { session })).toMatchObject({
      success: true,
      message: 'echo: hi',
    });
  });

  it('names an error whose code is not a number', async () => {
    const { session, tool } = await connected();
    const result = await invokeTool(tool('bad_error'), {}, { session });
    expect(result.message).toContain('"error.code" is a string, expected an integer');
    expect(result.message).not.toContain('refused');
  });

  it('says why the connection closed under a call whose answer was past what stdio reads', async () => {
    const { session, tool } = await connected();
    const result = await invokeTool(tool('huge'), {}, { session });
    expect(result.message).toContain(
      'tool "huge" of server "h" lost its connection: Connection closed (the server sent a line of more than 10485760 bytes, the most a stdio connection reads)',
    );
  });

  it('still delivers the answer that follows a line the server never ended', async () => {
    const { session, tool } = await connected(false, 2_000);
    const [cut, slow] = await Promise.all([
      invokeTool(tool('cut_short'), {}, { session }),
      invokeTool(tool('slow'), {}, { session }),
    ]);
    expect(slow).toMatchObject({ success: true, message: 'slow done' });
    expect(cut.message).toContain('timed out after 2000 ms');
  });

  it('says that the server wrote to stdout what is not JSON-RPC when its handshake fails', async () => {
    const { section } = await connected(true, 1_000);
    const [unavailable] = section.unavailableServers;
    expect(unavailable?.reason).toContain('did not finish within 10000 ms');
    expect(unavailable?.reason).toContain(
      'the server wrote 1 line to stdout that is not JSON-RPC (the first not JSON, 44 characters): a stdio server writes only its MCP messages to stdout, and its logs to stderr',
    );
  }, 20_000);
});

/**
 * A streamable-HTTP server written by hand that answers with JSON bodies:
 * `initialize` and `tools/list` well, every `tools/call` with `result: 42`.
 */
async function numberAnsweringHttpServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string; params?: unknown };
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'http-number', version: '1.0.0' },
            }
          : message.method === 'tools/list'
            ? {
                tools: [
                  {
                    name: 'answer',
                    inputSchema: { type: 'object' },
                    annotations: { openWorldHint: false },
                  },
                ],
              }
            : 42;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}/mcp`, server };
}

describe('answers the SDK refuses over HTTP', () => {
  it('says so in one line, without zod’s report', async () => {
    const { url, server } = await numberAnsweringHttpServer();
    const session = new Session();
    const section = new McpIntegrationSection({
      servers: [{ name: 'web', transport: { type: 'streamable-http', url } }],
      session,
    });
    try {
      await section.connect();
      const [tool] = section.tools();
      const result = await invokeTool(tool!, {}, { session });
      expect(result.message).toBe(
        'tool "answer" of server "web" failed: its answer is not a JSON-RPC message as the MCP SDK reads it',
      );
    } finally {
      await section.disconnect();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
