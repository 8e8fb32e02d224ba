import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyError, wasNeverDelivered } from '../../src/executor/classify-error.js';
import type { RetryClass } from '../../src/executor/classify-error.js';

/** Resolves with whatever `run` rejects with; fails the test if it resolves. */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A port on 127.0.0.1 that nothing listens on (it was just released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

function nodeError(code: string, message: string, extra: object = {}): Error {
  return Object.assign(new Error(message), { code }, extra);
}

/** Real errors, produced once: Node sockets and streams, and the MCP SDK. */
const real: Record<string, unknown> = {};

beforeAll(async () => {
  const port = await closedPort();
  const socket = net.connect(port, '127.0.0.1');
  [real['refused']] = (await once(socket, 'error')) as [unknown];
  real['fetchRefused'] = await rejection(() => fetch(`http://127.0.0.1:${port}/`));

  // A server that drops every connection: the client sees "socket hang up".
  const dropper = http.createServer((request) => request.socket.destroy());
  dropper.listen(0, '127.0.0.1');
  await once(dropper, 'listening');
  const { port: dropPort } = dropper.address() as net.AddressInfo;
  const hangUp = http.get(`http://127.0.0.1:${dropPort}/`);
  [real['hangUp']] = (await once(hangUp, 'error')) as [unknown];
  dropper.close();
  await once(dropper, 'close');

  const ended = new PassThrough();
  // The stream also emits the error; the callback below is where it is read.
  ended.on('error', () => {});
  ended.end();
  real['writeAfterEnd'] = await new Promise((resolve) => ended.write('x', resolve));
  const destroyed = new PassThrough();
  destroyed.destroy();
  real['destroyed'] = await new Promise((resolve) => destroyed.write('x', resolve));

  // The SDK over an in-memory pair, with a tool that never answers.
  const server = new McpServer({ name: 'hang', version: '1.0.0' });
  server.registerTool('wait', { description: 'never returns' }, () => new Promise(() => {}));
  const client = new Client({ name: 'test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

  const controller = new AbortController();
  const aborted = rejection(() =>
    client.callTool({ name: 'wait' }, undefined, { signal: controller.signal }),
  );
  controller.abort();
  real['sdkAborted'] = await aborted;

  const pending = rejection(() => client.callTool({ name: 'wait' }));
  await server.close();
  real['sdkClosed'] = await pending;
  await client.close();
  real['sdkNotConnected'] = await rejection(() =>
    new Client({ name: 'idle', version: '1.0.0' }).listTools(),
  );
});

describe('the real errors', () => {
  it('have the shapes the classifier relies on', () => {
    expect(real['refused']).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
    expect(real['fetchRefused']).toMatchObject({
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
    expect(real['hangUp']).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    expect(real['writeAfterEnd']).toMatchObject({ code: 'ERR_STREAM_WRITE_AFTER_END' });
    expect(real['destroyed']).toMatchObject({ code: 'ERR_STREAM_DESTROYED' });
    expect(real['sdkAborted']).toBeInstanceOf(McpError);
    expect(real['sdkAborted']).toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(real['sdkClosed']).toBeInstanceOf(McpError);
    expect(real['sdkClosed']).toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect(real['sdkNotConnected']).toMatchObject({ message: 'Not connected' });
  });
});

describe('classifyError', () => {
  it.each<[string, () => unknown, RetryClass]>([
    // Real errors.
    ['a refused connection', () => real['refused'], 'retry-new-session'],
    ['fetch failing on a refused connection', () => real['fetchRefused'], 'retry-new-session'],
    ['socket hang up', () => real['hangUp'], 'retry-new-session'],
    ['write after end', () => real['writeAfterEnd'], 'retry-new-session'],
    ['write to a destroyed stream', () => real['destroyed'], 'retry-new-session'],
    ["the SDK's connection closed", () => real['sdkClosed'], 'retry-new-session'],
    ["the SDK's Not connected", () => real['sdkNotConnected'], 'retry-new-session'],
    ['an SDK request aborted by the caller', () => real['sdkAborted'], 'no-retry'],
    // Node and undici codes, also deep in a cause chain.
    ['EPIPE', () => nodeError('EPIPE', 'write EPIPE'), 'retry-new-session'],
    ['ENOTCONN', () => nodeError('ENOTCONN', 'x'), 'retry-new-session'],
    ['ECONNABORTED', () => nodeError('ECONNABORTED', 'x'), 'retry-new-session'],
    ['UND_ERR_SOCKET', () => nodeError('UND_ERR_SOCKET', 'other side closed'), 'retry-new-session'],
    ['ERR_SOCKET_CLOSED', () => nodeError('ERR_SOCKET_CLOSED', 'x'), 'retry-new-session'],
    [
      'ERR_STREAM_PREMATURE_CLOSE',
      () => nodeError('ERR_STREAM_PREMATURE_CLOSE', 'x'),
      'retry-new-session',
    ],
    [
      'ERR_STREAM_ALREADY_FINISHED',
      () => nodeError('ERR_STREAM_ALREADY_FINISHED', 'x'),
      'retry-new-session',
    ],
    ['ERR_IPC_CHANNEL_CLOSED', () => nodeError('ERR_IPC_CHANNEL_CLOSED', 'x'), 'retry-new-session'],
    [
      "a stream's premature close, by message",
      () => new Error('Premature close'),
      'retry-new-session',
    ],
    [
      'a code two causes deep',
      () =>
        new Error('call failed', {
          cause: new Error('x', { cause: nodeError('ECONNRESET', 'y') }),
        }),
      'retry-new-session',
    ],
    [
      'a code inside an AggregateError',
      () => new AggregateError([nodeError('ECONNREFUSED', 'a')], 'all attempts failed'),
      'retry-new-session',
    ],
    [
      'fetch failed over a headers timeout',
      () => new TypeError('fetch failed', { cause: nodeError('UND_ERR_HEADERS_TIMEOUT', 'x') }),
      'no-retry',
    ],
    // The SDK's McpError.
    [
      'McpError ConnectionClosed',
      () => new McpError(ErrorCode.ConnectionClosed, 'Connection closed'),
      'retry-new-session',
    ],
    [
      'McpError cancelled',
      () => new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled'),
      'no-retry',
    ],
    [
      'McpError RequestTimeout',
      () => new McpError(ErrorCode.RequestTimeout, 'Request timed out'),
      'no-retry',
    ],
    ['McpError ParseError', () => new McpError(ErrorCode.ParseError, 'x'), 'no-retry'],
    ['McpError InvalidRequest', () => new McpError(ErrorCode.InvalidRequest, 'x'), 'no-retry'],
    ['McpError MethodNotFound', () => new McpError(ErrorCode.MethodNotFound, 'x'), 'no-retry'],
    ['McpError InvalidParams', () => new McpError(ErrorCode.InvalidParams, 'x'), 'no-retry'],
    ['McpError InternalError', () => new McpError(ErrorCode.InternalError, 'x'), 'no-retry'],
    [
      'a server error whose text mentions a refused connection',
      () => new McpError(ErrorCode.InternalError, 'database: connection refused'),
      'no-retry',
    ],
    [
      'a raw JSON-RPC error object',
      () => ({ code: -32602, message: 'connection reset' }),
      'no-retry',
    ],
    // Aborts and timeouts.
    ['an AbortError', () => AbortSignal.abort().reason as unknown, 'no-retry'],
    ['a TimeoutError', () => new DOMException('signal timed out', 'TimeoutError'), 'no-retry'],
    // HTTP gateways.
    [
      'StreamableHTTPError 503',
      () => new StreamableHTTPError(503, 'Error POSTing to endpoint: busy'),
      'retry-same-session',
    ],
    ['StreamableHTTPError 502', () => new StreamableHTTPError(502, 'x'), 'retry-same-session'],
    ['StreamableHTTPError 500', () => new StreamableHTTPError(500, 'x'), 'no-retry'],
    // A 404 may be a gateway's answer for one tool: the connection decides (a ping) whether the session is gone.
    [
      'StreamableHTTPError 404',
      () => new StreamableHTTPError(404, 'Error POSTing to endpoint: Session not found'),
      'no-retry',
    ],
    [
      'a status field of 504',
      () => Object.assign(new Error('x'), { status: 504 }),
      'retry-same-session',
    ],
    // Messages only.
    [
      '"HTTP 503" in a message',
      () => new Error('Error POSTing to endpoint (HTTP 503): busy'),
      'retry-same-session',
    ],
    ['"504 Gateway Timeout"', () => new Error('504 Gateway Timeout'), 'retry-same-session'],
    ['a bare 503 in prose', () => new Error('found 503 pods'), 'no-retry'],
    ['"Connection refused"', () => new Error('Connection refused by peer'), 'retry-new-session'],
    ['"connection reset"', () => 'connection reset by peer', 'retry-new-session'],
    ['"Broken pipe"', () => new Error('Broken pipe'), 'retry-new-session'],
    ['"transport closed"', () => new Error('Transport closed'), 'retry-new-session'],
    ['"fetch failed" alone', () => new TypeError('fetch failed'), 'retry-new-session'],
    ['"timeout"', () => new Error('Timeout waiting for reply'), 'no-retry'],
    ['"timed out"', () => new Error('operation timed out'), 'no-retry'],
    ['"aborted"', () => new Error('The operation was aborted'), 'no-retry'],
    // Anything else.
    ['an unrelated error', () => new Error('tool exploded'), 'no-retry'],
    ['undefined', () => undefined, 'no-retry'],
    ['a number', () => 42, 'no-retry'],
    ['a cyclic cause chain', () => cyclic(), 'no-retry'],
    ['a throwing getter', () => hostile(), 'no-retry'],
  ])('%s → %s', (_label, make, expected) => {
    expect(classifyError(make())).toBe(expected);
  });
});

describe('wasNeverDelivered', () => {
  it.each<[string, () => unknown, boolean]>([
    ['a refused connection', () => real['refused'], true],
    ['fetch failing on a refused connection', () => real['fetchRefused'], true],
    ["the SDK's Not connected", () => real['sdkNotConnected'], true],
    [
      'ENOTFOUND',
      () => nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND x', { syscall: 'getaddrinfo' }),
      true,
    ],
    ['EAI_AGAIN', () => nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN x'), true],
    [
      'a connect timeout',
      () => nodeError('ETIMEDOUT', 'connect ETIMEDOUT', { syscall: 'connect' }),
      true,
    ],
    [
      'undici connect timeout',
      () =>
        new TypeError('fetch failed', {
          cause: nodeError('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'),
        }),
      true,
    ],
    ['"connection refused" text', () => 'connection refused', true],
    // May have been delivered.
    ['socket hang up', () => real['hangUp'], false],
    ['write after end', () => real['writeAfterEnd'], false],
    ['a destroyed stream', () => real['destroyed'], false],
    ["the SDK's connection closed", () => real['sdkClosed'], false],
    ['an SDK request aborted by the caller', () => real['sdkAborted'], false],
    ['EPIPE', () => nodeError('EPIPE', 'write EPIPE'), false],
    ['a read timeout', () => nodeError('ETIMEDOUT', 'read ETIMEDOUT', { syscall: 'read' }), false],
    ['HTTP 503', () => new StreamableHTTPError(503, 'busy'), false],
    [
      'a refusal wrapped around a reset',
      () => new Error('connection refused', { cause: nodeError('ECONNRESET', 'x') }),
      false,
    ],
    ['"fetch failed" alone', () => new TypeError('fetch failed'), false],
    ['"transport closed"', () => new Error('Transport closed'), false],
    ['an unrelated error', () => new Error('tool exploded'), false],
    ['undefined', () => undefined, false],
    ['a throwing getter', () => hostile(), false],
  ])('%s → %s', (_label, make, expected) => {
    expect(wasNeverDelivered(make())).toBe(expected);
  });
});

function cyclic(): Error {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  Object.defineProperty(a, 'cause', { value: b });
  return a;
}

function hostile(): unknown {
  return new Proxy(
    {},
    {
      get() {
        throw new Error('no');
      },
      getPrototypeOf() {
        throw new Error('no');
      },
    },
  );
}
