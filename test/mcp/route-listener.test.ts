/**
 * Pins `routeListener`: which session event each report of a route and its
 * connections becomes, with exactly which fields (session, server,
 * endpoint, transport, section key, the session's sensitivity), that log
 * messages are filtered by level and redacted through the route, and that
 * isolation reports call `isolating` before the event is dispatched.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { parseServerConfigs } from '../../src/config/parse-server-configs.js';
import {
  McpIsolationFailed,
  McpNetworkDenied,
  McpSectionIsolated,
  McpServerConnected,
  McpServerDisconnected,
  McpServerLog,
  McpServerUnavailable,
} from '../../src/mcp/events.js';
import { SecretRedactor } from '../../src/mcp/redact.js';
import {
  MAX_DENIAL_EVENTS_PER_SECOND,
  MAX_LOG_EVENTS_PER_SECOND,
} from '../../src/mcp/event-rate.js';
import {
  callSecretsSent,
  ECHO_GRACE_MS,
  MAX_SETTLED_CALLS,
} from '../../src/mcp/in-flight-secrets.js';
import { routeListener } from '../../src/mcp/route-listener.js';
import type { ServerRoute } from '../../src/mcp/server-route.js';
import type { Endpoint } from '../../src/mcp/server-connection.js';
import { Session } from '../../src/runtime/session.js';

function setup() {
  const session = new Session({ sessionId: 'sess-1' });
  const events: object[] = [];
  session.bus.subscribeAll((event) => events.push(event));
  const [config] = parseServerConfigs([
    { name: 'github', transport: { type: 'stdio', command: 'node', args: ['server.js'] } },
  ]);
  const calls: string[] = [];
  const redactor = new SecretRedactor(['hunter2']);
  const route = { redact: (text: string) => redactor.redact(text), redactor };
  const listener = routeListener({
    session,
    config: config!,
    sectionKey: 'tools.github',
    serverLogLevel: 'warning',
    route: () => route as unknown as ServerRoute,
    toolsChanged: (endpoint: Endpoint) => calls.push(`toolsChanged:${endpoint}`),
    isolating: () => calls.push(`isolating(after ${events.length} events)`),
  });
  return { session, events, calls, listener };
}

/** The event's own fields, with createdAt checked to be a Date and left out. */
function fields(event: object | undefined): Record<string, unknown> {
  const { createdAt, ...rest } = event as { createdAt: unknown };
  expect(createdAt).toBeInstanceOf(Date);
  return rest;
}

