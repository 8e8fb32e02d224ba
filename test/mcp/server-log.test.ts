/**
 * Pins `isLogged` and `serverLogEvent`: messages below the threshold are
 * not logged; the eight MCP levels are ordered debug < … < emergency; data that is not a
 * string is written as JSON (or `String()` when JSON cannot); logger and
 * message are redacted, the logger put on one line of at most 100
 * characters and the message capped at 8,192 characters with a note.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpServerLog } from '../../src/mcp/events.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import { DEFAULT_SERVER_LOG_LEVEL, isLogged, serverLogEvent } from '../../src/mcp/server-log.js';

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const base = { sessionId: 's-1', serverName: 'files' } as const;
const plain = new SecretRedactor([]);
const NOW = new Date('2030-01-02T03:04:05.000Z');

/** What the route listener publishes for `message` under `threshold`: an event, or none. */
const logEvent = (
  message: Parameters<typeof serverLogEvent>[0],
  threshold: LoggingLevel,
  redactor: SecretRedactor,
  context: typeof base,
): McpServerLog | undefined =>
  isLogged(message.level, threshold) ? serverLogEvent(message, redactor, context) : undefined;

beforeEach(() => {
  vi.useFakeTimers({ now: NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('serverLogEvent', () => {
  it('defaults the threshold to info', () => {
    expect(DEFAULT_SERVER_LOG_LEVEL).toBe('info');
  });

  it('builds a frozen McpServerLog with the session, server, level, logger and text', () => {
    const event = logEvent(
      { level: 'warning', logger: 'fs', data: 'disk almost full' },
      'info',
      plain,
      base,
    );
    expect(event).toBeInstanceOf(McpServerLog);
    expect({ ...event }).toEqual({
      sessionId: 's-1',
      serverName: 'files',
      level: 'warning',
      logger: 'fs',
      message: 'disk almost full',
      createdAt: NOW,
    });
    expect(Object.isFrozen(event)).toBe(true);
  });

  it('leaves out the logger when the server named none', () => {
    const event = logEvent({ level: 'info', data: 'x' }, 'info', plain, base);
    expect(Object.keys(event ?? {})).toEqual([
      'sessionId',
      'serverName',
      'level',
      'message',
      'createdAt',
    ]);
  });

  it('passes exactly the levels at or above the threshold, in MCP order', () => {
    for (const [t, threshold] of LEVELS.entries()) {
      const passed = LEVELS.filter((level) => isLogged(level, threshold));
      expect(passed).toEqual(LEVELS.slice(t));
    }
  });

  it('says how many messages were left out just before it, and nothing when none were', () => {
    const message = { level: 'error', data: 'x' } as const;
    expect(serverLogEvent(message, plain, base, 7).dropped).toBe(7);
    expect(Object.hasOwn(serverLogEvent(message, plain, base, 0), 'dropped')).toBe(false);
    expect(Object.hasOwn(serverLogEvent(message, plain, base), 'dropped')).toBe(false);
  });

  it('writes data that is not a string as JSON', () => {
    const message = (data: unknown): string | undefined =>
      logEvent({ level: 'info', data }, 'debug', plain, base)?.message;
    expect(message({ a: [1, 'b'], c: null })).toBe('{"a":[1,"b"],"c":null}');
    expect(message(42)).toBe('42');
    expect(message(null)).toBe('null');
    expect(message(undefined)).toBe('undefined');
  });

  it('falls back to String() for data JSON cannot write', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(logEvent({ level: 'info', data: cyclic }, 'debug', plain, base)?.message).toBe(
      '[object Object]',
    );
    expect(logEvent({ level: 'info', data: 10n }, 'debug', plain, base)?.message).toBe('10');
  });

  it('redacts the logger and the message before anything else', () => {
    const event = logEvent(
      { level: 'error', logger: 'auth sk-123', data: { token: 'sk-123' } },
      'info',
      new SecretRedactor(['sk-123']),
      base,
    );
    expect(event?.logger).toBe('auth ***');
    expect(event?.message).toBe('{"token":"***"}');
  });

  it('masks a secret in structured data, also where JSON escapes it (a key with quotes and newlines)', () => {
    const key = '-----BEGIN KEY-----\nMIIE"quoted"\n-----END KEY-----';
    const event = logEvent(
      { level: 'error', data: { config: { key }, [`by ${key}`]: 1 } },
      'info',
      new SecretRedactor([key]),
      base,
    );
    expect(event?.message).toBe('{"config":{"key":"***"},"by ***":1}');
  });

  it('puts the logger on one line of at most 100 characters', () => {
    expect(
      logEvent({ level: 'info', logger: 'a\nb\u202Ec', data: '' }, 'info', plain, base)?.logger,
    ).toBe('a bc');
    const long = logEvent(
      { level: 'info', logger: 'l'.repeat(150), data: '' },
      'info',
      plain,
      base,
    )?.logger;
    expect(long).toBe(`${'l'.repeat(76)} … (150 characters, cut)`);
    expect(long).toHaveLength(100);
  });

  it('keeps a message of 8,192 characters and caps a longer one to as many, with a note', () => {
    const at = 'm'.repeat(8_192);
    expect(logEvent({ level: 'info', data: at }, 'info', plain, base)?.message).toBe(at);
    const note = '… (8195 characters, cut)';
    const capped = logEvent({ level: 'info', data: `${at}xyz` }, 'info', plain, base)?.message;
    expect(capped).toBe(`${'m'.repeat(8_192 - note.length)}${note}`);
    // Capped again (a message masked as it arrived, then published): unchanged.
    expect(logEvent({ level: 'info', data: capped }, 'info', plain, base)?.message).toBe(capped);
  });

  it('keeps line breaks in the message: it is an event, not prompt text', () => {
    expect(logEvent({ level: 'info', data: 'a\nb' }, 'info', plain, base)?.message).toBe('a\nb');
  });
});
