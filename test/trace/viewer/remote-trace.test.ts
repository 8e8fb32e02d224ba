import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Tool, ToolResult } from '../../../src/index.js';
import { buildTraceModel } from '../../../src/trace/trace-model.js';
import { RemoteTrace } from '../../../src/trace/viewer/remote-trace.js';

const remote = (type: string, fields: Record<string, unknown>, id = '1-0') => ({
  id,
  sessionId: 's',
  type,
  fields,
});

describe('RemoteTrace', () => {
  it('masks secret arguments and leaves out results once the stream shows an escalation', () => {
    const trace = new RemoteTrace({ sessionId: 's' });
    const call = (text: string) =>
      remote('ToolInvoked', {
        toolName: 'echo',
        params: { text, token: 'tok-123456' },
        result: { message: `echo ${text} tok-123456`, value: text, success: true },
        callId: `c-${text}`,
        createdAt: '2026-01-01T00:00:00.000Z',
        durationMs: 1,
      });
    trace.add(call('open'));
    trace.add(
      remote('SensitivityEscalated', {
        previous: 'public',
        sensitivity: 'secret',
        dataset: 'hr',
        createdAt: '2026-01-01T00:00:01.000Z',
      }),
    );
    trace.add(call('closed'));
    expect(trace.version).toBe(3);
    const model = buildTraceModel(trace.current());
    expect(model.name).toBe('redis:s');
    const [first, , last] = model.events;
    expect(first?.fields['params']).toEqual({ text: 'open', token: '***' });
    expect(first?.fields['result']).toEqual({
      message: 'echo open ***',
      value: 'open',
      success: true,
    });
    expect(last?.fields['result']).toEqual({ success: true, withheld: 'private-data' });
    expect(model.calls.map((c) => c.sensitivity)).toEqual(['public', 'secret']);
  });

  it("masks by the tools' schemas too, as a recorded trace does", () => {
    const login = Tool.create({
      name: 'login',
      description: 'Logs in',
      params: z.object({ user: z.string(), pin: z.string().meta({ writeOnly: true }) }),
      handler: () => ToolResult.ok(null),
    });
    const trace = new RemoteTrace({ sessionId: 's', tools: [login] });
    trace.add(
      remote('ToolInvoked', {
        toolName: 'login',
        params: { user: 'ada', pin: '90210' },
        result: { message: 'welcome ada, pin 90210', success: true },
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
    );
    const [event] = buildTraceModel(trace.current()).events;
    expect(event?.fields['params']).toEqual({ user: 'ada', pin: '***' });
    expect(JSON.stringify(event?.fields)).not.toContain('90210');
  });

  it('starts from the stored level: results are withheld from the first event', () => {
    const trace = new RemoteTrace({ sessionId: 's', sensitivity: 'confidential' });
    trace.add(
      remote('ToolInvoked', {
        toolName: 'x',
        params: {},
        result: { message: 'm', value: 1, success: true },
        callId: 'c',
      }),
    );
    const model = buildTraceModel(trace.current());
    expect(model.sensitivity.initial).toBe('confidential');
    expect(model.events[0]?.fields['result']).toEqual({ success: true, withheld: 'private-data' });
  });
});
