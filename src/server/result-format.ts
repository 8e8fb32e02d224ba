/**
 * Turns a tool's raw result into text and tells what kind of text it is,
 * so that the preview can keep head and tail in units that make sense
 * (array items, CSV rows, lines).
 */
import { ContextResultError } from './errors.js';

/** Kind of a serialised result; also the saved file's extension (`txt` for text). */
export type ResultFormat = 'json' | 'csv' | 'text';

/** A result as text, with its kind and, for JSON, the parsed value. */
export interface SerializedResult {
  readonly format: ResultFormat;
  readonly text: string;
  /** The JSON value, present when `format` is `json`. */
  readonly parsed?: unknown;
}

/** File extension used when a result of this format is saved. */
export function extensionOf(format: ResultFormat): 'json' | 'csv' | 'txt' {
  return format === 'text' ? 'txt' : format;
}

/**
 * Serialises `value`. A string is kept exactly as given; its format is
 * detected (JSON when it parses as an array or object, CSV when its
 * records have a consistent number of fields, text otherwise) unless
 * `format` forces one. Any other value becomes 2-space-indented JSON.
 *
 * @throws {ContextResultError} for `undefined`, a function, or a value
 *   `JSON.stringify` rejects (cycles, BigInt).
 */
export function serializeResult(value: unknown, format?: ResultFormat): SerializedResult {
  if (typeof value === 'string') {
    if (format === 'text' || format === 'csv') return { format, text: value };
    const parsed = tryParseJsonContainer(value);
    if (parsed !== undefined) return { format: 'json', text: value, parsed: parsed.value };
    if (format === 'json') {
      throw new ContextResultError(
        'format "json" was requested but the string is not a JSON array or object',
      );
    }
    return { format: looksLikeCsv(value) ? 'csv' : 'text', text: value };
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value, null, 2);
  } catch (error) {
    throw new ContextResultError(
      `the result cannot be serialised as JSON (${(error as Error).message}); return a string or plain data`,
      { cause: error },
    );
  }
  if (text === undefined) {
    throw new ContextResultError(
      `the result is ${typeof value}, which has no JSON form; return a string or plain data`,
    );
  }
  if (format === 'csv' || format === 'text') return { format, text };
  return { format: 'json', text, parsed: value };
}

/**
 * Splits CSV text into records (raw text, without the line break). A line
 * break inside a quoted field does not end a record. A final empty record
 * (text ending with a line break) is dropped.
 */
export function splitCsvRecords(text: string): string[] {
  const records: string[] = [];
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') inQuotes = !inQuotes;
    else if (char === '\n' && !inQuotes) {
      const end = i > start && text[i - 1] === '\r' ? i - 1 : i;
      records.push(text.slice(start, end));
      start = i + 1;
    }
  }
  if (start < text.length) records.push(text.slice(start));
  return records;
}

/** Number of comma-separated fields in one record, quotes respected. */
function countCsvFields(record: string): number {
  let fields = 1;
  let inQuotes = false;
  for (const char of record) {
    if (char === '"') inQuotes = !inQuotes;
    else if (char === ',' && !inQuotes) fields++;
  }
  return fields;
}

/** Records checked by the CSV heuristic. */
const CSV_SAMPLE_RECORDS = 50;

function looksLikeCsv(text: string): boolean {
  const sample = splitCsvRecords(text.slice(0, 200_000)).slice(0, CSV_SAMPLE_RECORDS);
  // When the slice cut a record, the last one is partial; ignore it.
  if (text.length > 200_000) sample.pop();
  const [header, ...rows] = sample;
  if (header === undefined || rows.length === 0) return false;
  const fields = countCsvFields(header);
  return fields >= 2 && rows.every((row) => countCsvFields(row) === fields);
}

function tryParseJsonContainer(text: string): { value: unknown } | undefined {
  const trimmed = text.trim();
  const first = trimmed[0];
  const last = trimmed[trimmed.length - 1];
  if (!((first === '[' && last === ']') || (first === '{' && last === '}'))) return undefined;
  try {
    return { value: JSON.parse(trimmed) as unknown };
  } catch {
    return undefined;
  }
}
