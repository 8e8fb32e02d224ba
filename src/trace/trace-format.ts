/**
 * The lines of a session trace (JSON Lines, one record a line). Every file
 * of a rotated trace starts with a header and a full slice snapshot, so
 * each part can be read on its own. Events are recorded generically: the
 * class name and the event's own fields, masked (see `trace-masker.ts`).
 */
import type { DataSensitivity } from '../core/sensitivity.js';

/** Version of the record format written in every header. */
export const TRACE_FORMAT_VERSION = 1;

/** First line of every trace file. */
export interface TraceHeaderRecord {
  readonly kind: 'header';
  /** Always `mcp-sections`: tells a trace from other JSON Lines. */
  readonly trace: 'mcp-sections';
  readonly version: typeof TRACE_FORMAT_VERSION;
  readonly sessionId: string;
  /** When this file was started (ISO 8601). */
  readonly at: string;
  /** 0 for the first file of a recording, then one more at each rotation. */
  readonly part: number;
  /** The session's level when this file was started. */
  readonly sensitivity: DataSensitivity;
  /** True when tool results and slices were kept after private data entered the session. */
  readonly privateResults: boolean;
}

/** One event published on the session's bus. */
export interface TraceEventRecord {
  readonly kind: 'event';
  /** Position in the recording; grows by one per record, across rotations. */
  readonly seq: number;
  /** The event's `createdAt`, or when it was recorded (ISO 8601). */
  readonly at: string;
  /** The event's class name, e.g. `ToolInvoked`. */
  readonly type: string;
  /** The event's own fields as JSON, secrets masked and long text cut. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Slice values at one point: only the slices that changed since the previous snapshot. */
export interface TraceSnapshotRecord {
  readonly kind: 'snapshot';
  readonly seq: number;
  readonly at: string;
  /** Why it was taken: `start`, `after <tool>`, `rotation`, or the application's label. */
  readonly label: string;
  /** The call that this snapshot follows, if any. */
  readonly callId?: string;
  /** True when `slices` holds every slice, not only the changed ones. */
  readonly full: boolean;
  /** New values of the slices that changed. */
  readonly slices: Readonly<Record<string, unknown>>;
  /** Slices that changed but whose values were left out (the session held private data). */
  readonly withheld: readonly string[];
}

/** The tools the prompt offered, written when the list changes. */
export interface TraceToolsRecord {
  readonly kind: 'tools';
  readonly seq: number;
  readonly at: string;
  readonly tools: readonly TraceToolInfo[];
  /**
   * `private-data` when the tools' descriptions were left out: the list
   * was recorded while the session held private data.
   */
  readonly withheld?: 'private-data';
}

/** One tool of a {@link TraceToolsRecord}. */
export interface TraceToolInfo {
  readonly name: string;
  /** Absent when the session held private data (a server may write it into a description). */
  readonly description?: string;
  /** MCP server name, for MCP tools. */
  readonly server?: string;
  /** The tool's name on its server, for MCP tools. */
  readonly originalName?: string;
}

/** Any line of a trace. */
export type TraceRecord =
  TraceHeaderRecord | TraceEventRecord | TraceSnapshotRecord | TraceToolsRecord;
