/**
 * A call's progress that arrives in the same read as the call's response
 * is still seen (test/fixtures/hostile/one-write-progress-server.mjs
 * writes both at once): the SDK alone handles the response first and drops
 * the progress as "unknown token".
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { invokeTool, McpIntegrationSection, McpToolProgress, Session } from '../../src/index.js';
import { deliverInOrder } from '../../src/mcp/ordered-delivery.js';

const SERVER = fileURLToPath(
  new URL('../fixtures/hostile/one-write-progress-server.mjs', import.meta.url),
);

describe('progress and response in one read', () => {
  it('publishes every call its progress before the call returns', async () => {
    const session = new Session();
    const progress: string[] = [];
    session.bus.subscribe(McpToolProgress, (event) => {
      progress.push(`${event.callId} ${event.message ?? ''}`);
    });
    const section = new McpIntegrationSection({
      servers: [
        { name: 'one', transport: { type: 'stdio', command: process.execPath, args: [SERVER] } },
      ],
      session,
    });
    try {
      await section.connect();
      const [work] = section.tools();
      const seenAtReturn: number[] = [];
      const callIds: string[] = [];
      for (let call = 0; call < 10; call++) {
        const result = await invokeTool(work!, {}, { session });
        expect(result.message).toBe('done');
        seenAtReturn.push(progress.length);
      }
      for (const line of progress) callIds.push(line.split(' ')[0]!);
      expect(seenAtReturn).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(new Set(callIds).size).toBe(10);
      expect(progress.every((line) => line.endsWith(' all done'))).toBe(true);
    } finally {
      await section.disconnect();
    }
  });
});

describe('deliverInOrder on its own', () => {
  function transportWith(deliver: (message: JSONRPCMessage) => void): Transport {
    return {
      start: () => Promise.resolve(),
      send: () => Promise.resolve(),
      close: () => Promise.resolve(),
      onmessage: deliver,
    };
  }
  const notification: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/progress' };
  const response = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });
  const request: JSONRPCMessage = { jsonrpc: '2.0', id: 9, method: 'sampling/createMessage' };

  it('delivers responses at once when no notification waits, and keeps every order', async () => {
    const seen: string[] = [];
    const transport = transportWith((message) => {
      seen.push('method' in message ? message.method : `response ${String(message.id)}`);
    });
    deliverInOrder(transport);
    transport.onmessage?.(response(1));
    expect(seen).toEqual(['response 1']);
    transport.onmessage?.(notification);
    transport.onmessage?.(response(2));
    transport.onmessage?.(response(3));
    transport.onmessage?.(request);
    expect(seen).toEqual(['response 1', 'notifications/progress', 'sampling/createMessage']);
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual([
      'response 1',
      'notifications/progress',
      'sampling/createMessage',
      'response 2',
      'response 3',
    ]);
    transport.onmessage?.(response(4));
    expect(seen.at(-1)).toBe('response 4');
  });

  it('reports a throw of a delayed delivery to the transport, as a direct one would be', async () => {
    const errors: Error[] = [];
    const transport = transportWith((message) => {
      if (!('method' in message)) throw Object.create(null) as Error;
    });
    transport.onerror = (error) => errors.push(error);
    deliverInOrder(transport);
    transport.onmessage?.(notification);
    transport.onmessage?.(response(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((error) => error.message)).toEqual([
      'a thrown value that cannot be written as text',
    ]);
  });
});
