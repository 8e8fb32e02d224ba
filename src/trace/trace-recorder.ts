/**
 * Records what a session did, one JSON line per event, for
 * `mcp-sections debug`: every event on the session's bus (generically:
 * new event classes show up without code here), slice values after every
 * tool call, and the tools the prompt offered. See docs/debugging.md.
 */
import type { McpServerConfig } from '../config/server-config.js';
import type { ToolLookup } from '../ecosystem/telemetry.js';
import type { Tool } from '../tools/tool.js';
import type { Unsubscribe } from '../runtime/event-bus.js';
import { PromptRendered, ToolInvoked } from '../runtime/events.js';
import type { Session } from '../runtime/session.js';
import { TraceError } from './errors.js';
import {
  DEFAULT_TRACE_MAX_BYTES,
  DEFAULT_TRACE_MAX_FILES,
  RotatingTraceFile,
} from './trace-file.js';
import {
  TRACE_FORMAT_VERSION,
  type TraceHeaderRecord,
  type TraceRecord,
  type TraceSnapshotRecord,
  type TraceToolInfo,
} from './trace-format.js';
import { TraceMasker } from './trace-masker.js';
import {
  WITHHELD_PRIVATE,
  configuredDatasets,
  privateOriginalName,
  withholdPrivate,
} from '../ecosystem/withhold-private.js';

/** Options of {@link TraceRecorder}. */
export interface TraceRecorderOptions {
  /** The JSON Lines file to write; an existing trace there (and its older parts) is replaced. */
  readonly path: string;
  /**
   * Servers whose secrets (`env` values, header values, URL credentials)
   * are scrubbed from every recorded text, as in errors and telemetry.
   * Pass `section.servers`. @default none
   */
  readonly servers?: readonly McpServerConfig[];
  /**
   * Tools whose schemas mark secret arguments (`x-secret`, `writeOnly`),
   * and whose list the trace shows per server: a `RenderedPrompt`, an
   * `McpIntegrationSection` or a list. @default none (argument names decide)
   */
  readonly tools?: ToolLookup;
  /**
   * Keep tool results and slice values recorded while the session holds
   * private data (sensitivity above `public`). Off, they are left out and
   * the trace says so; arguments, failure reasons and events are kept.
   * @default false
   */
  readonly includePrivateResults?: boolean;
  /** Largest size of one file before it is rotated, in bytes. @default DEFAULT_TRACE_MAX_BYTES */
  readonly maxBytes?: number;
  /** Files kept: the current one and `maxFiles - 1` older parts. @default DEFAULT_TRACE_MAX_FILES */
  readonly maxFiles?: number;
  /** Longest string kept in a record. @default DEFAULT_TRACE_MAX_TEXT_LENGTH */
  readonly maxTextLength?: number;
  /** Record slice values after each tool call (only the slices that changed). @default true */
  readonly snapshots?: boolean;
}

/**
 * Appends a session's events to a trace file until `close()`.
 *
 * @example
 * await using trace = new TraceRecorder(session, { path: 'run.jsonl', servers: section.servers });
 * // ... render, invoke tools ...
 * // `npx mcp-sections debug run.jsonl` shows it
 */
export class TraceRecorder {
  /** Absolute path of the current trace file. */
  readonly path: string;
  readonly #session: Session;
  readonly #masker: TraceMasker;
  readonly #file: RotatingTraceFile;
  readonly #privateResults: boolean;
  /** Dataset names the servers' config gives: kept while private. */
  readonly #datasets: ReadonlySet<string>;
  readonly #snapshots: boolean;
  readonly #unsubscribe: Unsubscribe;
  /** Slice values as last written (or `WITHHELD`), by name; references of the session's state. */
  readonly #written = new Map<string, unknown>();
  /** Masked values as last written: what a rotated part starts from. */
  readonly #maskedState = new Map<string, unknown>();
  #seq = 0;
  #lastTools: readonly Tool[] | undefined;
  #toolsKey = '';
  #closing: Promise<void> | undefined;

