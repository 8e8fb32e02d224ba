/**
 * What the viewer shows, computed from a trace's records: the tool calls
 * with their outcomes, the sensitivity over time, the rendered prompts with
 * their diffs, the slice snapshots, the servers and every event. Plain JSON,
 * sent to the page as it is.
 */
import { cutText } from '../core/well-formed.js';
import { type DataSensitivity, isDataSensitivity, sensitivityRank } from '../core/sensitivity.js';
import { callOutcome, type CallOutcome } from './call-outcome.js';
import { diffLines, type DiffLine } from './line-diff.js';
import type { TraceEventRecord, TraceSnapshotRecord } from './trace-format.js';
import type { LoadedTrace } from './trace-reader.js';
import { buildServers, type ServerView } from './trace-servers.js';

export type { ServerView, ServerToolView } from './trace-servers.js';

/** One event, for the event log and the details of a call. */
export interface EventView {
  readonly seq: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly type: string;
  readonly fields: Readonly<Record<string, unknown>>;
  /** One line: the fields that say the most about this kind of event. */
  readonly summary: string;
  readonly callId?: string;
  readonly server?: string;
}

/** One tool call (a `ToolInvoked`). */
export interface CallView {
  /** Seq of its `ToolInvoked` event (the key into `events`). */
  readonly seq: number;
  readonly callId: string;
  readonly tool: string;
  readonly server?: string;
  readonly originalName?: string;
  readonly source: string;
  /** When it started, in milliseconds since the epoch. */
  readonly start: number;
  readonly durationMs: number;
  readonly outcome: CallOutcome;
  /** The result's message when the call failed: the reason. */
  readonly reason?: string;
  /** The session's level when the call returned. */
  readonly sensitivity: DataSensitivity;
  /** Seqs of the other events that name this call (progress, timeout, rollback conflicts…). */
  readonly related: readonly number[];
}

/** A rise of the session's sensitivity. */
export interface SensitivityStepView {
  readonly seq: number;
  readonly at: number;
  readonly previous: DataSensitivity;
  readonly level: DataSensitivity;
  readonly dataset: string;
  /** Seq of the call during which it rose, when one was running. */
  readonly callSeq?: number;
}

/** One rendered prompt. */
export interface RenderView {
  readonly seq: number;
  readonly at: number;
  /** `ns/key` of the prompt. */
  readonly prompt: string;
  readonly text: string;
  readonly toolNames: readonly string[];
  /** Seq of the previous render of the same prompt. */
  readonly previousSeq?: number;
  /** The lines against that render; absent for the first render or when nothing changed. */
  readonly diff?: readonly DiffLine[];
}

/** Slice values recorded at one point (only those that changed). */
export type SnapshotView = Omit<TraceSnapshotRecord, 'kind' | 'at'> & { readonly at: number };

/** Everything the viewer shows about one trace. */
export interface TraceModel {
  readonly name: string;
  readonly sessionId?: string;
  /** First and last moments recorded, in milliseconds since the epoch. */
  readonly startMs: number;
  readonly endMs: number;
  /** Things the reader should know: rotated-away records, unreadable lines, withheld results. */
  readonly notes: readonly string[];
  readonly calls: readonly CallView[];
  readonly sensitivity: {
    readonly initial: DataSensitivity;
    readonly steps: readonly SensitivityStepView[];
  };
  readonly renders: readonly RenderView[];
  readonly snapshots: readonly SnapshotView[];
  readonly servers: readonly ServerView[];
  readonly events: readonly EventView[];
}

const SUMMARY_FIELDS = [
  'toolName',
  'serverName',
  'mcpServer',
  'dataset',
  'previous',
  'sensitivity',
  'level',
  'transport',
  'endpoint',
  'mode',
  'reason',
  'message',
  'progress',
  'total',
  'timeoutMs',
  'host',
  'key',
];
const MAX_SUMMARY = 200;

/** The view of a loaded trace. */
export function buildTraceModel(trace: LoadedTrace): TraceModel {
  const notes: string[] = [];
  if (trace.truncated) {
    notes.push('The oldest part of this trace was rotated away: it starts after the run began.');
  }
  if (trace.skippedLines > 0) {
    notes.push(`${trace.skippedLines} line(s) were not trace records and were skipped.`);
  }
  const headers = trace.records.filter((record) => record.kind === 'header');
  const first = headers[0];
  if (headers.some((header) => !header.privateResults)) {
    notes.push(
      'Results of calls made while the session held private data are left out (record with includePrivateResults: true to keep them).',
    );
  }
  const events: EventView[] = [];
  const snapshots: SnapshotView[] = [];
  let lastSeq = 0;
  for (const record of trace.records) {
    if (record.kind === 'event') events.push(eventView(record));
    if (record.kind === 'snapshot') {
      // A rotated part restates the state; needless when the part before it was read.
      if (record.full && lastSeq > 0) continue;
      const { kind: _kind, at, ...rest } = record;
      snapshots.push({ ...rest, at: Date.parse(at) });
    }
    if (record.kind !== 'header') lastSeq = record.seq;
  }
  const initial = first?.sensitivity ?? 'public';
  const calls = buildCalls(events, initial);
  let startMs = Infinity;
  let endMs = -Infinity;
  const see = (time: number): void => {
    if (!Number.isFinite(time)) return;
    startMs = Math.min(startMs, time);
    endMs = Math.max(endMs, time);
  };
  for (const record of trace.records) see(Date.parse(record.at));
  for (const call of calls) {
    see(call.start);
    see(call.start + call.durationMs);
  }
  return {
    name: trace.name,
    ...(first === undefined ? {} : { sessionId: first.sessionId }),
    startMs: Number.isFinite(startMs) ? startMs : 0,
    endMs: Number.isFinite(endMs) ? endMs : 0,
    notes,
    calls,
    sensitivity: { initial, steps: buildSteps(events, calls) },
    renders: buildRenders(events),
    snapshots,
    servers: buildServers(events, calls, trace.records),
    events,
  };
}

