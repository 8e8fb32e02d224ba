/**
 * The two reads that check the common shape directly before the SDK's
 * schema (`json-rpc-message.ts`, `call-result.ts`) give the SDK's verdict,
 * value and error on anything, shapes one member away from the common one
 * most of all; a bridged call of a server that answers outside the MCP
 * schema fails with the schema's words, and the session never shares an
 * in-process server's own result objects.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readCallToolResult } from '../../src/mcp/call-result.js';
import {
  readJsonRpcMessage,
  UNREADABLE_ANSWER,
  UnreadableLineError,
} from '../../src/mcp/json-rpc-message.js';
import { isPlainObject } from '../../src/core/json.js';
import { McpIntegrationSection, Session, invokeTool, type Tool } from '../../src/index.js';

/** What a read gave: its value, or its error's class and message. */
function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message };
  }
}

/** Values of every JSON kind, and a few members the common shapes use. */
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1.5, 2 ** 53, '', 'text', '2.0'),
    fc.integer(),
    fc.string(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.oneof(
        fc.constantFrom('type', 'text', 'content', 'isError', '_meta', '__proto__', 'extra'),
        fc.string(),
      ),
      tie('value'),
      { maxKeys: 3 },
    ),
  ),
})).value;

/** A text block, sometimes one member off. */
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  fc.record({ type: fc.constantFrom('text', 'image', 'Text'), text: json }),
  fc.record(
    { type: fc.constant('text'), text: fc.string(), annotations: json, extra: json, _meta: json },
    { requiredKeys: ['type', 'text'] },
  ),
  json,
);

/** A call result, sometimes one member off. */
const callResult = fc.oneof(
  fc.record({ content: fc.array(block, { maxLength: 3 }) }),
  fc.record(
    {
      content: fc.oneof(fc.array(block, { maxLength: 3 }), json),
      isError: fc.oneof(fc.boolean(), json),
      structuredContent: json,
      _meta: json,
      extra: json,
    },
    { requiredKeys: [] },
  ),
  json,
);

/** A JSON-RPC message as a line, sometimes one member off. */
const messageLine = fc
  .oneof(
    fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.integer(), fc.string()),
      result: callResult,
    }),
    fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.double(), fc.constant(2 ** 60), json),
        result: fc.oneof(callResult, json),
        method: fc.constantFrom('notifications/progress', 'ping'),
        error: fc.record({ code: fc.integer(), message: fc.string() }),
        extra: json,
      },
      { requiredKeys: [] },
    ),
    json,
  )
  .map((value) => JSON.stringify(value));

