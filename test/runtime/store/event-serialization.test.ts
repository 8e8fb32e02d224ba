import { describe, expect, it } from 'vitest';
import { defineEvent } from '../../../src/runtime/define-event.js';
import { serializeEvent } from '../../../src/runtime/store/event-serialization.js';
import { assertJsonValue } from '../../../src/runtime/store/json-value.js';

class Sample extends defineEvent<{
  readonly sessionId: string;
  readonly createdAt: Date;
  readonly payload: unknown;
}>() {}

describe('serializeEvent', () => {
  it('keeps the class name and the fields, with dates as ISO text', () => {
    const event = new Sample({
      sessionId: 's',
      createdAt: new Date('2026-05-06T07:08:09.000Z'),
      payload: { n: 1n, list: new Set([1]), map: new Map([['k', 2]]), error: new TypeError('bad') },
    });
    const serialized = serializeEvent(event);
    expect(serialized.type).toBe('Sample');
    expect(JSON.parse(serialized.data)).toEqual({
      sessionId: 's',
      createdAt: '2026-05-06T07:08:09.000Z',
      payload: { n: '1', list: [1], map: { k: 2 }, error: { name: 'TypeError', message: 'bad' } },
    });
  });

  it('cuts cycles instead of throwing, and keeps shared values', () => {
    const shared = { x: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic['self'] = cyclic;
    const data = JSON.parse(
      serializeEvent(new Sample({ sessionId: 's', createdAt: new Date(0), payload: cyclic })).data,
    ) as { payload: unknown };
    expect(data.payload).toEqual({ shared: { x: 1 }, again: { x: 1 }, self: '[circular]' });
  });
});

describe('assertJsonValue', () => {
  it('accepts JSON data and names the first member that is not', () => {
    expect(() => assertJsonValue({ a: [1, 'b', null, true, { c: -0.5 }] }, 'v')).not.toThrow();
    expect(() => assertJsonValue({ a: [1, undefined] }, 'v')).toThrow('v.a[1] is undefined');
    expect(() => assertJsonValue({ f: () => 1 }, 'v')).toThrow('v.f is a function');
    expect(() => assertJsonValue(Infinity, 'v')).toThrow('v is Infinity');
    const loop: Record<string, unknown> = {};
    loop['me'] = loop;
    expect(() => assertJsonValue(loop, 'v')).toThrow('v.me refers to itself');
    expect(() => assertJsonValue(Object.create(null) as object, 'v')).not.toThrow();
  });
});