describe('routeListener', () => {
  it('turns connected and disconnected into events carrying the endpoint', () => {
    const { events, listener } = setup();
    const isolated = listener.connection('isolated');
    isolated.connected?.({ transport: 'stdio', toolCount: 3, reconnect: true });
    isolated.disconnected?.({ expected: false, reason: 'EOF' });
    listener.connection('normal').disconnected?.({ expected: true });
    expect(events.map((e) => e.constructor)).toEqual([
      McpServerConnected,
      McpServerDisconnected,
      McpServerDisconnected,
    ]);
    expect(fields(events[0])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      endpoint: 'isolated',
      transport: 'stdio',
      toolCount: 3,
      reconnect: true,
    });
    expect(fields(events[1])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      endpoint: 'isolated',
      expected: false,
      reason: 'EOF',
    });
    expect(fields(events[2])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      endpoint: 'normal',
      expected: true,
    });
  });

  it('reports a failure as unavailable with the configured transport type', () => {
    const { events, listener } = setup();
    listener.connection('normal').failed?.({ reason: 'spawn node ENOENT' });
    expect(events[0]).toBeInstanceOf(McpServerUnavailable);
    expect(fields(events[0])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      transport: 'stdio',
      reason: 'spawn node ENOENT',
    });
  });

  it('forwards tool-list changes with the endpoint and dispatches nothing', () => {
    const { events, calls, listener } = setup();
    listener.connection('isolated').toolsChanged?.([]);
    listener.connection('normal').toolsChanged?.([]);
    expect(calls).toEqual(['toolsChanged:isolated', 'toolsChanged:normal']);
    expect(events).toEqual([]);
  });

  it('publishes logs at or above the level, redacted through the route', () => {
    const { events, listener } = setup();
    const log = listener.connection('normal').log!;
    log({ level: 'info', data: 'too quiet' });
    log({ level: 'warning', logger: 'auth', data: 'token hunter2 refused' });
    log({ level: 'error', data: { password: 'hunter2' } });
    expect(events.map((e) => e.constructor)).toEqual([McpServerLog, McpServerLog]);
    expect(fields(events[0])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      level: 'warning',
      logger: 'auth',
      message: 'token *** refused',
    });
    expect(fields(events[1])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      level: 'error',
      message: '{"password":"***"}',
    });
  });

  it("masks the secret arguments of the session's calls in flight, on any connection, until a grace after they settle", () => {
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const { session, events, listener } = setup();
    const log = listener.connection('normal').log!;
    const settleFirst = callSecretsSent(session, ['pw-1234', '90210']);
    const settleSecond = callSecretsSent(session, ['pw-1234-longer']);
    // A call of the session on another connection (one backend may share its
    // state between connections): masked here too.
    const settleOther = callSecretsSent(session, ['elsewhere']);
    // Another session's: never (what is masked would tell this one what it holds).
    const settleStranger = callSecretsSent(new Session(), ['strangers-pw']);
    log({ level: 'warning', logger: 'auth pw-1234', data: 'login with pw-1234-longer, pw-1234' });
    // Structured data: a number is masked as its text, a quoted secret as JSON escapes it.
    log({ level: 'warning', data: { pin: 90210, note: 'elsewhere', guess: 'strangers-pw' } });
    settleFirst();
    settleSecond();
    // A server may log a request once it is done: still masked within the grace.
    log({ level: 'warning', data: 'just after: pw-1234' });
    vi.advanceTimersByTime(ECHO_GRACE_MS);
    log({ level: 'warning', data: 'long after: pw-1234' });
    settleOther();
    settleStranger();
    const messages = events.map((event) => fields(event));
    expect(messages.map((event) => [event['logger'], event['message']])).toEqual([
      ['auth ***', 'login with ***, ***'],
      [undefined, '{"pin":***,"note":"***","guess":"strangers-pw"}'],
      [undefined, 'just after: ***'],
      [undefined, 'long after: pw-1234'],
    ]);
  });

  it('masks a call secret the server quotes cut short', () => {
    const { session, events, listener } = setup();
    const log = listener.connection('normal').log!;
    const key = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzABCD';
    const settle = callSecretsSent(session, [key]);
    log({ level: 'warning', data: `rejected api_key "${key.slice(0, 40)}…": expired` });
    settle();
    expect(fields(events.at(-1))).toMatchObject({ message: 'rejected api_key "***…": expired' });
  });

  it('keeps the secrets of at most MAX_SETTLED_CALLS settled calls for the grace, the newest', () => {
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const { session, events, listener } = setup();
    const log = listener.connection('normal').log!;
    for (let i = 0; i <= MAX_SETTLED_CALLS; i += 1) {
      callSecretsSent(session, [`secret-${String(i).padStart(3, '0')}`])();
    }
    log({
      level: 'warning',
      data: `secret-000 secret-001 secret-${String(MAX_SETTLED_CALLS).padStart(3, '0')}`,
    });
    expect(fields(events.at(-1))).toMatchObject({ message: 'secret-000 *** ***' });
  });

  it('masks a call secret in a log message the rate held back, published after the call settled', () => {
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => 5_000);
    try {
      const { session, events, listener } = setup();
      const log = listener.connection('normal').log!;
      const settle = callSecretsSent(session, ['pw-1234']);
      for (let i = 0; i <= MAX_LOG_EVENTS_PER_SECOND; i += 1) {
        log({ level: 'warning', data: `attempt ${String(i)} with pw-1234` });
      }
      settle();
      listener.closed(); // publishes the one held back
      expect(events).toHaveLength(MAX_LOG_EVENTS_PER_SECOND + 1);
      expect(fields(events.at(-1))).toMatchObject({
        message: `attempt ${String(MAX_LOG_EVENTS_PER_SECOND)} with ***`,
      });
      expect(JSON.stringify(events)).not.toContain('pw-1234');
    } finally {
      clock.mockRestore();
    }
  });

  it('calls isolating, then offers the isolated side’s tools, before dispatching McpSectionIsolated with the session’s sensitivity', () => {
    const { session, events, calls, listener } = setup();
    session.privateData.add('payroll', 'secret');
    const before = events.length;
    listener.isolated('sandbox');
    expect(calls).toEqual([`isolating(after ${before} events)`, 'toolsChanged:isolated']);
    expect(events).toHaveLength(before + 1);
    const isolated = events.find((e) => e instanceof McpSectionIsolated);
    expect(fields(isolated)).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      sectionKey: 'tools.github',
      mode: 'sandbox',
      sensitivity: 'secret',
    });
  });

  it('calls isolating before dispatching McpIsolationFailed', () => {
    const { events, calls, listener } = setup();
    listener.isolationFailed('bubblewrap missing');
    expect(calls).toEqual(['isolating(after 0 events)']);
    expect(events[0]).toBeInstanceOf(McpIsolationFailed);
    expect(fields(events[0])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      sectionKey: 'tools.github',
      reason: 'bubblewrap missing',
    });
  });

  it('reports a denied destination without calling isolating', () => {
    const { events, calls, listener } = setup();
    listener.networkDenied('evil.example', 443, 'not on the allow-list');
    expect(calls).toEqual([]);
    expect(events[0]).toBeInstanceOf(McpNetworkDenied);
    expect(fields(events[0])).toEqual({
      sessionId: 'sess-1',
      serverName: 'github',
      host: 'evil.example',
      port: 443,
      reason: 'not on the allow-list',
    });
  });

  it("masks the server's secrets in a denied destination, which the sandboxed server chose", () => {
    const { events, listener } = setup();
    listener.networkDenied(
      'hunter2.evil.example',
      443,
      'hunter2.evil.example is not on the allow-list',
    );
    expect(fields(events[0])).toMatchObject({
      host: '***.evil.example',
      reason: '***.evil.example is not on the allow-list',
    });
  });

  it('publishes at most the rate of denials and logs, and the next one counts those left out', () => {
    let now = 5_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      const { events, listener } = setup();
      const connection = listener.connection('normal');
      for (let i = 0; i < 50; i += 1) listener.networkDenied('evil.example', 443, 'refused');
      for (let i = 0; i < 300; i += 1) {
        connection.log?.({ level: 'error', data: `flood ${String(i)}` });
      }
      const denials = events.filter((event) => event instanceof McpNetworkDenied);
      const logs = events.filter((event) => event instanceof McpServerLog);
      expect(denials).toHaveLength(MAX_DENIAL_EVENTS_PER_SECOND);
      expect(logs).toHaveLength(MAX_LOG_EVENTS_PER_SECOND);
      now += 1_000;
      listener.networkDenied('evil.example', 443, 'refused');
      connection.log?.({ level: 'error', data: 'later' });
      expect(events.at(-2)).toMatchObject({ dropped: 50 - MAX_DENIAL_EVENTS_PER_SECOND });
      expect(events.at(-1)).toMatchObject({
        message: 'later',
        dropped: 300 - MAX_LOG_EVENTS_PER_SECOND,
      });
    } finally {
      clock.mockRestore();
    }
  });

  it('publishes the last log and refusal the rates held back when the route closes, with the counts', () => {
    // A stopped clock: no token comes back while the flood is offered, however slow the machine.
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => 5_000);
    try {
      const { events, listener } = setup();
      const connection = listener.connection('normal');
      for (let i = 0; i < MAX_DENIAL_EVENTS_PER_SECOND + 5; i += 1) {
        listener.networkDenied(`host${String(i)}.example`, 443, 'refused');
      }
      for (let i = 0; i < MAX_LOG_EVENTS_PER_SECOND + 7; i += 1) {
        connection.log?.({ level: 'error', data: `flood ${String(i)}` });
      }
      const before = events.length;
      listener.closed();
      expect(events.slice(before).map((event) => fields(event))).toEqual([
        {
          sessionId: 'sess-1',
          serverName: 'github',
          level: 'error',
          message: `flood ${String(MAX_LOG_EVENTS_PER_SECOND + 6)}`,
          dropped: 6,
        },
        {
          sessionId: 'sess-1',
          serverName: 'github',
          host: `host${String(MAX_DENIAL_EVENTS_PER_SECOND + 4)}.example`,
          port: 443,
          reason: 'refused',
          dropped: 4,
        },
      ]);
      listener.closed();
      expect(events).toHaveLength(before + 2);
    } finally {
      clock.mockRestore();
    }
  });
});
