/**
 * Retry on a new session, against a real stdio server that is killed
 * between calls and during them (test/fixtures/resilience/counter-server.mjs).
 * The server logs every call that reaches it, with its pid, so each test
 * counts what was sent where.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  McpServerConnected,
  McpServerDisconnected,
  McpToolProgress,
  McpToolTimedOut,
} from '../../src/mcp/events.js';
import { McpIntegrationSection } from '../../src/mcp/section.js';
import { Session } from '../../src/runtime/session.js';
import type { ToolResult } from '../../src/tools/tool-result.js';
import { childPids, expectNoNewChildren, isAlive, waitFor } from '../support/processes.js';

const serverPath = fileURLToPath(
  new URL('../fixtures/resilience/counter-server.mjs', import.meta.url),
);

const NOT_RE_SENT =
  'it was not re-sent because the connection failed while the call was in flight, ' +
  'the tool may already have taken effect, and it is not marked idempotent or read-only';

interface Rig {
  readonly session: Session;
  readonly section: McpIntegrationSection;
  /** Lines of the server's call log: `<pid> <tool>`. */
  calls(): string[];
  /** The pid of the server process the section talks to now. */
  pid(): number;
  call(name: string, args?: string | Record<string, unknown>): Promise<ToolResult>;
  /** Resolves when the server reports that a call of `tool` started. */
  started(tool: string): Promise<void>;
  /** Lifecycle events so far, as `lost`/`reconnected`. */
  lifecycle(): string[];
}

let dir: string;
let before: number[];
let rig: Rig | undefined;

beforeEach(async () => {
  before = childPids();
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-sections-resilience-'));
});

afterEach(async () => {
  vi.useRealTimers();
  await rig?.section.disconnect();
  rig = undefined;
  await rm(dir, { recursive: true, force: true });
  expect(await expectNoNewChildren(before)).toEqual([]);
});

async function start(options: { timeoutMs?: number } = {}): Promise<Rig> {
  const session = new Session();
  const section = new McpIntegrationSection({
    servers: [
      {
        name: 'counter',
        transport: { type: 'stdio', command: process.execPath, args: [serverPath, dir] },
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      },
    ],
    session,
    // Shorter waits than the defaults keep the file fast; the decisions are the same.
    reconnect: { attempts: 3, baseDelayMs: 50 },
    retry: { minDelayMs: 20, maxDelayMs: 60 },
  });
  const lifecycle: string[] = [];
  session.bus.subscribe(McpServerDisconnected, (event) => {
    if (!event.expected) lifecycle.push('lost');
  });
  session.bus.subscribe(McpServerConnected, (event) => {
    if (event.reconnect) lifecycle.push('reconnected');
  });
  await section.connect();
  rig = {
    session,
    section,
    calls: () => {
      try {
        return readFileSync(path.join(dir, 'calls.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    pid: () => {
      const pid = section.routes[0]?.active.pid;
      if (pid === null || pid === undefined) throw new Error('the stdio server has no pid');
      return pid;
    },
    call: (name, args) =>
      section.execute({ name, ...(args === undefined ? {} : { arguments: args }) }),
    started: (tool) =>
      new Promise<void>((resolve) => {
        const stop = session.bus.subscribe(McpToolProgress, (event) => {
          if (event.originalName !== tool) return;
          stop();
          resolve();
        });
      }),
    lifecycle: () => [...lifecycle],
  };
  return rig;
}

async function kill(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isAlive(pid), { timeoutMs: 5_000, description: `pid ${pid} to exit` });
}

describe('a stdio server that dies', () => {
  it('between calls: the next idempotent call succeeds on a new session', async () => {
    const { call, calls, pid, lifecycle } = await start();
    expect(await call('counter.increment')).toMatchObject({ success: true, message: 'counter=1' });
    const first = pid();
    await kill(first);

    expect(await call('counter.read_counter')).toMatchObject({
      success: true,
      message: 'counter=1',
    });
    const second = pid();
    expect(second).not.toBe(first);
    expect(calls()).toEqual([`${first} increment`, `${second} read_counter`]);
    expect(lifecycle()).toEqual(['lost', 'reconnected']);
  });

  it('during an idempotent call: the call is sent again, once, to the new process', async () => {
    const { call, calls, pid, started } = await start();
    const first = pid();
    const running = started('read_counter');
    const result = call('counter.read_counter', { delayMs: 300 });
    await running;
    await kill(first);

    expect(await result).toMatchObject({ success: true, message: 'counter=0' });
    const second = pid();
    expect(second).not.toBe(first);
    expect(calls()).toEqual([`${first} read_counter`, `${second} read_counter`]);
  });

  it('during a non-idempotent call: the call is not sent again and says so', async () => {
    const { call, calls, pid, started, lifecycle } = await start();
    const first = pid();
    const running = started('slow_increment');
    const result = call('counter.slow_increment');
    await running;
    await kill(first);

    expect(await result).toMatchObject({
      success: false,
      message: `tool "slow_increment" of server "counter" lost its connection: Connection closed; ${NOT_RE_SENT}`,
    });
    // The server is back (a new process), and the call was not replayed on it.
    expect(await call('counter.read_counter')).toMatchObject({
      success: true,
      message: 'counter=0',
    });
    const second = pid();
    expect(calls()).toEqual([`${first} slow_increment`, `${second} read_counter`]);
    expect(lifecycle()).toEqual(['lost', 'reconnected']);
  });
});

describe('a call that fails without losing the connection', () => {
  it('is not retried after a timeout, even when read-only', async () => {
    const { call, calls, pid, started, session } = await start({ timeoutMs: 2_000 });
    const timedOut: McpToolTimedOut[] = [];
    session.bus.subscribe(McpToolTimedOut, (event) => timedOut.push(event));
    const server = pid();
    // Connected on real time; from here the request timeout runs on the fake clock.
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
    const running = started('read_counter');
    const result = call('counter.read_counter', { delayMs: 600_000 });
    await running;
    await vi.advanceTimersByTimeAsync(1_999);
    expect(timedOut).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_001);
    expect(await result).toMatchObject({
      success: false,
      message: 'tool "read_counter" of server "counter" timed out after 2000 ms',
    });
    vi.useRealTimers();
    expect(timedOut).toEqual([expect.objectContaining({ originalName: 'read_counter' })]);

    // The server was told to cancel and still serves the same session.
    expect(await call('counter.read_counter')).toMatchObject({
      success: true,
      message: 'counter=0',
    });
    expect(pid()).toBe(server);
    expect(calls()).toEqual([`${server} read_counter`, `${server} read_counter`]);
  });

  it('is not retried after a JSON-RPC error, even when read-only', async () => {
    const { call, calls, pid } = await start();
    expect(await call('counter.protocol_error')).toMatchObject({
      success: false,
      message:
        'server "counter" refused tool "protocol_error" (JSON-RPC error -32602): protocol_error requests are always rejected',
    });
    expect(calls()).toEqual([`${pid()} protocol_error`]);
  });
});
