import { ErrorCode, McpError as RpcError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpTimeoutError, McpToolTimedOut, Session } from '../../src/index.js';
import { callFailure, type FailureContext } from '../../src/mcp/call-failure.js';

function context(session: Session, signal = new AbortController().signal): FailureContext {
  return { session, serverName: 's', bridgedName: 's_t', original: 't', callId: 'c1', signal };
}

describe('callFailure', () => {
  it('reports a timeout with its message and an McpToolTimedOut event', () => {
    const session = new Session();
    const events: McpToolTimedOut[] = [];
    session.bus.subscribe(McpToolTimedOut, (event) => events.push(event));
    const result = callFailure(
      new McpTimeoutError('s', 250, 'tool "t" timed out'),
      context(session),
    );
    expect(result).toMatchObject({ success: false, message: 'tool "t" timed out' });
    expect(events.map((event) => [event.toolName, event.callId, event.timeoutMs])).toEqual([
      ['s_t', 'c1', 250],
    ]);
  });

  it('says a call was cancelled, with the reason of the aborted signal', () => {
    const controller = new AbortController();
    controller.abort(new Error('user pressed stop'));
    const result = callFailure(new Error('AbortError'), context(new Session(), controller.signal));
    expect(result.message).toBe('tool "t" of server "s" was cancelled: user pressed stop');
  });

  it('says a call was cancelled when the reason cannot even be read', () => {
    const controller = new AbortController();
    const unreadable = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('no prototype');
        },
      },
    );
    controller.abort(unreadable);
    const result = callFailure(new Error('AbortError'), context(new Session(), controller.signal));
    expect(result.message).toBe('tool "t" of server "s" was cancelled: aborted');
  });

  it("tells the SDK's closed connection from a server's own -32000 error, without the SDK's prefixes", () => {
    const session = new Session();
    const closed = new RpcError(ErrorCode.ConnectionClosed, 'Connection closed');
    expect(callFailure(closed, context(session)).message).toBe(
      'tool "t" of server "s" lost its connection: Connection closed',
    );
    const own = new RpcError(-32000, 'MCP error -32000: quota exceeded');
    expect(callFailure(own, context(session)).message).toBe(
      'server "s" refused tool "t" (JSON-RPC error -32000): quota exceeded',
    );
    expect(callFailure('boom', context(session)).message).toBe(
      'tool "t" of server "s" failed: boom',
    );
  });
});
