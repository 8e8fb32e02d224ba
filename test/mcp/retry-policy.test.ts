import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError as RpcError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpConnectionError, McpTimeoutError } from '../../src/core/errors.js';
import {
  McpServerConnected,
  McpServerDisconnected,
  McpToolTimedOut,
} from '../../src/mcp/events.js';
import { DEFAULT_RETRY, decideRetry, retryDelayMs } from '../../src/mcp/retry-policy.js';
import type { RetryOptions } from '../../src/mcp/retry-policy.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import type { ToolAnnotations } from '../../src/tools/tool.js';
import { FlakyServer } from '../fixtures/resilience/flaky-server.js';

const WRITE: ToolAnnotations = { readOnlyHint: false, idempotentHint: false };
const READ_ONLY: ToolAnnotations = { readOnlyHint: true };
const IDEMPOTENT: ToolAnnotations = { idempotentHint: true };

const NOT_RE_SENT = {
  retry: false,
  note:
    'it was not re-sent because the connection failed while the call was in flight, ' +
    'the tool may already have taken effect, and it is not marked idempotent or read-only',
};
const NEW_SESSION = { retry: true, newSession: true };
const SAME_SESSION = { retry: true, newSession: false };
const NO_RETRY = { retry: false };

function nodeError(message: string, code: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code, ...extra });
}

describe('decideRetry', () => {
  const cases: [string, unknown, ToolAnnotations, object][] = [
    // Never delivered: safe to send again, whatever the tool does.
    [
      'refused connection, write tool',
      nodeError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED', { syscall: 'connect' }),
      WRITE,
      NEW_SESSION,
    ],
    ['SDK "Not connected", write tool', new Error('Not connected'), WRITE, NEW_SESSION],
    [
      'McpConnectionError (no usable connection), write tool',
      new McpConnectionError('s', 'stdio', 'server "s" (stdio): the server is unavailable'),
      WRITE,
      NEW_SESSION,
    ],
    // May have been delivered: only repeatable tools.
    [
      'reset while in flight, write tool',
      nodeError('read ECONNRESET', 'ECONNRESET'),
      WRITE,
      NOT_RE_SENT,
    ],
    [
      'reset while in flight, read-only tool',
      nodeError('read ECONNRESET', 'ECONNRESET'),
      READ_ONLY,
      NEW_SESSION,
    ],
    ['broken pipe, idempotent tool', nodeError('write EPIPE', 'EPIPE'), IDEMPOTENT, NEW_SESSION],
    [
      'SDK connection closed, write tool',
      new RpcError(ErrorCode.ConnectionClosed, 'Connection closed'),
      WRITE,
      NOT_RE_SENT,
    ],
    [
      'SDK connection closed, read-only tool',
      new RpcError(ErrorCode.ConnectionClosed, 'Connection closed'),
      READ_ONLY,
      NEW_SESSION,
    ],
    [
      'HTTP 503, idempotent tool',
      new StreamableHTTPError(503, 'Service Unavailable'),
      IDEMPOTENT,
      SAME_SESSION,
    ],
    [
      'HTTP 503, write tool',
      new StreamableHTTPError(503, 'Service Unavailable'),
      WRITE,
      NOT_RE_SENT,
    ],
    // Never retried, even for read-only tools.
    [
      'cancelled by the caller',
      new RpcError(ErrorCode.ConnectionClosed, 'Request was cancelled'),
      READ_ONLY,
      NO_RETRY,
    ],
    [
      'SDK request timeout',
      new RpcError(ErrorCode.RequestTimeout, 'Request timed out'),
      READ_ONLY,
      NO_RETRY,
    ],
    [
      'McpTimeoutError over the SDK timeout',
      new McpTimeoutError('s', 1000, 'timed out after 1000 ms', {
        cause: new RpcError(ErrorCode.RequestTimeout, 'Request timed out'),
      }),
      READ_ONLY,
      NO_RETRY,
    ],
    ['JSON-RPC invalid params', new RpcError(ErrorCode.InvalidParams, 'bad'), READ_ONLY, NO_RETRY],
    [
      'JSON-RPC method not found',
      new RpcError(ErrorCode.MethodNotFound, 'nope'),
      READ_ONLY,
      NO_RETRY,
    ],
    ['JSON-RPC internal error', new RpcError(ErrorCode.InternalError, 'oops'), READ_ONLY, NO_RETRY],
    ['abort', new DOMException('This operation was aborted', 'AbortError'), READ_ONLY, NO_RETRY],
    ['connect timeout', nodeError('connect ETIMEDOUT', 'ETIMEDOUT'), READ_ONLY, NO_RETRY],
    ['unknown error', new Error('something odd'), READ_ONLY, NO_RETRY],
  ];

  it.each(cases)('%s', (_name, error, annotations, expected) => {
    expect(decideRetry(error, annotations)).toEqual(expected);
  });
});

describe('retryDelayMs', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('draws uniformly from [minDelayMs, maxDelayMs]', () => {
    const random = vi.spyOn(Math, 'random');
    random.mockReturnValue(0);
    expect(retryDelayMs(DEFAULT_RETRY)).toBe(250);
    random.mockReturnValue(0.5);
    expect(retryDelayMs(DEFAULT_RETRY)).toBe(500);
    random.mockReturnValue(0.999);
    expect(retryDelayMs(DEFAULT_RETRY)).toBeCloseTo(749.5);
    // A reversed range does not go below the minimum.
    expect(retryDelayMs({ enabled: true, minDelayMs: 100, maxDelayMs: 50 })).toBe(100);
  });
});

