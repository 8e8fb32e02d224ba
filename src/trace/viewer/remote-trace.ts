/**
 * A trace read from another process's event stream (Redis, through
 * `RedisSessionStore.subscribeRemote`), masked like a recorded one: secret
 * argument names, the configured servers' secrets, and tool results left
 * out once the stream shows the session escalated.
 */
import { isDataSensitivity, maxSensitivity, type DataSensitivity } from '../../core/sensitivity.js';
import type { RemoteSessionEvent } from '../../runtime/store/event-serialization.js';
import { TRACE_FORMAT_VERSION, type TraceRecord } from '../trace-format.js';
import { TraceMasker, type TraceMaskerOptions } from '../trace-masker.js';
import type { LoadedTrace } from '../trace-reader.js';
import { configuredDatasets, withholdPrivate } from '../../ecosystem/withhold-private.js';

/** Options of {@link RemoteTrace}. */
export interface RemoteTraceOptions extends TraceMaskerOptions {
  readonly sessionId: string;
  /** The session's stored level when following began. @default 'public' */
  readonly sensitivity?: DataSensitivity;
  /** Keep tool results after private data entered the session. @default false */
  readonly includePrivateResults?: boolean;
}

/** Records built from remote events as they arrive. */
export class RemoteTrace {
  readonly #masker: TraceMasker;
  readonly #records: TraceRecord[];
  readonly #privateResults: boolean;
  /** Dataset names the servers' config gives: kept while private. */
  readonly #datasets: ReadonlySet<string>;
  readonly #name: string;
  #level: DataSensitivity;
  #seq = 0;

  constructor(options: RemoteTraceOptions) {
    this.#masker = new TraceMasker(options);
    this.#privateResults = options.includePrivateResults ?? false;
    this.#datasets = configuredDatasets(options.servers);
    this.#level = options.sensitivity ?? 'public';
    this.#name = `redis:${options.sessionId}`;
    this.#records = [
      {
        kind: 'header',
        trace: 'mcp-sections',
        version: TRACE_FORMAT_VERSION,
        sessionId: options.sessionId,
        at: new Date().toISOString(),
        part: 0,
        sensitivity: this.#level,
        privateResults: this.#privateResults,
      },
    ];
  }

  /** Grows by one with every event added: the viewer's model version. */
  get version(): number {
    return this.#seq;
  }

  /** Adds one event of the stream. */
  add(event: RemoteSessionEvent): void {
    if (event.type === 'SensitivityEscalated' && isDataSensitivity(event.fields['sensitivity'])) {
      this.#level = maxSensitivity(this.#level, event.fields['sensitivity']);
    }
    let fields = this.#masker.fields(event.fields);
    if (!this.#privateResults && this.#level !== 'public') {
      fields = withholdPrivate(event.type, fields, { datasets: this.#datasets });
    }
    const createdAt = fields['createdAt'];
    const at =
      typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt))
        ? createdAt
        : new Date().toISOString();
    this.#seq += 1;
    this.#records.push({ kind: 'event', seq: this.#seq, at, type: event.type, fields });
  }

  /** The trace so far. */
  current(): LoadedTrace {
    return { name: this.#name, records: this.#records, skippedLines: 0, truncated: false };
  }
}
