/**
 * `tools/call` results → ToolResult: success keeps every block in `value`,
 * the message is the text with a note per other block, `isError` fails.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { describeContent, mapCallResult } from '../../src/mcp/result-mapping.js';

const PNG_BASE64 = Buffer.from('a tiny picture of twenty-five bytes').toString('base64');

describe('mapCallResult', () => {
  it('text content: success, message is the text, value holds the content unchanged', () => {
    const raw: CallToolResult = {
      content: [
        { type: 'text', text: 'first line' },
        { type: 'text', text: 'second line' },
      ],
    };
    const result = mapCallResult(raw);
    expect(result.success).toBe(true);
    expect(result.message).toBe('first line\nsecond line');
    expect(result.value).toEqual({ content: raw.content });
    expect(Object.isFrozen(result.value)).toBe(true);
  });

  it('gives a well-formed message for text with a lone surrogate, keeping the content as sent', () => {
    const content = [{ type: 'text' as const, text: 'half \uD800 of a pair, and \uDC00' }];
    const result = mapCallResult({ content });
    expect(result.message).toBe('half \uFFFD of a pair, and \uFFFD');
    expect(result.value?.content).toBe(content);
    expect(mapCallResult({ content: [{ type: 'text', text: 'an emoji 😀' }] }).message).toBe(
      'an emoji 😀',
    );
  });

  it('structuredContent and _meta are kept next to the content', () => {
    const raw: CallToolResult = {
      content: [{ type: 'text', text: '{"temperature":73}' }],
      structuredContent: { temperature: 73 },
      _meta: { 'example.com/trace': 'abc' },
    };
    expect(mapCallResult(raw)).toMatchObject({
      success: true,
      message: '{"temperature":73}',
      value: {
        content: raw.content,
        structuredContent: { temperature: 73 },
        _meta: { 'example.com/trace': 'abc' },
      },
    });
  });

  it('structuredContent without content: the message is its JSON', () => {
    const result = mapCallResult({ content: [], structuredContent: { ok: true, n: 2 } });
    expect(result).toMatchObject({ success: true, message: '{"ok":true,"n":2}' });
  });

  it('no content at all: success with message OK', () => {
    expect(mapCallResult({ content: [] })).toMatchObject({
      success: true,
      message: 'OK',
      value: { content: [] },
    });
  });

  it('image, audio, embedded resources and links: kept whole in value, noted in the message', () => {
    const raw: CallToolResult = {
      content: [
        { type: 'text', text: 'Here you go:' },
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'demo://text/1', mimeType: 'text/plain', text: 'embedded text' },
        },
        { type: 'resource', resource: { uri: 'demo://blob/2', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'demo://link/3', name: 'Third' },
      ],
    };
    const result = mapCallResult(raw);
    expect(result.success).toBe(true);
    expect(result.value?.content).toEqual(raw.content);
    expect(result.message).toBe(
      [
        'Here you go:',
        '[image: image/png, 35 bytes]',
        '[audio: audio/wav, 3 bytes]',
        'embedded text',
        '[resource: demo://blob/2]',
        '[resource link: demo://link/3 (Third)]',
      ].join('\n'),
    );
  });

  it('isError: failure with the text as message, and the content still in value', () => {
    const raw: CallToolResult = {
      isError: true,
      content: [{ type: 'text', text: 'Could not find exact match for edit:\nfoo' }],
    };
    const result = mapCallResult(raw);
    expect(result.success).toBe(false);
    expect(result.message).toBe('Could not find exact match for edit:\nfoo');
    expect(result.value).toEqual({ content: raw.content });
  });

  it('isError without text: failure with a generic message', () => {
    const result = mapCallResult({ isError: true, content: [] });
    expect(result.success).toBe(false);
    expect(result.message).toBe('the tool reported an error without a message');
  });

  it('isError: false is a success', () => {
    expect(
      mapCallResult({ isError: false, content: [{ type: 'text', text: 'fine' }] }),
    ).toMatchObject({
      success: true,
      message: 'fine',
    });
  });
});

describe('describeContent', () => {
  it('prefers content over structuredContent', () => {
    expect(
      describeContent({
        content: [{ type: 'text', text: 'text wins' }],
        structuredContent: { a: 1 },
      }),
    ).toBe('text wins');
  });

  it('a resource link without a name shows only the URI', () => {
    expect(
      describeContent({ content: [{ type: 'resource_link', uri: 'demo://x', name: '' }] }),
    ).toBe('[resource link: demo://x]');
  });
});
