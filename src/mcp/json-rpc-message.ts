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
import {
  ErrorCode,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../core/json.js';

/**
 * The `data` of the error response that stands in for an answer the
 * client could not read (see {@link readJsonRpcMessage}).
 */
export const UNREADABLE_ANSWER = 'mcp-sections/unreadable-answer';

/** A line a server wrote that is not a JSON-RPC message, described without its text. */
export class UnreadableLineError extends Error {
  override readonly name: string = 'UnreadableLineError';
  constructor(
    /** Its length in UTF-16 code units. */
    readonly length: number,
    /** Not JSON at all, or JSON that is not a JSON-RPC message. */
    readonly kind: 'not JSON' | 'not a JSON-RPC message',
    options?: ErrorOptions,
  ) {
    super(`the server wrote a line that is ${kind} (${String(length)} characters)`, options);
  }
}

/**
 * The message on `line`. An answer to a request (an `id`, no `method`)
 * that is not a valid JSON-RPC response becomes an error response for
 * that `id`, whose message says what is wrong with it (data:
 * {@link UNREADABLE_ANSWER}): dropped, it left its call waiting for its
 * whole timeout, which then blamed the timeout.
 *
 * @throws UnreadableLineError for any other line that is not a JSON-RPC
 *   message (its cause: the SyntaxError, or the SDK schema's ZodError).
 */
export function readJsonRpcMessage(line: string): JSONRPCMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new UnreadableLineError(line.length, 'not JSON', { cause: error });
  }
  if (isPlainResultResponse(value)) return value;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const answer = unreadableAnswer(value);
  if (answer !== undefined) return answer;
  throw new UnreadableLineError(line.length, 'not a JSON-RPC message', { cause: parsed.error });
}

/** An error response for the answer `value` to a request, when it is one that cannot be read. */
function unreadableAnswer(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(value) || 'method' in value) return undefined;
  const { id } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: {
      code: ErrorCode.InternalError,
      message: `its answer is not a JSON-RPC response: ${whatIsWrong(value)}`,
      data: UNREADABLE_ANSWER,
    },
  };
}

/** What makes `answer` not a JSON-RPC response, named by member and kind, quoting nothing. */
function whatIsWrong(answer: Record<string, unknown>): string {
  if (answer['jsonrpc'] !== '2.0')
    return `"jsonrpc" is ${kindOf(answer['jsonrpc'])}, expected "2.0"`;
  const hasResult = Object.hasOwn(answer, 'result');
  const hasError = Object.hasOwn(answer, 'error');
  if (hasResult && hasError) return 'it holds both "result" and "error"';
  if (hasResult) {
    return isPlainObject(answer['result'])
      ? 'its "result" does not fit the MCP schema'
      : `"result" is ${kindOf(answer['result'])}, expected an object`;
  }
  if (!hasError) return 'it holds neither "result" nor "error"';
  const error = answer['error'];
  if (!isPlainObject(error)) return `"error" is ${kindOf(error)}, expected an object`;
  if (!Number.isSafeInteger(error['code'])) {
    return `"error.code" is ${kindOf(error['code'])}, expected an integer`;
  }
  return typeof error['message'] === 'string'
    ? 'its "error" does not fit the JSON-RPC schema'
    : `"error.message" is ${kindOf(error['message'])}, expected a string`;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
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

/**
 * What to say for the SDK's own error for a message it refused (over HTTP
 * it reads messages itself): zod's whole report, many lines and over a
 * thousand characters, which a result the model reads or a server's
 * reason must not carry. Undefined for any other error.
 */
export function sdkRefusedMessage(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'ZodError') return undefined;
  return 'its answer is not a JSON-RPC message as the MCP SDK reads it';
}