describe('a bridged call that fails', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function connected(
    server: FlakyServer,
    options: { retry?: RetryOptions; timeoutMs?: number } = {},
  ): Promise<{ section: McpIntegrationSection; session: Session }> {
    const session = new Session();
    const section = new McpIntegrationSection({
      servers: [
        {
          name: 'flaky',
          transport: { type: 'in-memory', server },
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        },
      ],
      session,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
    await section.connect();
    return { section, session };
  }

  /** Runs a call to completion on the fake clock (retry waits, reconnection backoff). */
  async function settle<T>(call: Promise<T>, ms = 10_000): Promise<T> {
    await vi.advanceTimersByTimeAsync(ms);
    return call;
  }

  it('is sent once more on a new session when the tool is read-only', async () => {
    const server = new FlakyServer();
    const { section, session } = await connected(server);
    const lifecycle: string[] = [];
    session.bus.subscribe(McpServerDisconnected, (e) => lifecycle.push(`lost:${e.expected}`));
    session.bus.subscribe(McpServerConnected, (e) => lifecycle.push(`connected:${e.reconnect}`));
    try {
      server.nextCall = 'drop';
      const result = await settle(
        section.execute({ name: 'flaky.echo', arguments: { message: 'hi' } }),
      );
      expect(result).toMatchObject({ success: true, message: 'echo: hi' });
      expect(server.calls('echo')).toBe(2);
      expect(server.connects).toBe(2);
      expect(lifecycle).toEqual(['lost:false', 'connected:true']);
    } finally {
      await section.disconnect();
    }
  });

  it('is not re-sent when it was in flight and the tool is not idempotent', async () => {
    const server = new FlakyServer();
    const { section } = await connected(server);
    try {
      server.nextCall = 'drop';
      const result = await settle(section.execute({ name: 'flaky.bump' }));
      expect(result.success).toBe(false);
      expect(result.message).toBe(
        'tool "bump" of server "flaky" lost its connection: Connection closed; ' + NOT_RE_SENT.note,
      );
      await vi.advanceTimersByTimeAsync(60_000);
      expect(server.calls('bump')).toBe(1);
      // The connection came back by itself; the dropped call never ran.
      expect(await section.execute({ name: 'flaky.bump' })).toMatchObject({
        success: true,
        message: 'bumped to 1',
      });
    } finally {
      await section.disconnect();
    }
  });

  it('is re-sent, even when not idempotent, when it never reached the server', async () => {
    const server = new FlakyServer();
    const { section } = await connected(server);
    try {
      await server.kill();
      await vi.advanceTimersByTimeAsync(10_000); // the connection gives up: state "failed"
      expect(section.routes[0]?.active.state).toBe('failed');
      server.down = false;
      const result = await settle(section.execute({ name: 'flaky.bump' }));
      expect(result).toMatchObject({ success: true, message: 'bumped to 1' });
      expect(server.calls('bump')).toBe(1);
    } finally {
      await section.disconnect();
    }
  });

  it('is not retried when retry is disabled', async () => {
    const server = new FlakyServer();
    const { section } = await connected(server, { retry: { enabled: false } });
    try {
      server.nextCall = 'drop';
      const result = await settle(
        section.execute({ name: 'flaky.echo', arguments: { message: 'x' } }),
      );
      expect(result).toMatchObject({
        success: false,
        message: 'tool "echo" of server "flaky" lost its connection: Connection closed',
      });
      expect(server.calls('echo')).toBe(1);
    } finally {
      await section.disconnect();
    }
  });

  it('is not retried after a JSON-RPC error, even when read-only', async () => {
    const server = new FlakyServer();
    const { section } = await connected(server);
    try {
      server.nextCall = 'reject';
      const result = await settle(
        section.execute({ name: 'flaky.echo', arguments: { message: 'x' } }),
      );
      expect(result).toMatchObject({
        success: false,
        message:
          'server "flaky" refused tool "echo" (JSON-RPC error -32602): echo was rejected by the server',
      });
      expect(server.calls('echo')).toBe(1);
      expect(server.connects).toBe(1);
    } finally {
      await section.disconnect();
    }
  });

  it('is not retried after a timeout, even when read-only', async () => {
    const server = new FlakyServer();
    const { section, session } = await connected(server, { timeoutMs: 1_000 });
    const timedOut: McpToolTimedOut[] = [];
    session.bus.subscribe(McpToolTimedOut, (event) => timedOut.push(event));
    try {
      server.nextCall = 'hang';
      const call = section.execute({ name: 'flaky.echo', arguments: { message: 'x' } });
      await vi.advanceTimersByTimeAsync(999);
      expect(timedOut).toEqual([]);
      const result = await settle(call, 5_000);
      expect(result.success).toBe(false);
      expect(result.message).toMatch(/^tool "echo" of server "flaky" timed out after 1000 ms \(/);
      expect(timedOut).toEqual([
        expect.objectContaining({ originalName: 'echo', timeoutMs: 1_000 }),
      ]);
      expect(server.calls('echo')).toBe(1);
      expect(server.connects).toBe(1);
    } finally {
      await section.disconnect();
    }
  });
});
