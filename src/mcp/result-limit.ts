import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Default of `McpServerConfig.maxResultChars`: what one result may bring into the session. */
export const DEFAULT_MAX_RESULT_CHARS = 1_000_000;

/** Most content blocks a result keeps (empty blocks cost no characters, but each is an object). */
export const MAX_RESULT_BLOCKS = 1_000;

type Block = CallToolResult['content'][number];

/**
 * `result` with at most `maxChars` characters of content: text is cut with
 * a note that says how much there was, and a binary block (image, audio,
 * embedded blob) that does not fit is replaced by a note. Structured
 * content or `_meta` larger than the limit (or nested too deep to be
 * written) is dropped with a note; each is measured against the limit on
 * its own, so a result brings at most three times `maxChars` in all (the
 * structured form usually repeats the text). Blocks past
 * {@link MAX_RESULT_BLOCKS} give way to one note. The seed's
 * `context_result` idea, on the client side: a server cannot flood the
 * session or the model's context. (The private-data marker in `_meta` is
 * read before this.)
 */
export function limitResult(result: CallToolResult, maxChars: number): CallToolResult {
  // Measured once: writing `_meta` out is the costly part of the common check.
  const metaFits = result._meta === undefined || jsonLength(result._meta) <= maxChars;
  if (metaFits && fitsWhole(result, maxChars)) return result;
  let budget = maxChars;
  let changed = false;
  const content: Block[] = [];
  const blocks = result.content;
  for (let index = 0; index < blocks.length && index < MAX_RESULT_BLOCKS; index += 1) {
    const block = blocks[index]!;
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
  if (blocks.length > MAX_RESULT_BLOCKS) {
    changed = true;
    content.push({
      type: 'text',
      text: `[${blocks.length - MAX_RESULT_BLOCKS} more content blocks left out: a result keeps at most ${MAX_RESULT_BLOCKS}]`,
    });
  }
  let structured = result.structuredContent;
  if (structured !== undefined && jsonLength(structured) > maxChars) {
    changed = true;
    structured = undefined;
    content.push({ type: 'text', text: leftOut('structuredContent', maxChars) });
  }
  let meta = result._meta;
  if (!metaFits) {
    changed = true;
    meta = undefined;
    content.push({ type: 'text', text: leftOut('_meta', maxChars) });
  }
  if (!changed) return result;
  const { structuredContent: _structured, _meta: _meta, ...rest } = result;
  return {
    ...rest,
    content,
    ...(structured === undefined ? {} : { structuredContent: structured }),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

function leftOut(member: string, maxChars: number): string {
  return `[${member} left out: larger than the result limit of ${maxChars} characters, or nested too deep to write]`;
}

/** The length of `value` as JSON; endless when it cannot be written (nested too deep). */
function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Whether every block fits the limit, and the result has no structuredContent to measure. */
function fitsWhole(result: CallToolResult, maxChars: number): boolean {
  if (result.structuredContent !== undefined || result.content.length > MAX_RESULT_BLOCKS) {
    return false;
  }
  let size = 0;
  for (const block of result.content) size += blockSize(block);
  return size <= maxChars;
}

/**
 * The characters a block brings: its text or data, and whatever else the
 * server put in it (a MIME type, a URI, annotations, `_meta`), each of
 * which reaches the session's value and some the model's text.
 */
function blockSize(block: Block): number {
  const extras = fieldsSize(block.annotations, block._meta);
  switch (block.type) {
    case 'text':
      return block.text.length + extras;
    case 'image':
    case 'audio':
      return block.data.length + block.mimeType.length + extras;
    case 'resource': {
      const resource = block.resource as {
        uri: string;
        mimeType?: string;
        text?: unknown;
        blob?: unknown;
        _meta?: unknown;
      };
      const payload =
        typeof resource.text === 'string'
          ? resource.text.length
          : typeof resource.blob === 'string'
            ? resource.blob.length
            : 0;
      return (
        payload +
        resource.uri.length +
        (resource.mimeType?.length ?? 0) +
        fieldsSize(undefined, resource._meta) +
        extras
      );
    }
    default:
      return jsonLength(block);
  }
}

/** The characters of a block's optional `annotations` and `_meta`, as JSON. */
function fieldsSize(annotations: unknown, meta: unknown): number {
  return (
    (annotations === undefined ? 0 : jsonLength(annotations)) +
    (meta === undefined ? 0 : jsonLength(meta))
  );
}
