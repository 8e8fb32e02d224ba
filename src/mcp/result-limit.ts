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
  const metaFits = result._meta === undefined || jsonLength(result._meta, maxChars) <= maxChars;
  if (metaFits && fitsWhole(result, maxChars)) return result;
  let budget = maxChars;
  let changed = false;
  const content: Block[] = [];
  const blocks = result.content;
  for (let index = 0; index < blocks.length && index < MAX_RESULT_BLOCKS; index += 1) {
    const block = blocks[index]!;
    const size = blockSize(block, maxChars);
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
      // What is counted as JSON is read only up to the limit: a block past it is said to be.
      const chars = Number.isFinite(size) ? String(size) : `more than ${maxChars}`;
      content.push({
        type: 'text',
        text: `[${block.type} block of ${chars} characters left out: the result limit is ${maxChars}]`,
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
  if (structured !== undefined && jsonLength(structured, maxChars) > maxChars) {
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

/** Deeper than this, a value counts as one that cannot be written (JSON.stringify would overflow). */
const MAX_WRITTEN_DEPTH = 1_000;

/**
 * The length of `value` as JSON (escapes aside), read only up to `limit`:
 * past it, endless, whatever its size, so that a server's 500,000-key
 * object is not written out as text to be measured (listing its keys still
 * takes time in proportion: `Object.keys` and `for…in` list them all). Endless
 * too when it cannot be written: a bigint, or nested deeper than
 * {@link MAX_WRITTEN_DEPTH}. Own enumerable members count, as JSON writes
 * them (a member `undefined` or a function is left out). Not
 * `listing-size.ts`'s `valueSize`, which weighs memory (each object and
 * array counts extra) and counts what JSON cannot carry as little: here
 * the measure is the text the limit speaks of, and what cannot be written
 * is too large to keep.
 */
function jsonLength(value: unknown, limit: number): number {
  let chars = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (chars > limit) return Number.POSITIVE_INFINITY;
    const [node, depth] = next;
    if (typeof node === 'string') chars += node.length + 2;
    else if (typeof node === 'number') chars += Number.isFinite(node) ? String(node).length : 4;
    else if (typeof node === 'boolean') chars += node ? 4 : 5;
    else if (node === null) chars += 4;
    else if (typeof node === 'bigint') return Number.POSITIVE_INFINITY;
    else if (typeof node === 'object') {
      if (depth >= MAX_WRITTEN_DEPTH) return Number.POSITIVE_INFINITY;
      chars += 2;
      if (Array.isArray(node)) {
        chars += Math.max(0, node.length - 1);
        for (let index = node.length - 1; index >= 0 && chars <= limit; index -= 1) {
          const item: unknown = node[index];
          pending.push([item === undefined || typeof item === 'function' ? null : item, depth + 1]);
        }
      } else {
        let members = 0;
        for (const key of Object.keys(node)) {
          const member: unknown = (node as Record<string, unknown>)[key];
          if (member === undefined || typeof member === 'function') continue;
          chars += key.length + (members > 0 ? 4 : 3); // quotes and colon, and a comma before
          members += 1;
          if (chars > limit) return Number.POSITIVE_INFINITY;
          pending.push([member, depth + 1]);
        }
      }
    }
  }
  return chars > limit ? Number.POSITIVE_INFINITY : chars;
}

/** Whether every block fits the limit, and the result has no structuredContent to measure. */
function fitsWhole(result: CallToolResult, maxChars: number): boolean {
  if (result.structuredContent !== undefined || result.content.length > MAX_RESULT_BLOCKS) {
    return false;
  }
  let size = 0;
  for (const block of result.content) size += blockSize(block, maxChars);
  return size <= maxChars;
}

/**
 * The characters a block brings: its text or data, and whatever else the
 * server put in it (a MIME type, a URI, annotations, `_meta`), each of
 * which reaches the session's value and some the model's text. What is
 * counted as JSON is read only up to `limit` (past it, it cannot fit).
 */
function blockSize(block: Block, limit: number): number {
  const extras = fieldsSize(block.annotations, block._meta, limit);
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
        fieldsSize(undefined, resource._meta, limit) +
        extras
      );
    }
    default:
      return jsonLength(block, limit);
  }
}

/** The characters of a block's optional `annotations` and `_meta`, as JSON, counted up to `limit` each. */
function fieldsSize(annotations: unknown, meta: unknown, limit: number): number {
  return (
    (annotations === undefined ? 0 : jsonLength(annotations, limit)) +
    (meta === undefined ? 0 : jsonLength(meta, limit))
  );
}
