/**
 * Reading one JSON-RPC message off a stdio line, as the SDK's
 * `deserializeMessage` does (`JSONRPCMessageSchema.parse(JSON.parse(line))`),
 * with the common message checked directly: a result response whose
 * members are exactly `jsonrpc`, `id` and `result`. Every other message
 * (requests, notifications, errors, a result with `_meta`, anything
 * unusual) goes through the SDK's schema, which gives the verdict and the
 * error. The direct check accepts only what the schema accepts, and gives
 * what it gives: the schema copies a fresh parse; this keeps it.
 */
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../core/json.js';

/**
 * The message on `line`.
 * @throws SyntaxError for text that is not JSON; the SDK schema's ZodError
 *   for JSON that is not a JSON-RPC message.
 */
export function readJsonRpcMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResultResponse(value) ? value : JSONRPCMessageSchema.parse(value);
}

/**
 * `{ jsonrpc: "2.0", id, result }` and nothing else: `id` a string or a
 * safe integer, `result` a plain object without `_meta` (whose own schema
 * the SDK applies; looked for with `in`, as the schema reads it) and without an own `__proto__` member (which a copy
 * would not keep as a member).
 */
function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isPlainObject(value)) return false;
  let members = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    members += 1;
  }
  if (members !== 3 || value['jsonrpc'] !== '2.0') return false;
  const { id, result } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  return isPlainObject(result) && !('_meta' in result) && !Object.hasOwn(result, '__proto__');
}
