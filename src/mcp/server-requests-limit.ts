/**
 * A bound on what a server's own requests can make the client hold.
 *
 * A server may ask the client things (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`, `ping`), and the SDK answers each,
 * with a handler's result or "method not found". A server that floods
 * requests and never reads the answers made the client buffer every one
 * of them: gigabytes, and calls answered many seconds late. Here at most
 * {@link MAX_OPEN_SERVER_REQUESTS} of them are being answered at a time
 * (from arrival until the answer is written, or the server cancels the
 * request); more are dropped unanswered, as an overloaded peer would drop
 * them, and so is one whose id is longer than
 * {@link MAX_SERVER_REQUEST_ID_CHARS}.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * More server requests in flight than any real server needs (a few
 * elicitations, pings in a burst), and few enough that their answers stay
 * small in memory.
 */
export const MAX_OPEN_SERVER_REQUESTS = 1_000;

/**
 * Longest string id of a server's request that is answered: an answer
 * repeats the id, and a server that sent pings with 5 MB ids and read no
 * answers made the client hold 1,000 of them (it ran out of memory). Ids
 * are numbers or short strings (a UUID is 36 characters).
 */
export const MAX_SERVER_REQUEST_ID_CHARS = 256;

/**
 * Wraps `transport`'s `onmessage` (set by the SDK's client: call it right
 * after `client.connect(transport)` has started) and `send`, so that at
 * most `max` requests of the server are open at a time.
 */
export function limitServerRequests(
  transport: Transport,
  max: number = MAX_OPEN_SERVER_REQUESTS,
): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  const send = transport.send.bind(transport);
  /** Ids of the server's requests whose answer is not yet given to the transport. */
  const answering = new Set<string | number>();
  /** Ids whose answer is being written. */
  const writing = new Set<string | number>();
  transport.onmessage = (message, extra) => {
    if (isRequest(message)) {
      // Dropped: a server past the bound waits for an answer that does not come.
      const id = message.id;
      if (typeof id === 'string' && id.length > MAX_SERVER_REQUEST_ID_CHARS) return;
      if (answering.size + writing.size >= max || answering.has(id) || writing.has(id)) return;
      answering.add(id);
    } else if (isCancellation(message)) {
      // The SDK writes no answer to a request cancelled while its handler runs
      // (it ignores an id of 0); an answer already being written still counts.
      const id = message.params.requestId;
      if (id !== 0 && id !== '') answering.delete(id);
    }
    deliver(message, extra);
  };
  // Every request of the client passes here too: only an answer to an open request waits.
  transport.send = (message, options) => {
    const id = 'method' in message || !('id' in message) ? undefined : message.id;
    if (id === undefined || !answering.delete(id)) return send(message, options);
    writing.add(id);
    return send(message, options).finally(() => writing.delete(id));
  };
}

function isCancellation(
  message: JSONRPCMessage,
): message is { jsonrpc: '2.0'; method: string; params: { requestId: string | number } } {
  if (!('method' in message) || 'id' in message || message.method !== 'notifications/cancelled') {
    return false;
  }
  const requestId: unknown = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number';
}

function isRequest(
  message: JSONRPCMessage,
): message is Extract<JSONRPCMessage, { method: string; id: string | number }> {
  return 'method' in message && 'id' in message;
}
