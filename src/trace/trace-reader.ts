/**
 * Reads traces back: a file with its rotated parts, oldest first, or the
 * traces of a directory, newest first.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { TraceError } from './errors.js';
import { tracePartPath } from './trace-file.js';
import type { TraceHeaderRecord, TraceRecord } from './trace-format.js';
import { messageOf } from '../core/errors.js';
import { DEFAULT_JSON_COPY_DEPTH } from '../core/json-copy.js';

/** Most rotated parts looked for beside a trace file. */
const MAX_PARTS = 1_000;
const KINDS = new Set(['header', 'event', 'snapshot', 'tools']);
/**
 * Deepest nesting of objects and arrays a record may have. A recorder
 * cuts every value at `DEFAULT_JSON_COPY_DEPTH` (the masker's copy) and
 * wraps it in a few levels of its own (record, fields, slice name); a line
 * nested deeper was not written by one, and would overflow the stack of
 * every recursive walk after this (`JSON.stringify` of the viewer's model).
 */
export const MAX_TRACE_RECORD_DEPTH = DEFAULT_JSON_COPY_DEPTH + 8;

/** A trace as read from disk (or from another source, such as a Redis stream). */
export interface LoadedTrace {
  /** What the trace is called: its file name, or `redis:<session>`. */
  readonly name: string;
  readonly records: readonly TraceRecord[];
  /** Lines that were not trace records (cut short by a crash, edited by hand). */
  readonly skippedLines: number;
  /** True when the oldest part read is not the first: older records were rotated away. */
  readonly truncated: boolean;
}

/**
 * Reads the trace at `file` and its older parts (`<name>.1<ext>` …), oldest
 * first. A last line cut short (a process that died mid-write) is skipped
 * and counted, not fatal.
 *
 * @throws TraceError `trace-read` when the file cannot be read or is not a trace.
 */
export async function readTrace(file: string): Promise<LoadedTrace> {
  const main = path.resolve(file);
  const parts: string[] = [main];
  for (let index = 1; index < MAX_PARTS; index += 1) {
    const part = tracePartPath(main, index);
    if (!(await isFile(part))) break;
    parts.unshift(part);
  }
  const records: TraceRecord[] = [];
  let skippedLines = 0;
  let firstHeader: TraceHeaderRecord | undefined;
  for (const part of parts) {
    let text: string;
    try {
      text = await readFile(part, 'utf8');
    } catch (error) {
      throw new TraceError(
        'trace-read',
        `trace ${JSON.stringify(part)} could not be read: ${messageOf(error)}`,
        { cause: error },
      );
    }
    const parsed = parseTraceLines(text);
    const header = parsed.records[0];
    if (header?.kind !== 'header') {
      throw new TraceError(
        'trace-read',
        `${JSON.stringify(part)} is not an mcp-sections trace: its first line is not a trace header (record with TraceRecorder)`,
      );
    }
    firstHeader ??= header;
    for (const record of parsed.records) records.push(record); // a spread of a long part overflows the stack
    skippedLines += parsed.skipped;
  }
  return Object.freeze({
    name: path.basename(main),
    records,
    skippedLines,
    truncated: (firstHeader?.part ?? 0) > 0,
  });
}

/** The records of JSON Lines text, and how many lines were not records. */
export function parseTraceLines(text: string): {
  readonly records: TraceRecord[];
  readonly skipped: number;
} {
  const records: TraceRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped += 1;
      continue;
    }
    if (isRecord(value) && !nestedDeeperThan(value, MAX_TRACE_RECORD_DEPTH)) records.push(value);
    else skipped += 1;
  }
  return { records, skipped };
}

function isRecord(value: unknown): value is TraceRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) return false;
  if (kind === 'header') return (value as { trace?: unknown }).trace === 'mcp-sections';
  const record = value as { seq?: unknown; at?: unknown };
  return typeof record.seq === 'number' && typeof record.at === 'string';
}

/**
 * Whether `value` holds objects or arrays nested more than `limit` deep.
 * Walked with a list, not recursion: the value may be nested far deeper
 * than the stack (`JSON.parse` builds it without recursion).
 */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const member of Object.values(item)) {
      if (typeof member === 'object' && member !== null) pending.push([member, depth + 1]);
    }
  }
  return false;
}

/** A trace file found in a directory. */
export interface TraceFileEntry {
  /** File name, relative to the directory. */
  readonly name: string;
  readonly path: string;
  /** Last change, in milliseconds since the epoch. */
  readonly modifiedMs: number;
}

/**
 * The traces in `directory` (`*.jsonl` files, rotated parts not listed on
 * their own), newest first.
 *
 * @throws TraceError `trace-read` when the directory cannot be read.
 */
export async function listTraceFiles(directory: string): Promise<readonly TraceFileEntry[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    throw new TraceError(
      'trace-read',
      `directory ${JSON.stringify(directory)} could not be read: ${messageOf(error)}`,
      { cause: error },
    );
  }
  const traces = names.filter((name) => name.endsWith('.jsonl'));
  const present = new Set(traces);
  const entries: TraceFileEntry[] = [];
  for (const name of traces) {
    const part = /^(.*)\.\d+\.jsonl$/.exec(name);
    if (part !== null && present.has(`${part[1]}.jsonl`)) continue;
    const file = path.join(directory, name);
    try {
      const info = await stat(file);
      if (info.isFile()) entries.push({ name, path: file, modifiedMs: info.mtimeMs });
    } catch {
      // Removed meanwhile: not a trace any more.
    }
  }
  return entries.sort((a, b) => b.modifiedMs - a.modifiedMs || a.name.localeCompare(b.name));
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
