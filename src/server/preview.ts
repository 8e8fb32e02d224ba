/**
 * Head-and-tail previews of long results, by kind: JSON arrays by item,
 * objects by key (only when the JSON round-trips exactly, so the preview
 * shows the tool's own values), CSV by row, text by line. Then every line is capped and
 * the whole preview is capped, so that one enormous line cannot defeat the
 * point of the preview: a preview is never longer than its input.
 */
import { sliceSafe } from '../core/well-formed.js';
import type { ContextPreset } from './context-presets.js';
import { splitCsvRecords, type SerializedResult } from './result-format.js';

/**
 * Builds the preview of a serialised result under `preset`.
 *
 * @example
 * ```ts
 * buildPreview(serializeResult(rows), CONTEXT_PRESETS.default);
 * // '[\n  {...},\n  ...\n  ... (985 items omitted) ...\n  {...}\n]'
 * ```
 */
export function buildPreview(result: SerializedResult, preset: ContextPreset): string {
  let preview: string;
  switch (result.format) {
    case 'json':
      preview =
        previewExactJson(result.text, preset) ??
        previewLines(result.text, preset.textHeadLines, preset.textTailLines, 'lines');
      break;
    case 'csv':
      preview = previewCsv(result.text, preset);
      break;
    case 'text':
      preview = previewLines(result.text, preset.textHeadLines, preset.textTailLines, 'lines');
      break;
  }
  preview = capLines(preview, preset.maxLineChars);
  return capTotal(preview, Math.min(preset.maxPreviewChars, result.text.length));
}

/**
 * The JSON preview of `text`, or `undefined` when it would not show the
 * tool's own output: a preview re-serialises parsed values, so it is made
 * only when `JSON.stringify(JSON.parse(text))` gives back `text` (white
 * space between tokens aside). Big or inexact numbers, duplicate keys,
 * integer-like keys (which objects reorder), escapes written differently,
 * or nesting too deep for the stack: the caller previews the text instead.
 */
function previewExactJson(text: string, preset: ContextPreset): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (JSON.stringify(parsed) !== withoutJsonWhitespace(text)) return undefined;
    return previewJson(parsed, preset);
  } catch {
    // SyntaxError, or RangeError (call stack) from nesting too deep.
    return undefined;
  }
}

/** `text` without the white space between JSON tokens (string contents kept). */
function withoutJsonWhitespace(text: string): string {
  const kept: string[] = [];
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) {
      if (i > start) kept.push(text.slice(start, i));
      start = i + 1;
    }
  }
  kept.push(text.slice(start));
  return kept.join('');
}

function previewJson(value: unknown, preset: ContextPreset): string {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    const keep = preset.jsonHeadItems + preset.jsonTailItems;
    if (items.length <= keep) return JSON.stringify(items, null, 2);
    const head = items.slice(0, preset.jsonHeadItems).map((item) => indent(stringify(item)) + ',');
    const tail = items
      .slice(items.length - preset.jsonTailItems)
      .map((item, i, all) => indent(stringify(item)) + (i < all.length - 1 ? ',' : ''));
    const omitted = items.length - keep;
    return ['[', ...head, `  ... (${omitted} items omitted) ...`, ...tail, ']'].join('\n');
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length <= preset.jsonMaxKeys) return JSON.stringify(value, null, 2);
    const kept = entries
      .slice(0, preset.jsonMaxKeys)
      .map(([key, item]) => indent(`${JSON.stringify(key)}: ${stringify(item)}`) + ',');
    const omitted = entries.length - preset.jsonMaxKeys;
    return ['{', ...kept, `  ... (${omitted} keys omitted) ...`, '}'].join('\n');
  }
  return stringify(value);
}

function previewCsv(text: string, preset: ContextPreset): string {
  const [header, ...rows] = splitCsvRecords(text);
  if (header === undefined) return '';
  const keep = preset.csvHeadRows + preset.csvTailRows;
  if (rows.length <= keep) return [header, ...rows].join('\n');
  return [
    header,
    ...rows.slice(0, preset.csvHeadRows),
    `... (${rows.length - keep} rows omitted) ...`,
    ...rows.slice(rows.length - preset.csvTailRows),
  ].join('\n');
}

function previewLines(text: string, head: number, tail: number, unit: string): string {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  if (lines.length <= head + tail) return lines.join('\n');
  return [
    ...lines.slice(0, head),
    `... (${lines.length - head - tail} ${unit} omitted) ...`,
    ...lines.slice(lines.length - tail),
  ].join('\n');
}

/** Cuts each line longer than `max`, keeping its start. */
function capLines(text: string, max: number): string {
  return text
    .split('\n')
    .map((line) => {
      const marker = ` ... (${line.length - max} chars omitted)`;
      // Only cut when the cut line, marker included, is really shorter.
      if (line.length <= max + marker.length) return line;
      return sliceSafe(line, 0, max) + marker;
    })
    .join('\n');
}

/** Keeps the start and the end of `text` within `budget` characters. */
function capTotal(text: string, budget: number): string {
  if (text.length <= budget) return text;
  // Size the marker for the largest count it could show, so the result fits.
  const marker = (n: number): string => `\n... (${n} chars omitted) ...\n`;
  const room = budget - marker(text.length).length;
  if (room < 2) return sliceSafe(text, 0, budget);
  const headLength = Math.ceil((room * 2) / 3);
  const tailLength = room - headLength;
  const head = sliceSafe(text, 0, headLength);
  const tail = tailLength > 0 ? sliceSafe(text, text.length - tailLength, text.length) : '';
  return head + marker(text.length - head.length - tail.length) + tail;
}

function stringify(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? 'null';
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => '  ' + line)
    .join('\n');
}
