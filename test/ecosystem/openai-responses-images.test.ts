/**
 * The Responses format carries an MCP result's images as data URLs only for
 * the types OpenAI reads: another type, or a MIME type with parameters
 * (written into the URL as sent), made OpenAI refuse the whole request. The
 * result's text names every image either way.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  OPENAI_IMAGE_TYPES,
  toOpenAIFunctionCallOutput,
} from '../../src/ecosystem/openai-responses.js';
import { Tool } from '../../src/tools/tool.js';
import { ToolResult } from '../../src/tools/tool-result.js';

const snapshot = Tool.trusted({
  name: 'demo_snapshot',
  description: 'Takes pictures',
  params: z.object({}),
  handler: () => ToolResult.ok(null),
  origin: { kind: 'mcp', server: 'demo', originalName: 'snapshot' },
});

describe('toOpenAIFunctionCallOutput', () => {
  it('carries images of the types OpenAI reads, and no other', () => {
    const types = [...OPENAI_IMAGE_TYPES, 'text/html', 'image/png;x=1,evil', 'image/svg+xml'];
    const content = [
      { type: 'text', text: 'pictures' },
      ...types.map((mimeType) => ({ type: 'image', mimeType, data: 'aGk=' })),
    ];
    const output = toOpenAIFunctionCallOutput(
      [snapshot],
      { call_id: 'c1', name: 'demo_snapshot' },
      ToolResult.ok({ content }, 'pictures'),
    ).output;
    expect(Array.isArray(output)).toBe(true);
    const urls = (output as { type: string; image_url?: string }[])
      .filter((part) => part.type === 'input_image')
      .map((part) => part.image_url);
    expect(urls).toEqual(OPENAI_IMAGE_TYPES.map((type) => `data:${type};base64,aGk=`));
  });
});
