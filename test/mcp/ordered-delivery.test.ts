/**
 * A call's progress that arrives in the same read as the call's response
 * is still seen (test/fixtures/hostile/one-write-progress-server.mjs
 * writes both at once): the SDK alone handles the response first and drops
 * the progress as "unknown token".
 */
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
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

  it('waits for every notification still queued, when two sources deliver in turn', async () => {
    const handled: string[] = [];
    const transport = transportWith((message) => {
      if (!('method' in message)) handled.push(`response ${String(message.id)}`);
      // As the SDK: a notification's handler runs a microtask late.
      else void Promise.resolve().then(() => handled.push(message.method));
    });
    deliverInOrder(transport);
    transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/message' }); // one stream
    queueMicrotask(() => transport.onmessage?.(response(7))); // the other stream, a turn later
    transport.onmessage?.(notification); // call 7's progress, before its response
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled).toEqual(['notifications/message', 'notifications/progress', 'response 7']);
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

describe('deliverInOrder, over any arrival of messages', () => {
  type Arrival =
    | { readonly kind: 'notification' | 'response' | 'request' }
    | { readonly kind: 'wait'; readonly turns: number };
  const arrival = fc.oneof(
    fc.record({ kind: fc.constantFrom('notification', 'response', 'request') }),
    fc.record({ kind: fc.constant('wait'), turns: fc.integer({ min: 0, max: 3 }) }),
  ) as fc.Arbitrary<Arrival>;

  it('handles every response after the notifications that arrived before it, and keeps each kind in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arrival, { maxLength: 40 }), async (arrivals) => {
        const handled: string[] = [];
        // The SDK's client: a notification's handler runs a microtask late, the rest at once.
        const transport: Transport = {
          start: () => Promise.resolve(),
          send: () => Promise.resolve(),
          close: () => Promise.resolve(),
          onmessage: (message) => {
            if (!('method' in message)) handled.push(`response ${String(message.id)}`);
            else if (!('id' in message)) {
              void Promise.resolve().then(() => handled.push(message.method));
            } else handled.push(`request ${String(message.id)}`);
          },
        };
        deliverInOrder(transport);
        const sent: string[] = [];
        let id = 0;
        for (const next of arrivals) {
          if (next.kind === 'wait') {
            // Transports deliver from I/O callbacks or from microtasks.
            for (let turn = 0; turn < next.turns; turn++) await Promise.resolve();
            if (next.turns === 0) await new Promise((resolve) => setImmediate(resolve));
            continue;
          }
          id += 1;
          const message: JSONRPCMessage =
            next.kind === 'notification'
              ? { jsonrpc: '2.0', method: `notification ${id}` }
              : next.kind === 'response'
                ? { jsonrpc: '2.0', id, result: {} }
                : { jsonrpc: '2.0', id, method: 'ping' };
          sent.push(next.kind === 'notification' ? `notification ${id}` : `${next.kind} ${id}`);
          transport.onmessage?.(message);
        }
        await new Promise((resolve) => setImmediate(resolve));
        expect([...handled].sort()).toEqual([...sent].sort());
        for (const [index, entry] of handled.entries()) {
          if (!entry.startsWith('response')) continue;
          // Every notification sent before this response was handled before it.
          const before = sent.slice(0, sent.indexOf(entry));
          for (const earlier of before.filter((item) => item.startsWith('notification'))) {
            expect(handled.indexOf(earlier), `${earlier} before ${entry}`).toBeLessThan(index);
          }
        }
        for (const kind of ['response', 'request', 'notification']) {
          const order = (list: string[]): string[] => list.filter((item) => item.startsWith(kind));
          expect(order(handled)).toEqual(order(sent));
        }
      }),
      { numRuns: 500 },
    );
  });
});
