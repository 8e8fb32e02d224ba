import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { maskedHead } from '../core/errors.js';
import { toWellFormed } from '../core/well-formed.js';
import { ToolResult } from '../tools/tool-result.js';

type ContentBlock = CallToolResult['content'][number];

/** What a bridged MCP tool's result `value` holds. */
export interface McpToolValue {
  /** The content blocks, unchanged: text, images, audio, resources, links. */
  readonly content: CallToolResult['content'];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * Maps an MCP `tools/call` result to a {@link ToolResult}: `isError` gives a
 * failure whose message is the text content; otherwise success, with every
 * content block (and `structuredContent`) kept in `value`. The message is
 * well-formed (a lone surrogate becomes U+FFFD).
 */
export function mapCallResult(result: CallToolResult): ToolResult<McpToolValue> {
  const { content, structuredContent, _meta } = result;
  const value: { -readonly [K in keyof McpToolValue]: McpToolValue[K] } = { content };
  if (structuredContent !== undefined) value.structuredContent = structuredContent;
  if (_meta !== undefined) value._meta = _meta;
  Object.freeze(value);
  // The message goes to the model: a lone surrogate would make providers refuse the request.
  const message = toWellFormed(describeContent(result));
  if (result.isError === true) {
    return ToolResult.error(
      message.length > 0 ? message : 'the tool reported an error without a message',
      value,
    );
  }
  return ToolResult.ok(value, message.length > 0 ? message : 'OK');
}

/**
 * `result` with the text that {@link describeContent} shows masked by
 * `redact` (text blocks, embedded resources' text and URIs, links' URIs
 * and names); kinds, binary data and structured content stay as sent. For
 * an error, whose text becomes a message, before the result limit can cut
 * a secret out of masking's sight; a text far longer than `keep` is masked
 * and kept only as far as `keep`, and says how much more it had.
 */
export function withMaskedText(
  result: CallToolResult,
  mask: (text: string) => string,
  keep: number = Number.POSITIVE_INFINITY,
): CallToolResult {
  // A text far longer than what is kept is masked only as far as it can be kept (`maskedHead`).
  const redact = (text: string): string => {
    const head = maskedHead(text, mask, keep);
    return head === undefined
      ? mask(text)
      : `${head}… (${text.length - head.length} more characters)`;
  };
  const content = result.content.map((block): ContentBlock => {
    switch (block.type) {
      case 'text':
        return { ...block, text: redact(block.text) };
      case 'resource': {
        const { resource } = block;
        const uri = redact(resource.uri);
        return 'text' in resource
          ? { ...block, resource: { ...resource, uri, text: redact(resource.text) } }
          : { ...block, resource: { ...resource, uri } };
      }
      case 'resource_link':
        return { ...block, uri: redact(block.uri), name: redact(block.name) };
      default:
        return block;
    }
  });
  return { ...result, content };
}

/** The text a model sees for a result: text blocks, and a short note per other block. */
export function describeContent(result: CallToolResult): string {
  const { content } = result;
  // The common answer, one text block, is its own text.
  if (content.length === 1 && content[0]?.type === 'text') return content[0].text;
  const parts: string[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${block.type}: ${block.mimeType}, ${decodedLength(block.data)} bytes]`);
        break;
      case 'resource': {
        const resource = block.resource;
        parts.push('text' in resource ? resource.text : `[resource: ${resource.uri}]`);
        break;
      }
      case 'resource_link':
        parts.push(`[resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}]`);
        break;
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  return parts.join('\n');
}

/** Bytes a base64 text decodes to: 3 per 4 characters, less the `=` padding. */
function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}
