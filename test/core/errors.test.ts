/**
 * `core/errors.ts` read directly: each class's `name`, `code`, fields,
 * message and native `cause`, and the hierarchy callers catch by
 * (`instanceof McpError`, `instanceof PromptError`).
 */
import { describe, expect, it } from 'vitest';
import {
  FATAL_PREFIX,
  McpConfigError,
  McpConnectionError,
  McpError,
  McpFatalToolError,
  McpSchemaError,
  McpTimeoutError,
  McpToolError,
  PromptError,
  PromptRenderError,
  PromptValidationError,
  messageOf,
} from '../../src/core/errors.js';

const cause = new Error('underneath');

describe('prompt errors', () => {
  it.each([
    ['PromptError', new PromptError('prompt-render', 'm', { cause }), 'prompt-render'],
    ['PromptValidationError', new PromptValidationError('m', { cause }), 'prompt-validation'],
    ['PromptRenderError', new PromptRenderError('m', { cause }), 'prompt-render'],
  ])('%s has its name, code, message and cause', (name, error, code) => {
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.message).toBe('m');
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(PromptError);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(McpError);
    expect(String(error)).toBe(`${name}: m`);
  });

  it('has no cause unless one is given', () => {
    const error = new PromptValidationError('bad');
    expect(error.cause).toBeUndefined();
    expect('cause' in error).toBe(false);
  });
});

describe('MCP errors', () => {
  it('McpError carries any code', () => {
    const error = new McpError('mcp-tool', 'failed', { cause });
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      'McpError',
      'mcp-tool',
      'failed',
      cause,
    ]);
    expect(error).not.toBeInstanceOf(PromptError);
  });

  it('McpConfigError names the field', () => {
    const error = new McpConfigError('servers[0].name', 'name "GitHub" must match …', { cause });
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      name: 'McpConfigError',
      code: 'mcp-config',
      field: 'servers[0].name',
      message: 'name "GitHub" must match …',
      cause,
    });
  });

  it('McpConnectionError names server and transport; its reason is the message unless given', () => {
    const plain = new McpConnectionError('git', 'stdio', 'server "git" exited');
    expect(plain).toMatchObject({
      name: 'McpConnectionError',
      code: 'mcp-connection',
      serverName: 'git',
      transport: 'stdio',
      message: 'server "git" exited',
      reason: 'server "git" exited',
    });
    expect(plain.cause).toBeUndefined();
    const given = new McpConnectionError('git', 'http', 'server "git": refused', {
      cause,
      reason: 'refused',
    });
    expect(given.reason).toBe('refused');
    expect(given.message).toBe('server "git": refused');
    expect(given.cause).toBe(cause);
    expect(given).toBeInstanceOf(McpError);
  });

  it('McpToolError keeps the JSON-RPC error when there is one', () => {
    const rpc = { code: -32602, message: 'Invalid params', data: { field: 'q' } };
    const error = new McpToolError('shop', 'order', 'call failed', rpc, { cause });
    expect(error).toMatchObject({
      name: 'McpToolError',
      code: 'mcp-tool',
      serverName: 'shop',
      toolName: 'order',
      message: 'call failed',
      rpcError: rpc,
      cause,
    });
    expect(new McpToolError('shop', 'order', 'call failed').rpcError).toBeUndefined();
  });

  it('McpTimeoutError names the server and timeoutMs', () => {
    const error = new McpTimeoutError('slow', 1500, 'timed out after 1500 ms');
    expect(error).toMatchObject({
      name: 'McpTimeoutError',
      code: 'mcp-timeout',
      serverName: 'slow',
      timeoutMs: 1500,
      message: 'timed out after 1500 ms',
    });
    expect(error).toBeInstanceOf(McpError);
  });

  it('McpSchemaError writes the tool and server into the message, and keeps the reason apart', () => {
    const error = new McpSchemaError('shop', 'place_order', 'a $ref does not resolve', { cause });
    expect(error).toMatchObject({
      name: 'McpSchemaError',
      code: 'mcp-schema',
      serverName: 'shop',
      toolName: 'place_order',
      reason: 'a $ref does not resolve',
      message: 'tool "place_order" of server "shop": a $ref does not resolve',
      cause,
    });
    expect(error).toBeInstanceOf(McpError);
  });

  it('McpFatalToolError names the tool; FATAL_PREFIX is "[FATAL] "', () => {
    const error = new McpFatalToolError('deploy', '[FATAL] disk full');
    expect(error).toMatchObject({
      name: 'McpFatalToolError',
      code: 'mcp-fatal-tool',
      toolName: 'deploy',
      message: '[FATAL] disk full',
    });
    expect(error).toBeInstanceOf(McpError);
    expect(FATAL_PREFIX).toBe('[FATAL] ');
  });

  it('every subclass has its own name and a distinct code, and a stack', () => {
    const errors = [
      new McpConfigError('f', 'm'),
      new McpConnectionError('s', 't', 'm'),
      new McpToolError('s', 't', 'm'),
      new McpTimeoutError('s', 1, 'm'),
      new McpSchemaError('s', 't', 'm'),
      new McpFatalToolError('t', 'm'),
    ];
    expect(new Set(errors.map((error) => error.code)).size).toBe(errors.length);
    for (const error of errors) {
      expect(error.name).toBe(error.constructor.name);
      expect(error.stack).toContain(error.name);
    }
  });
});

describe('messageOf', () => {
  it("gives an Error's message and any other thrown value as a string", () => {
    expect(messageOf(new McpError('mcp-config', 'bad url'))).toBe('bad url');
    expect(messageOf('plain text')).toBe('plain text');
    expect(messageOf(42)).toBe('42');
    expect(messageOf(undefined)).toBe('undefined');
  });

  it('never throws: a value that cannot be written as text is described', () => {
    const unwritable = 'a thrown value that cannot be written as text';
    const throwingMessage = Object.defineProperty(new Error('x'), 'message', {
      get: () => {
        throw new Error('getter');
      },
    });
    expect(messageOf(Object.create(null))).toBe(unwritable);
    expect(messageOf({ toString: () => ({}) })).toBe(unwritable);
    expect(messageOf(throwingMessage)).toBe(unwritable);
    expect(messageOf(Symbol('s'))).toBe('Symbol(s)');
  });
});
