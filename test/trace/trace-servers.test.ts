import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/index.js';
import { buildTraceModel } from '../../src/trace/trace-model.js';

let seq = 0;
const event = (type: string, fields: Record<string, unknown>): TraceRecord => {
  seq += 1;
  return { kind: 'event', seq, at: '2026-01-01T00:00:00.000Z', type, fields };
};

describe('the servers of a trace', () => {
  it('follow their events: isolation, lost connections, fail-closed isolation', () => {
    const records: TraceRecord[] = [
      event('McpServerConnected', { serverName: 'a', transport: 'stdio', endpoint: 'normal' }),
      event('McpServerConnected', { serverName: 'b', transport: 'sse', endpoint: 'normal' }),
      event('McpServerConnected', { serverName: 'c', transport: 'stdio', endpoint: 'normal' }),
      event('McpSectionIsolated', { serverName: 'a', mode: 'sandbox' }),
      event('McpServerDisconnected', {
        serverName: 'b',
        expected: false,
        reason: 'socket hang up',
      }),
      event('McpIsolationFailed', { serverName: 'c', reason: 'no bubblewrap' }),
      event('McpToolsChanged', { serverName: 'a', toolNames: ['a_one', 'a_two'] }),
      {
        kind: 'tools',
        seq: 99,
        at: '2026-01-01T00:00:00.000Z',
        tools: [{ name: 'a_one', description: 'One.', server: 'a', originalName: 'one' }],
      },
    ];
    const model = buildTraceModel({ name: 't', records, skippedLines: 0, truncated: false });
    expect(model.servers).toEqual([
      {
        name: 'a',
        transport: 'stdio',
        status: 'connected',
        isolation: 'sandbox',
        tools: [
          { name: 'a_one', description: 'One.', originalName: 'one', calls: 0, failures: 0 },
          { name: 'a_two', calls: 0, failures: 0 },
        ],
        events: [1, 4, 7],
      },
      {
        name: 'b',
        transport: 'sse',
        status: 'disconnected',
        reason: 'socket hang up',
        tools: [],
        events: [2, 5],
      },
      {
        name: 'c',
        transport: 'stdio',
        status: 'isolation-failed',
        reason: 'no bubblewrap',
        tools: [],
        events: [3, 6],
      },
    ]);
  });
});
