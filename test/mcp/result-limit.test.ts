/**
 * Pins `limitResult`: a result within the limit comes back as the same
 * object; text over the budget is cut with a note naming both lengths;
 * binary and resource blocks that do not fit are replaced by a note; the
 * budget is shared by blocks in order; oversized `structuredContent` is
 * dropped with a note while other fields are kept.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_RESULT_CHARS,
  limitResult,
  MAX_RESULT_BLOCKS,
} from '../../src/mcp/result-limit.js';

describe('limitResult', () => {
  it('defaults to one million characters', () => {
    expect(DEFAULT_MAX_RESULT_CHARS).toBe(1_000_000);
  });

  it('returns the very same result when everything fits, up to the exact limit (MIME types count)', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'abcde' },
        { type: 'image', data: 'QUJD', mimeType: 'image/png' },
      ],
      structuredContent: { a: 1 },
    };
    expect(limitResult(result, 5 + 4 + 'image/png'.length)).toBe(result);
  });

  it('cuts text at the remaining budget and says how much there was', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'abc' },
        { type: 'text', text: 'defghij' },
      ],
    };
    expect(limitResult(result, 5)).toEqual({
      content: [
        { type: 'text', text: 'abc' },
        {
          type: 'text',
          text: 'de\n[result truncated: 7 characters, 2 kept; the limit is 5]',
        },
      ],
    });
  });

  it('keeps nothing of later text once the budget is spent', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'abcdef' },
        { type: 'text', text: 'xyz' },
      ],
    };
    expect(limitResult(result, 4).content).toEqual([
      { type: 'text', text: 'abcd\n[result truncated: 6 characters, 4 kept; the limit is 4]' },
      { type: 'text', text: '\n[result truncated: 3 characters, 0 kept; the limit is 4]' },
    ]);
  });

  it('lets a small block after a cut one through only if budget is left', () => {
    const result: CallToolResult = {
      content: [
        { type: 'image', data: 'x'.repeat(10), mimeType: 'image/png' },
        { type: 'text', text: 'ok' },
      ],
    };
    // The image is left out whole, so its size is not taken from the budget.
    expect(limitResult(result, 3).content).toEqual([
      { type: 'text', text: '[image block of 19 characters left out: the result limit is 3]' },
      { type: 'text', text: 'ok' },
    ]);
  });

  it('replaces audio and embedded resources that do not fit, measured by their data, type and URI', () => {
    const result: CallToolResult = {
      content: [
        { type: 'audio', data: 'a'.repeat(8), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///t', text: 't'.repeat(7) } },
        { type: 'resource', resource: { uri: 'file:///b', blob: 'b'.repeat(6) } },
      ],
    };
    expect(limitResult(result, 5).content).toEqual([
      { type: 'text', text: '[audio block of 17 characters left out: the result limit is 5]' },
      { type: 'text', text: '[resource block of 16 characters left out: the result limit is 5]' },
      { type: 'text', text: '[resource block of 15 characters left out: the result limit is 5]' },
    ]);
  });

  it('counts what a server puts in a block besides its text: annotations, _meta, a MIME type', () => {
    const result: CallToolResult = {
      content: [
        { type: 'text', text: 'ok', _meta: { padding: 'p'.repeat(1_000) } },
        { type: 'image', data: 'QUJD', mimeType: `image/${'x'.repeat(1_000)}` },
        {
          type: 'resource',
          resource: { uri: `file:///${'u'.repeat(1_000)}`, blob: 'QUJD' },
          annotations: { audience: ['user'] },
        },
      ],
    };
    const limited = limitResult(result, 100).content;
    expect(limited).toHaveLength(3);
    expect(limited[0]).toEqual({
      type: 'text',
      text: 'ok\n[result truncated: 2 characters, 2 kept; the limit is 100]',
    });
    const notes = limited.slice(1).map((block) => (block.type === 'text' ? block.text : ''));
    expect(notes[0]).toMatch(/^\[image block of 1\d{3} characters left out/);
    expect(notes[1]).toMatch(/^\[resource block of 1\d{3} characters left out/);
  });

  it('measures other blocks (resource links) by their JSON', () => {
    const link = { type: 'resource_link', uri: 'file:///x', name: 'x' } as const;
    const size = JSON.stringify(link).length;
    const result: CallToolResult = { content: [link] };
    expect(limitResult(result, size)).toBe(result);
    expect(limitResult(result, size - 1).content).toEqual([
      {
        type: 'text',
        text: `[resource_link block of more than ${size - 1} characters left out: the result limit is ${size - 1}]`,
      },
    ]);
  });

  it('drops structuredContent longer than the limit with a note, keeping other fields', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'ok' }],
      structuredContent: { long: 'x'.repeat(20) },
      isError: false,
      _meta: { trace: 't' },
    };
    expect(limitResult(result, 16)).toEqual({
      content: [
        { type: 'text', text: 'ok' },
        {
          type: 'text',
          text: '[structuredContent left out: larger than the result limit of 16 characters, or nested too deep to write]',
        },
      ],
      isError: false,
      _meta: { trace: 't' },
    });
  });

  it('drops a _meta longer than the limit, or nested too deep to write, with a note', () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let depth = 0; depth < 100_000; depth += 1) {
      const next: Record<string, unknown> = {};
      node['a'] = next;
      node = next;
    }
    for (const meta of [{ padding: 'p'.repeat(100) }, deep]) {
      const limited = limitResult({ content: [{ type: 'text', text: 'ok' }], _meta: meta }, 50);
      expect(limited).toEqual({
        content: [
          { type: 'text', text: 'ok' },
          {
            type: 'text',
            text: '[_meta left out: larger than the result limit of 50 characters, or nested too deep to write]',
          },
        ],
      });
    }
  });

  it(`keeps at most ${MAX_RESULT_BLOCKS} content blocks, however small, and says how many more there were`, () => {
    const content = Array.from({ length: 300_000 }, () => ({ type: 'text' as const, text: '' }));
    const limited = limitResult({ content }, 1_000_000);
    expect(limited.content).toHaveLength(MAX_RESULT_BLOCKS + 1);
    expect(limited.content.at(-1)).toEqual({
      type: 'text',
      text: `[${300_000 - MAX_RESULT_BLOCKS} more content blocks left out: a result keeps at most ${MAX_RESULT_BLOCKS}]`,
    });
  });

  it('keeps structuredContent that fits when only content was cut', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'abcdefghij' }],
      structuredContent: { a: 1 },
    };
    // structuredContent (7 characters of JSON) is measured against the whole limit,
    // not against what content left of the budget.
    expect(limitResult(result, 7)).toEqual({
      content: [
        {
          type: 'text',
          text: 'abcdefg\n[result truncated: 10 characters, 7 kept; the limit is 7]',
        },
      ],
      structuredContent: { a: 1 },
    });
  });

  it('leaves U+FFFD, never a lone surrogate, when the cut falls inside a pair', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'a\u{1F600}b' }] };
    expect(limitResult(result, 2).content).toEqual([
      { type: 'text', text: 'a\uFFFD\n[result truncated: 4 characters, 2 kept; the limit is 2]' },
    ]);
  });

  it('does not change the result it was given', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'abcdef' }],
      structuredContent: { long: 'x'.repeat(20) },
    };
    const copy = structuredClone(result);
    limitResult(result, 3);
    expect(result).toEqual(copy);
  });
});

describe('limitResult on a large structured result', () => {
  /** `count` keys, each read counted in `reads`. */
  function watched(count: number): { value: Record<string, string>; reads: () => number } {
    let reads = 0;
    const target = Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));
    const value = new Proxy(target, {
      get(object, key, receiver) {
        if (typeof key === 'string') reads += 1;
        return Reflect.get(object, key, receiver) as unknown;
      },
    });
    return { value, reads: () => reads };
  }

  it('reads a structuredContent or _meta only up to the limit to find it too large', () => {
    const structured = watched(100_000);
    const meta = watched(100_000);
    const limited = limitResult(
      {
        content: [{ type: 'text', text: 'ok' }],
        structuredContent: structured.value,
        _meta: meta.value,
      },
      1_000,
    );
    expect(limited.structuredContent).toBeUndefined();
    expect(limited._meta).toBeUndefined();
    expect(limited.content.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([
      'ok',
      '[structuredContent left out: larger than the result limit of 1000 characters, or nested too deep to write]',
      '[_meta left out: larger than the result limit of 1000 characters, or nested too deep to write]',
    ]);
    expect(structured.reads()).toBeLessThan(1_000);
    expect(meta.reads()).toBeLessThan(1_000);
  });

  it('measures what fits exactly, as JSON writes it', () => {
    const structured = { a: [1, 'two', null, true, { b: -2.5 }], c: {}, d: [] };
    const size = JSON.stringify(structured).length;
    const result: CallToolResult = { content: [], structuredContent: structured };
    expect(limitResult(result, size)).toBe(result);
    expect(limitResult(result, size - 1).structuredContent).toBeUndefined();
  });
});
