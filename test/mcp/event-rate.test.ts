/**
 * A server's log messages and a call's progress reports are published at
 * a bounded rate: a flood of them would otherwise bury everything else an
 * application records (a rotating trace lost its first tool calls within
 * a minute). What is left out is counted; the last one of a burst is
 * published once the rate allows (or when its source ends) with that
 * count, so every message is told; the call itself is not affected.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { invokeTool, McpServerLog, McpToolProgress, ToolInvoked } from '../../src/index.js';
import {
  EventRate,
  MAX_LOG_EVENTS_PER_SECOND,
  MAX_PROGRESS_EVENTS_PER_SECOND,
} from '../../src/mcp/event-rate.js';
import { observedSection, toolNamed } from '../support/mcp-fixtures.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** An EventRate on a clock the test moves (`performance.now` and timers alike). */
function rateOnClock(perSecond: number) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const published: [string, number][] = [];
  const rate = new EventRate<string>(perSecond, (item, dropped) => published.push([item, dropped]));
  return { rate, published };
}

describe('EventRate', () => {
  it('publishes its rate at once, holds the latest of the rest, and publishes it with the count once a token is back', () => {
    const { rate, published } = rateOnClock(3);
    for (const item of ['a', 'b', 'c', 'd', 'e', 'f']) rate.offer(item);
    expect(published).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    vi.advanceTimersByTime(333);
    expect(published).toHaveLength(3);
    vi.advanceTimersByTime(1); // a third of a second: one token
    expect(published.at(-1)).toEqual(['f', 2]);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000); // never more than the rate at once
    for (const item of ['g', 'h', 'i', 'j']) rate.offer(item);
    expect(published.slice(4)).toEqual([
      ['g', 0],
      ['h', 0],
      ['i', 0],
    ]);
  });

  it('publishes a newer item in place of the one held, counting that one', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const published: [string, number][] = [];
    const rate = new EventRate<string>(1, (item, dropped) => published.push([item, dropped]));
    rate.offer('a');
    rate.offer('b');
    rate.offer('c');
    now += 1_000; // the token is back before the timer ran
    rate.offer('d');
    expect(published).toEqual([
      ['a', 0],
      ['d', 2],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('publishes the item held at flush, whatever the rate, and nothing when none is held', () => {
    const { rate, published } = rateOnClock(1);
    rate.flush();
    expect(published).toEqual([]);
    for (const item of ['a', 'b', 'c']) rate.offer(item);
    rate.flush();
    expect(published).toEqual([
      ['a', 0],
      ['c', 1],
    ]);
    expect(vi.getTimerCount()).toBe(0);
    rate.flush();
    expect(published).toHaveLength(2);
  });

  it('tells every item offered, published or counted, and publishes no faster than its bucket refills', () => {
    const step = fc.oneof(
      fc.record({ offer: fc.integer({ min: 1, max: 40 }) }),
      fc.record({ wait: fc.integer({ min: 0, max: 1_500 }) }),
      fc.constant({ flush: true as const }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.array(step, { maxLength: 30 }),
        (perSecond, steps) => {
          vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
          /** When each item was published, and whether by a flush (which the rate does not bound). */
          const published: { dropped: number; at: number; flushed: boolean }[] = [];
          let flushing = false;
          const rate = new EventRate<number>(perSecond, (_item, dropped) => {
            published.push({ dropped, at: performance.now(), flushed: flushing });
          });
          let offered = 0;
          for (const s of steps) {
            if ('offer' in s) {
              for (let i = 0; i < s.offer; i += 1) rate.offer((offered += 1));
            } else if ('wait' in s) {
              vi.advanceTimersByTime(s.wait);
            } else {
              flushing = true;
              rate.flush();
              flushing = false;
            }
          }
          flushing = true;
          rate.flush();
          expect(published.reduce((sum, { dropped }) => sum + 1 + dropped, 0)).toBe(offered);
          // Outside a flush, a bucket's worth, and what refills in the time between.
          const times = published.filter(({ flushed }) => !flushed).map(({ at }) => at);
          for (let first = 0; first < times.length; first += 1) {
            for (let last = first; last < times.length; last += 1) {
              const refilled = ((times[last]! - times[first]!) * perSecond) / 1_000;
              expect(last - first + 1).toBeLessThanOrEqual(perSecond + refilled + 1e-9);
            }
          }
          expect(vi.getTimerCount()).toBe(0);
          vi.useRealTimers();
        },
      ),
      { numRuns: 150 },
    );
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
  it('publishes at most the rates, tells of every log left out, and answers the call', async () => {
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
      const reports = events.of(McpToolProgress);
      // The burst, what refilled while the flood lasted, and the one held at the end.
      expect(logs).toBeGreaterThanOrEqual(MAX_LOG_EVENTS_PER_SECOND);
      expect(logs).toBeLessThanOrEqual(MAX_LOG_EVENTS_PER_SECOND * (1 + seconds) + 1);
      expect(reports.length).toBeGreaterThanOrEqual(MAX_PROGRESS_EVENTS_PER_SECOND);
      expect(reports.length).toBeLessThanOrEqual(
        MAX_PROGRESS_EVENTS_PER_SECOND * (1 + seconds) + 2,
      );
      const first = events.of(McpServerLog).slice(0, MAX_LOG_EVENTS_PER_SECOND);
      expect(first.every((event) => event.dropped === undefined)).toBe(true);
      // The call's last report is published, before its result.
      const last = reports.at(-1)!;
      expect(last.progress).toBe(499);
      expect(events.all.indexOf(last)).toBeLessThan(
        events.all.findIndex((event) => event instanceof ToolInvoked),
      );

      // Once the rate allows, the last message of the burst tells of every one left out.
      await vi.waitFor(() => {
        expect(events.of(McpServerLog).at(-1)?.message).toBe('message 999');
      });
      const told = events
        .of(McpServerLog)
        .reduce((sum, event) => sum + 1 + (event.dropped ?? 0), 0);
      expect(told).toBe(1_000);
    } finally {
      await section.disconnect();
    }
  });
});
