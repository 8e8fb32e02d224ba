/**
 * A server's log messages and a call's progress reports are published at
 * a bounded rate: a flood of them would otherwise bury everything else an
 * application records (a rotating trace lost its first tool calls within
 * a minute). What is left out is counted, and the next log event says how
 * many; the call itself is not affected.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { invokeTool, McpServerLog, McpToolProgress } from '../../src/index.js';
import {
  EventRate,
  MAX_LOG_EVENTS_PER_SECOND,
  MAX_PROGRESS_EVENTS_PER_SECOND,
} from '../../src/mcp/event-rate.js';
import { observedSection, toolNamed } from '../support/mcp-fixtures.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('EventRate', () => {
  it('admits its rate at once, counts what it refuses, and refills with time', () => {
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const rate = new EventRate(3);
    expect([rate.admit(), rate.admit(), rate.admit()]).toEqual([0, 0, 0]);
    expect([rate.admit(), rate.admit()]).toEqual([undefined, undefined]);
    now += 334; // a third of a second: one more
    expect(rate.admit()).toBe(2);
    expect(rate.admit()).toBeUndefined();
    now += 10_000; // never more than the rate at once
    expect([rate.admit(), rate.admit(), rate.admit(), rate.admit()]).toEqual([1, 0, 0, undefined]);
  });
});

/** A server whose `flood` tool logs `logs` errors and reports progress `reports` times. */
function floodingServer(logs: number, reports: number): McpServer {
  const server = new McpServer(
    { name: 'chatty', version: '1.0.0' },
    { capabilities: { logging: {} } },
  );
  server.registerTool(
    'flood',
    { description: 'Floods', annotations: { openWorldHint: false } },
    async (extra) => {
      for (let i = 0; i < logs; i += 1) {
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'error', data: `message ${String(i)}` },
        });
      }
      const token = extra._meta?.progressToken;
      for (let i = 0; token !== undefined && i < reports; i += 1) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: reports },
        });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  return server;
}

describe('a flood of log messages and progress reports', () => {
  it('publishes at most the rates, says how many logs were left out, and answers the call', async () => {
    const { session, events, section } = observedSection([
      { name: 'chatty', transport: { type: 'in-memory', server: floodingServer(1_000, 500) } },
    ]);
    try {
      await section.connect();
      const flood = toolNamed(section, 'chatty_flood');
      const started = performance.now();
      expect(await invokeTool(flood, {}, { session })).toMatchObject({ success: true });
      const seconds = (performance.now() - started) / 1_000;
      const logs = events.of(McpServerLog).length;
      const reports = events.of(McpToolProgress).length;
      // The burst, and what refilled while the flood lasted.
      expect(logs).toBeGreaterThanOrEqual(MAX_LOG_EVENTS_PER_SECOND);
      expect(logs).toBeLessThanOrEqual(MAX_LOG_EVENTS_PER_SECOND * (1 + seconds) + 1);
      expect(reports).toBeGreaterThanOrEqual(MAX_PROGRESS_EVENTS_PER_SECOND);
      expect(reports).toBeLessThanOrEqual(MAX_PROGRESS_EVENTS_PER_SECOND * (1 + seconds) + 1);
      const first = events.of(McpServerLog).slice(0, MAX_LOG_EVENTS_PER_SECOND);
      expect(first.every((event) => event.dropped === undefined)).toBe(true);

      // Later, the next message published tells of every one left out before it.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await invokeTool(flood, {}, { session })).toMatchObject({ success: true });
      const told = events
        .of(McpServerLog)
        .slice(0, logs + 1)
        .reduce((sum, event) => sum + (event.dropped ?? 0), 0);
      expect(told).toBe(1_000 - logs);
    } finally {
      await section.disconnect();
    }
  });
});