describe('readCallToolResult', () => {
  it('gives the SDK schema’s verdict and value on any value, its issues as the cause', () => {
    fc.assert(
      fc.property(callResult, (result) => {
        const sdk = safeParse(CallToolResultSchema, result);
        if (sdk.success) {
          expect(readCallToolResult(result)).toStrictEqual(sdk.data);
          return;
        }
        let thrown: unknown;
        try {
          readCallToolResult(result);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(Error);
        expect((thrown as Error).message).toMatch(/^its result breaks the MCP schema: \S/);
        expect((thrown as Error).cause).toEqual(sdk.error);
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads hidden, inherited and computed members as the schema does (in-process servers)', () => {
    const hidden = (base: object, key: string, value: unknown): object =>
      Object.defineProperty(base, key, { value, enumerable: false });
    const getter = (base: object, key: string, value: unknown): object =>
      Object.defineProperty(base, key, { get: () => value, enumerable: true });
    const text = (): object => ({ type: 'text', text: 'x' });
    const cases: unknown[] = [
      hidden({ content: [text()] }, 'isError', true),
      hidden({ content: [text()] }, 'isError', 'yes'),
      hidden({ content: [text()] }, 'structuredContent', { a: 1 }),
      hidden({ content: [text()] }, '_meta', { b: 2 }),
      { content: [hidden(text(), 'annotations', { priority: 0.5 })] },
      { content: [hidden(text(), 'annotations', { priority: 9 })] },
      { content: [hidden(text(), '_meta', { c: 3 })] },
      getter({}, 'content', [text()]),
      getter({ content: [text()] }, 'isError', true),
      { content: [getter({ type: 'text' }, 'text', 'computed')] },
      { content: [text()], isError: undefined },
      { content: [{ ...text(), annotations: undefined, _meta: undefined }] },
      {
        content: [
          new Proxy(text(), {
            getPrototypeOf: () => {
              throw new Error('a proxy');
            },
          }),
        ],
      },
      new Proxy(
        { content: [text()] },
        {
          getPrototypeOf: () => {
            throw new Error('a proxy');
          },
        },
      ),
    ];
    for (const result of cases) {
      let sdk: ReturnType<typeof safeParse>;
      try {
        sdk = safeParse(CallToolResultSchema, result);
      } catch (error) {
        // What the schema throws reading the result, the read throws too.
        expect(() => readCallToolResult(result)).toThrow(error);
        continue;
      }
      if (sdk.success) expect(readCallToolResult(result)).toStrictEqual(sdk.data);
      else expect(() => readCallToolResult(result)).toThrow(/^its result breaks the MCP schema/);
    }
  });

  it('reads members Object.prototype was given, hidden, as the schema reads them', () => {
    for (const key of ['isError', '_meta', 'structuredContent', 'annotations']) {
      for (const value of [undefined, true, { progressToken: 5 }]) {
        Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true });
        try {
          const result = { content: [{ type: 'text', text: 'x' }] };
          const sdk = safeParse(CallToolResultSchema, result);
          if (sdk.success) expect(readCallToolResult(result)).toStrictEqual(sdk.data);
          else expect(() => readCallToolResult(result)).toThrow(/^its result breaks/);
          const line = '{"jsonrpc":"2.0","id":1,"result":{"a":1}}';
          expect(readOutcome(line)).toStrictEqual(expectedRead(line));
        } finally {
          delete (Object.prototype as Record<string, unknown>)[key];
        }
      }
    }
  });

  it('names where a broken result breaks the schema, by the form a block’s type names', () => {
    const broken = (result: unknown): string => {
      try {
        readCallToolResult(result);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('read a broken result');
    };
    expect(broken({ content: [{ type: 'text', text: 42 }] })).toBe(
      'its result breaks the MCP schema: content.0.text: Invalid input: expected string, received number',
    );
    expect(broken({ content: [{ type: 'image', data: 'aGk=' }] })).toBe(
      'its result breaks the MCP schema: content.0.mimeType: Invalid input: expected string, received undefined',
    );
    expect(broken({ content: [{ type: 'video' }] })).toBe(
      'its result breaks the MCP schema: content.0: not a content block of a type MCP knows',
    );
    expect(broken({ content: 'text', isError: 'yes' })).toBe(
      'its result breaks the MCP schema: content: Invalid input: expected array, received string; isError: Invalid input: expected boolean, received string',
    );
    const long = broken({
      content: [{ type: 'text', text: 'x' }],
      structuredContent: 'S'.repeat(5_000),
    });
    expect(long.length).toBeLessThan(300);
    const symbol = broken({
      content: [
        {
          type: 'text',
          text: 'x',
          annotations: { [Symbol('S'.repeat(5_000))]: 1, priority: 'high' },
        },
      ],
    });
    expect(symbol.length).toBeLessThan(400);
    const many = broken({ content: Array.from({ length: 50 }, () => ({ type: 'text' })) });
    expect(many.split('; ')).toHaveLength(6);
    expect(many).toMatch(/; and more$/);
  });

  it('gives a copy of a plain text result, never the server’s own objects', () => {
    const result = { content: [{ type: 'text', text: 'one' }], isError: false };
    const read = readCallToolResult(result);
    expect(read).toEqual(result);
    expect(read).not.toBe(result);
    expect(read.content).not.toBe(result.content);
    expect(read.content[0]).not.toBe(result.content[0]);
  });

  it('strips members a text block may not have, as the schema does', () => {
    expect(readCallToolResult({ content: [{ type: 'text', text: 'a', extra: 1 }] })).toEqual({
      content: [{ type: 'text', text: 'a' }],
    });
    expect(readCallToolResult({})).toEqual({ content: [] });
  });
});

/**
 * What readJsonRpcMessage gives on `line`: its message, or the error it
 * throws by the error it wraps (the SDK's own), or, for an error response
 * that stands in for an answer it could not read, that answer's id.
 */
function readOutcome(line: string): unknown {
  try {
    const message = readJsonRpcMessage(line);
    if ('error' in message && message.error.data === UNREADABLE_ANSWER) {
      return { unreadableAnswer: message.id, code: message.error.code };
    }
    return { value: message };
  } catch (error) {
    expect(error).toBeInstanceOf(UnreadableLineError);
    return outcome(() => {
      throw (error as Error).cause;
    });
  }
}

/**
 * What readJsonRpcMessage should give where deserializeMessage gives its
 * outcome: the same, except that JSON with an `id` and no `method` (an
 * answer) that the SDK refuses is an unreadable answer.
 */
function expectedRead(line: string): unknown {
  const sdk = outcome(() => deserializeMessage(line));
  if ((sdk as { error?: string }).error !== 'ZodError') return sdk;
  const value = JSON.parse(line) as unknown;
  if (!isPlainObject(value) || 'method' in value) return sdk;
  const { id } = value;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return sdk;
  return { unreadableAnswer: id, code: ErrorCode.InternalError };
}

describe('readJsonRpcMessage', () => {
  it('gives deserializeMessage’s verdict, value and error on any line, but for unreadable answers', () => {
    fc.assert(
      fc.property(messageLine, (line) => {
        expect(readOutcome(line)).toEqual(expectedRead(line));
      }),
      { numRuns: 3_000 },
    );
  });

  it('gives deserializeMessage’s error on text that is not JSON, and on a wrong id', () => {
    for (const line of [
      '{"jsonrpc":"2.0","id":1,"result":{}',
      '{"jsonrpc":"2.0","id":1.5,"result":{}}',
    ]) {
      expect(readOutcome(line)).toEqual(outcome(() => deserializeMessage(line)));
    }
  });

  it('says what is wrong with an answer it cannot read, naming members and kinds only', () => {
    const said = (answer: object): string => {
      const message = readJsonRpcMessage(JSON.stringify({ id: 4, ...answer }));
      return 'error' in message ? message.error.message : 'read';
    };
    const prefix = 'its answer is not a JSON-RPC response: ';
    expect(said({ jsonrpc: '2.0', result: 42 })).toBe(
      `${prefix}"result" is a number, expected an object`,
    );
    expect(said({ jsonrpc: '2.0', result: null })).toBe(
      `${prefix}"result" is null, expected an object`,
    );
    expect(said({ jsonrpc: '1.0', result: {} })).toBe(
      `${prefix}"jsonrpc" is a string, expected "2.0"`,
    );
    expect(said({ jsonrpc: '2.0' })).toBe(`${prefix}it holds neither "result" nor "error"`);
    expect(said({ jsonrpc: '2.0', error: { code: 'x', message: 'secret-ish' } })).toBe(
      `${prefix}"error.code" is a string, expected an integer`,
    );
    expect(said({ jsonrpc: '2.0', error: { code: 1, message: 12 } })).toBe(
      `${prefix}"error.message" is a number, expected a string`,
    );
    expect(said({ jsonrpc: '2.0', result: { _meta: 5 } })).toBe(
      `${prefix}its "result" does not fit the MCP schema`,
    );
  });
});

/**
 * A server that speaks JSON-RPC by hand, so that it can answer what the
 * SDK's own `Server` would refuse to send: every `tools/call` gets
 * `answer` as its result.
 */
function wireServer(answer: unknown): {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
} {
  let transport: Transport | undefined;
  const send = (message: unknown): void => void transport?.send(message as JSONRPCMessage);
  return {
    async connect(serverSide) {
      transport = serverSide;
      serverSide.onmessage = (message) => {
        if (!('method' in message) || !('id' in message)) return;
        const { id, method } = message;
        if (method === 'initialize') {
          send({
            jsonrpc: '2.0',
            id,
            result: {
              protocolVersion: (message.params as { protocolVersion: string }).protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'wire', version: '1.0.0' },
            },
          });
        } else if (method === 'tools/list') {
          const tool = {
            name: 'answer',
            inputSchema: { type: 'object' },
            annotations: { openWorldHint: false },
          };
          send({ jsonrpc: '2.0', id, result: { tools: [tool] } });
        } else if (method === 'tools/call') {
          send({ jsonrpc: '2.0', id, result: answer });
        } else {
          send({ jsonrpc: '2.0', id, result: {} });
        }
      };
      await serverSide.start();
    },
    async close() {
      await transport?.close();
    },
  };
}

const sections: McpIntegrationSection[] = [];
afterEach(async () => {
  await Promise.all(sections.splice(0).map((section) => section.disconnect()));
});

async function bridged(server: {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}): Promise<{ tool: Tool; session: Session }> {
  const session = new Session();
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'wire',
        transport: { type: 'in-memory', server: server as unknown as Server },
      },
    ],
    session,
  });
  sections.push(section);
  await section.connect();
  const tool = section.tools().find((candidate) => candidate.name === 'wire_answer');
  if (tool === undefined) throw new Error('no wire_answer tool');
  return { tool, session };
}

