/**
 * The stdio read buffer: the same messages, errors and limit as the SDK's
 * `ReadBuffer`, however the bytes are cut into chunks, and installed on
 * every stdio transport this library makes.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNREADABLE_ANSWER } from '../../src/mcp/json-rpc-message.js';
import { LineBuffer, type ReadBufferLike } from '../../src/mcp/line-buffer.js';
import { MAX_MESSAGE_CONTAINERS } from '../../src/mcp/message-containers.js';
import { useLineBuffer } from '../../src/mcp/transport-factory.js';

/**
 * Everything `buffer` gives after each chunk: messages, and the errors it
 * throws, in order, as the SDK's buffer says them: a line LineBuffer cannot
 * read by the error it wraps, and the error response that stands in for an
 * answer it cannot read as the schema's error the SDK throws for it.
 */
function readAll(buffer: ReadBufferLike, chunks: readonly Buffer[]): unknown[] {
  const out: unknown[] = [];
  for (const chunk of chunks) {
    try {
      buffer.append(chunk);
    } catch (error) {
      out.push(`append: ${(error as Error).message}`);
      continue;
    }
    for (;;) {
      try {
        const message = buffer.readMessage();
        if (message === null) break;
        const unreadable = 'error' in message && message.error.data === UNREADABLE_ANSWER;
        out.push(unreadable ? 'read: ZodError' : message);
      } catch (error) {
        const cause = (error as Error).cause as Error | undefined;
        out.push(`read: ${(cause ?? (error as Error)).name}`);
      }
    }
  }
  return out;
}

/** Cuts `bytes` at the given places (any order, any count). */
function cut(bytes: Buffer, places: readonly number[]): Buffer[] {
  const at = [...new Set(places.map((place) => place % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    if (end > start) chunks.push(bytes.subarray(start, end));
    start = Math.max(start, end);
  }
  return chunks;
}

const line = fc.oneof(
  fc
    .record({ id: fc.nat(), text: fc.string({ unit: 'grapheme' }) })
    .map(({ id, text }) => JSON.stringify({ jsonrpc: '2.0', id, result: { text } })),
  fc.constant('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((text) => text.replace(/\n/g, ' ')), // not JSON-RPC
);

describe('LineBuffer', () => {
  it('gives what the SDK read buffer gives, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, fc.boolean()), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.string({ maxLength: 5 }).map((tail) => tail.replace(/\n/g, '')),
        (lines, places, tail) => {
          const text =
            lines.map(([body, crlf]) => `${body}${crlf ? '\r\n' : '\n'}`).join('') + tail;
          const chunks = cut(Buffer.from(text, 'utf8'), places);
          expect(readAll(new LineBuffer(), chunks)).toEqual(readAll(new ReadBuffer(), chunks));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads the messages a line that is not JSON holds whole, after its error', () => {
    // A server wrote the start of an answer and no newline, then two whole messages.
    const cutShort = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"te';
    const whole = '{"jsonrpc":"2.0","id":2,"result":{}}';
    const note = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
    const chunks = [
      Buffer.from(`${cutShort}${whole}${note}\n{"jsonrpc":"2.0","id":3,"result":{}}\n`),
    ];
    expect(readAll(new LineBuffer(), chunks)).toEqual([
      'read: SyntaxError',
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });

  it('reads no message out of a line that does not start one, and a bounded number out of one that does', () => {
    // A log line on stdout quoting someone's text: it answers no call.
    const forged = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';
    expect(readAll(new LineBuffer(), [Buffer.from(`GET /?q=${forged}\n`)])).toEqual([
      'read: SyntaxError',
    ]);
    const many = `{"jsonrpc":"2.0",${'{"jsonrpc":"2.0","method":"m"}'.repeat(10_000)}\n`;
    const out = readAll(new LineBuffer(), [Buffer.from(many)]);
    expect(out[0]).toBe('read: SyntaxError');
    expect(out).toHaveLength(9);
  });

  it('refuses past its limit with the SDK message, and starts afresh', () => {
    const chunks = [
      Buffer.from('{"jsonrpc":'),
      Buffer.from('x'.repeat(40)),
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n'),
    ];
    expect(readAll(new LineBuffer(50), chunks)).toEqual(
      readAll(new ReadBuffer({ maxBufferSize: 50 }), chunks),
    );
    expect(readAll(new LineBuffer(50), chunks)).toEqual([
      'append: ReadBuffer exceeded maximum size of 50 bytes',
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  it('reads a 10 MB line in 64 KB chunks once, with a message after it in the same chunk', () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      result: { text: 'x'.repeat(10_000_000) },
    });
    const bytes = Buffer.from(`${body}\n{"jsonrpc":"2.0","id":8,"result":{}}\n`);
    const chunks = cut(
      bytes,
      Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, i) => i * 65_536),
    );
    const out = readAll(new LineBuffer(), chunks);
    expect(out).toHaveLength(2);
    expect(out[1]).toEqual({ jsonrpc: '2.0', id: 8, result: {} });
  });

  it('refuses a line of more objects and arrays than a message may hold, and reads the next', () => {
    const many = `{"jsonrpc":"2.0","id":1,"result":{"items":[${'{},'.repeat(MAX_MESSAGE_CONTAINERS)}{}]}}`;
    // As many braces inside a string: text, read as a message.
    const quoted = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      result: { text: `\\"{${'['.repeat(MAX_MESSAGE_CONTAINERS)}` },
    });
    const next = '{"jsonrpc":"2.0","id":3,"result":{}}';
    const out = readAll(new LineBuffer(), [Buffer.from(`${many}\n${quoted}\n${next}\n`)]);
    expect(out[0]).toBe('read: TooManyContainersError');
    expect(out.slice(1)).toEqual([JSON.parse(quoted), { jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('gives the same messages when a long line arrives in thousands of tiny chunks (merged as it goes)', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'é'.repeat(100_000) } });
    const bytes = Buffer.from(`${body}\r\n{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc"`);
    const chunks = cut(
      bytes,
      Array.from({ length: Math.ceil(bytes.length / 37) }, (_, i) => i * 37),
    );
    expect(chunks.length).toBeGreaterThan(5_000);
    const out = readAll(new LineBuffer(), chunks);
    expect(out).toEqual(readAll(new ReadBuffer(), chunks));
    expect(out).toHaveLength(2);
  });

  it('replaces the read buffer of the installed SDK stdio transport', () => {
    const transport = new StdioClientTransport({ command: process.execPath });
    expect(useLineBuffer(transport)).toBeInstanceOf(LineBuffer);
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(
      LineBuffer,
    );
  });
});