  /** @throws TraceError `trace-options` for an option out of range. */
  constructor(session: Session, options: TraceRecorderOptions) {
    if (typeof options.path !== 'string' || options.path.length === 0) {
      throw new TraceError(
        'trace-options',
        'path must name the trace file to write, e.g. run.jsonl',
      );
    }
    this.#session = session;
    this.#masker = new TraceMasker(options);
    this.#privateResults = options.includePrivateResults ?? false;
    this.#datasets = configuredDatasets(options.servers);
    this.#snapshots = options.snapshots ?? true;
    this.#file = new RotatingTraceFile({
      path: options.path,
      maxBytes: options.maxBytes ?? DEFAULT_TRACE_MAX_BYTES,
      maxFiles: options.maxFiles ?? DEFAULT_TRACE_MAX_FILES,
      startLines: (part) => this.#startLines(part),
    });
    this.path = this.#file.path;
    if (this.#snapshots) this.snapshot('start');
    this.#unsubscribe = session.bus.subscribeAll((event) => this.#onEvent(event));
  }

  /** The first write failure, if any; recording stopped there. */
  get error(): TraceError | undefined {
    return this.#file.error;
  }

  /**
   * Records the slices that changed since the last snapshot, under `label`
   * (the trace viewer's state view offers every snapshot).
   */
  snapshot(label: string, callId?: string): void {
    const state = this.#session.snapshot().state;
    const changed = Object.keys(state).filter(
      (name) => !this.#written.has(name) || this.#written.get(name) !== state[name],
    );
    if (changed.length === 0) return;
    const slices = Object.create(null) as Record<string, unknown>; // `__proto__` as any name
    const withheld: string[] = [];
    const hide = this.#hidesPrivate();
    for (const name of changed) {
      this.#written.set(name, state[name]);
      if (hide) {
        withheld.push(name);
        this.#maskedState.set(name, undefined);
      } else {
        const masked = this.#masker.value(state[name]);
        slices[name] = masked;
        this.#maskedState.set(name, masked);
      }
    }
    this.#write({
      kind: 'snapshot',
      seq: this.#next(),
      at: new Date().toISOString(),
      label: this.#masker.text(label),
      ...(callId === undefined ? {} : { callId }),
      full: false,
      slices,
      withheld,
    });
  }

  /**
   * Resolves when everything recorded so far is on disk.
   * @throws TraceError `trace-write` when a write failed.
   */
  flush(): Promise<void> {
    return this.#file.flush();
  }

  /** Stops recording, writes what is queued and closes the file; idempotent. @throws TraceError `trace-write`. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#unsubscribe();
      await this.#file.close();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #onEvent(event: object): void {
    const sessionId = (event as { readonly sessionId?: unknown }).sessionId;
    if (typeof sessionId === 'string' && sessionId !== this.#session.sessionId) return;
    if (event instanceof PromptRendered) this.#recordTools();
    const { type, fields } = this.#masker.event(event);
    const createdAt = (event as { readonly createdAt?: unknown }).createdAt;
    const at =
      createdAt instanceof Date && !Number.isNaN(createdAt.getTime()) ? createdAt : new Date();
    const kept = this.#hidesPrivate()
      ? withholdPrivate(type, fields, { datasets: this.#datasets })
      : fields;
    this.#write({ kind: 'event', seq: this.#next(), at: at.toISOString(), type, fields: kept });
    if (event instanceof ToolInvoked && this.#snapshots) {
      this.snapshot(`after ${event.toolName}`, event.callId);
    }
  }

  #recordTools(): void {
    const tools = this.#masker.tools();
    // A section hands out the same frozen list while its tools do not change.
    if (tools === undefined || tools === this.#lastTools) return;
    this.#lastTools = tools;
    // A server that holds private data can write it into a description or
    // a name (a tools/list_changed after the escalation): while private,
    // names only, and an original name only when it is an identifier.
    const hide = this.#hidesPrivate();
    const list: TraceToolInfo[] = tools.map((tool) => ({
      name: tool.name,
      ...(hide ? {} : { description: this.#masker.text(tool.description) }),
      ...(tool.origin.kind === 'mcp'
        ? {
            server: tool.origin.server,
            originalName: this.#masker.text(
              hide ? privateOriginalName(tool.origin.originalName) : tool.origin.originalName,
            ),
          }
        : {}),
    }));
    const key = JSON.stringify(list);
    if (key === this.#toolsKey) return;
    this.#toolsKey = key;
    this.#write({
      kind: 'tools',
      seq: this.#next(),
      at: new Date().toISOString(),
      tools: list,
      ...(hide ? { withheld: WITHHELD_PRIVATE } : {}),
    });
  }

  #hidesPrivate(): boolean {
    return !this.#privateResults && this.#session.privateData.hasPrivateData;
  }

  #next(): number {
    this.#seq += 1;
    return this.#seq;
  }

  #write(record: TraceRecord): void {
    if (this.#closing !== undefined) return;
    this.#file.append(JSON.stringify(record));
  }

  /** A header, and for a later part the slices as recorded so far, so each file stands alone. */
  #startLines(part: number): string[] {
    const header: TraceHeaderRecord = {
      kind: 'header',
      trace: 'mcp-sections',
      version: TRACE_FORMAT_VERSION,
      sessionId: this.#session.sessionId,
      at: new Date().toISOString(),
      part,
      sensitivity: this.#session.privateData.sensitivity,
      privateResults: this.#privateResults,
    };
    const lines = [JSON.stringify(header)];
    if (part > 0 && this.#maskedState.size > 0) {
      const slices = Object.create(null) as Record<string, unknown>; // `__proto__` as any name
      const withheld: string[] = [];
      for (const [name, value] of this.#maskedState) {
        if (value === undefined) withheld.push(name);
        else slices[name] = value;
      }
      const full: TraceSnapshotRecord = {
        kind: 'snapshot',
        // A part starts while the record that filled the last one is written, and
        // that record already has the newest number. The state restated here is
        // the state after the record before it, so it takes that one's number: the
        // part reads in order, and a reader of both parts skips this restatement.
        seq: this.#seq - 1,
        at: header.at,
        label: 'rotation',
        full: true,
        slices,
        withheld,
      };
      lines.push(JSON.stringify(full));
    }
    return lines;
  }
}