describe('a bridged call of a server that answers outside the MCP schema', () => {
  it('fails with the schema’s words, as a result', async () => {
    const { tool, session } = await bridged(wireServer({ content: [{ type: 'text', text: 42 }] }));
    const result = await invokeTool(tool, {}, { session });
    expect(result.success).toBe(false);
    expect(result.message).toBe(
      'tool "answer" of server "wire" failed: its result breaks the MCP schema: content.0.text: Invalid input: expected string, received number',
    );
  });

  it('strips an unknown member of a text block, and reads a missing content as none', async () => {
    const extra = await bridged(
      wireServer({ content: [{ type: 'text', text: 'hi', hidden: 'x' }] }),
    );
    const first = await invokeTool(extra.tool, {}, { session: extra.session });
    expect(first.value).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const none = await bridged(wireServer({}));
    const second = await invokeTool(none.tool, {}, { session: none.session });
    expect(second).toMatchObject({ success: true, value: { content: [] } });
  });

  it('never hands the session an in-process server’s own result objects', async () => {
    const shared = { content: [{ type: 'text' as const, text: 'constant' }] };
    const server = new Server(
      { name: 'shared', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'answer', inputSchema: { type: 'object' as const } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => shared);
    const { tool, session } = await bridged(server);
    const result = await invokeTool(tool, {}, { session });
    const value = result.value as { content: unknown[] };
    expect(value.content).toEqual(shared.content);
    expect(value.content).not.toBe(shared.content);
    expect(value.content[0]).not.toBe(shared.content[0]);
  });
});
