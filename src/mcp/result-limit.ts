import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Default of `McpServerConfig.maxResultChars`: what one result may bring into the session. */
export const DEFAULT_MAX_RESULT_CHARS = 1_000_000;

type Block = CallToolResult['content'][number];

/**
 * `result` with at most `maxChars` characters of content: text is cut with
 * a note that says how much there was, and a binary block (image, audio,
 * embedded blob) that does not fit is replaced by a note. Structured
 * content larger than the limit is dropped with a note. The seed's
 * `context_result` idea, on the client side: a server cannot flood the
 * session or the model's context.
 */
export function limitResult(result: CallToolResult, maxChars: number): CallToolResult {
  if (fitsWhole(result, maxChars)) return result;
  let budget = maxChars;
  let changed = false;
  const content: Block[] = [];
  for (const block of result.content) {
    const size = blockSize(block);
    if (size <= budget) {
      content.push(block);
      budget -= size;
      continue;
    }
    changed = true;
    if (block.type === 'text') {
      // A copy, not a slice: V8 keeps a slice's whole parent string alive.
      const kept = Buffer.from(block.text.slice(0, Math.max(0, budget)), 'utf8').toString('utf8');
      budget -= kept.length;
      content.push({
        type: 'text',
        text: `${kept}\n[result truncated: ${block.text.length} characters, ${kept.length} kept; the limit is ${maxChars}]`,
      });
    } else {
      content.push({
        type: 'text',
        text: `[${block.type} block of ${size} characters left out: the result limit is ${maxChars}]`,
      });
    }
  }
  let structured = result.structuredContent;
  if (structured !== undefined && JSON.stringify(structured).length > maxChars) {
    changed = true;
    structured = undefined;
    content.push({
      type: 'text',
      text: `[structuredContent left out: larger than the result limit of ${maxChars} characters]`,
    });
  }
  if (!changed) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return {
    ...rest,
    content,
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** Whether every block fits the limit, and the result has no structuredContent to measure. */
function fitsWhole(result: CallToolResult, maxChars: number): boolean {
  if (result.structuredContent !== undefined) return false;
  let size = 0;
  for (const block of result.content) size += blockSize(block);
  return size <= maxChars;
}

function blockSize(block: Block): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'image':
    case 'audio':
      return block.data.length;
    case 'resource': {
      const resource = block.resource as { text?: unknown; blob?: unknown };
      return typeof resource.text === 'string'
        ? resource.text.length
        : typeof resource.blob === 'string'
          ? resource.blob.length
          : 0;
    }
    default:
      return JSON.stringify(block).length;
  }
}
