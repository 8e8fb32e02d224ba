import { describe, expect, it } from 'vitest';
import { CIRCULAR_MARKER, TOO_DEEP_MARKER, toJsonCopy } from '../../src/core/json-copy.js';

describe('toJsonCopy', () => {
  it('writes dates, errors, maps, sets, bigints and odd numbers as JSON can hold them', () => {
    expect(
      toJsonCopy({
        at: new Date('2026-01-02T03:04:05.000Z'),
        bad: new Date(Number.NaN),
        error: new TypeError('nope'),
        map: new Map<unknown, unknown>([[1, 'one']]),
        set: new Set(['a']),
        big: 10n,
        inf: Number.POSITIVE_INFINITY,
        gone: undefined,
        fn: () => 1,
        list: [undefined, 1],
      }),
    ).toEqual({
      at: '2026-01-02T03:04:05.000Z',
      bad: null,
      error: { name: 'TypeError', message: 'nope' },
      map: { 1: 'one' },
      set: ['a'],
      big: '10',
      inf: 'Infinity',
      list: [null, 1],
    });
  });

  it('cuts cycles and deep nesting with markers, but copies a shared value each time', () => {
    const shared = { x: 1 };
    const loop: Record<string, unknown> = { shared, again: shared };
    loop['self'] = loop;
    expect(toJsonCopy(loop)).toEqual({ shared: { x: 1 }, again: { x: 1 }, self: CIRCULAR_MARKER });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5; i++) deep = { deep };
    expect(JSON.stringify(toJsonCopy(deep, 2))).toBe(
      JSON.stringify({ deep: { deep: { deep: TOO_DEEP_MARKER } } }),
    );
  });

  it('keeps a key named __proto__ as data, never as the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as object;
    const copied = toJsonCopy(hostile) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'ok']);
    expect(JSON.stringify(copied)).toBe('{"__proto__":{"polluted":true},"ok":1}');
  });
});