function eventView(record: TraceEventRecord): EventView {
  const { fields } = record;
  const callId = typeof fields['callId'] === 'string' ? fields['callId'] : undefined;
  const server =
    typeof fields['serverName'] === 'string'
      ? fields['serverName']
      : typeof fields['mcpServer'] === 'string'
        ? fields['mcpServer']
        : undefined;
  return {
    seq: record.seq,
    at: Date.parse(record.at),
    type: record.type,
    fields,
    summary: summarize(record),
    ...(callId === undefined ? {} : { callId }),
    ...(server === undefined ? {} : { server }),
  };
}

function summarize(record: TraceEventRecord): string {
  const parts: string[] = [];
  for (const name of SUMMARY_FIELDS) {
    const value = record.fields[name];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      parts.push(`${name}=${String(value).replace(/\s+/g, ' ')}`);
    }
  }
  const result = record.fields['result'];
  if (typeof result === 'object' && result !== null) {
    const success = (result as { success?: unknown }).success;
    if (typeof success === 'boolean') parts.push(success ? 'ok' : 'failed');
  }
  const text = parts.join(' ');
  return cutText(text, MAX_SUMMARY);
}

function buildCalls(events: readonly EventView[], initial: DataSensitivity): CallView[] {
  const related = new Map<string, number[]>();
  const timedOut = new Set<string>();
  for (const event of events) {
    if (event.callId === undefined || event.type === 'ToolInvoked') continue;
    const list = related.get(event.callId) ?? [];
    list.push(event.seq);
    related.set(event.callId, list);
    if (event.type === 'McpToolTimedOut') timedOut.add(event.callId);
  }
  let level = initial;
  const calls: CallView[] = [];
  for (const event of events) {
    if (event.type === 'SensitivityEscalated') {
      const raised = event.fields['sensitivity'];
      if (isDataSensitivity(raised) && sensitivityRank(raised) > sensitivityRank(level)) {
        level = raised;
      }
    }
    if (event.type !== 'ToolInvoked' || event.callId === undefined) continue;
    const { fields } = event;
    const result = (fields['result'] ?? {}) as { success?: unknown; message?: unknown };
    const success = result.success === true;
    const message = typeof result.message === 'string' ? result.message : '';
    const created = typeof fields['createdAt'] === 'string' ? Date.parse(fields['createdAt']) : NaN;
    const duration = typeof fields['durationMs'] === 'number' ? fields['durationMs'] : 0;
    calls.push({
      seq: event.seq,
      callId: event.callId,
      tool: typeof fields['toolName'] === 'string' ? fields['toolName'] : '(unnamed)',
      ...(event.server === undefined ? {} : { server: event.server }),
      ...(typeof fields['originalName'] === 'string'
        ? { originalName: fields['originalName'] }
        : {}),
      source: typeof fields['source'] === 'string' ? fields['source'] : 'native',
      start: Number.isFinite(created) ? created : event.at - duration,
      durationMs: Math.max(0, duration),
      outcome: callOutcome(
        success,
        message,
        timedOut.has(event.callId),
        fields['denial'] !== undefined && fields['denial'] !== null,
      ),
      ...(success ? {} : { reason: message }),
      sensitivity: level,
      related: related.get(event.callId) ?? [],
    });
  }
  return calls;
}

function buildSteps(
  events: readonly EventView[],
  calls: readonly CallView[],
): SensitivityStepView[] {
  const steps: SensitivityStepView[] = [];
  for (const event of events) {
    if (event.type !== 'SensitivityEscalated') continue;
    const previous = event.fields['previous'];
    const level = event.fields['sensitivity'];
    if (!isDataSensitivity(previous) || !isDataSensitivity(level)) continue;
    // The call during which it rose: the first to end after it that had started by then.
    const call = calls.find(
      (candidate) => candidate.seq > event.seq && candidate.start <= event.at,
    );
    steps.push({
      seq: event.seq,
      at: event.at,
      previous,
      level,
      dataset: typeof event.fields['dataset'] === 'string' ? event.fields['dataset'] : '',
      ...(call === undefined ? {} : { callSeq: call.seq }),
    });
  }
  return steps;
}

function buildRenders(events: readonly EventView[]): RenderView[] {
  const renders: RenderView[] = [];
  const last = new Map<string, RenderView>();
  for (const event of events) {
    if (event.type !== 'PromptRendered') continue;
    const { fields } = event;
    const prompt = `${stringField(fields, 'ns')}/${stringField(fields, 'key')}`;
    const text = typeof fields['text'] === 'string' ? fields['text'] : '';
    const toolNames = Array.isArray(fields['toolNames'])
      ? fields['toolNames'].filter((name): name is string => typeof name === 'string')
      : [];
    const previous = last.get(prompt);
    const render: RenderView = {
      seq: event.seq,
      at: event.at,
      prompt,
      text,
      toolNames,
      ...(previous === undefined ? {} : { previousSeq: previous.seq }),
      ...(previous === undefined || previous.text === text
        ? {}
        : { diff: diffLines(previous.text, text) }),
    };
    last.set(prompt, render);
    renders.push(render);
  }
  return renders;
}

function stringField(fields: Readonly<Record<string, unknown>>, name: string): string {
  const value = fields[name];
  return typeof value === 'string' ? value : '';
}
