/**
 * The mask that mirrors a session's events to its store's stream as a trace
 * file records them: the servers' secrets and secret arguments masked by
 * {@link TraceMasker}, and what may carry private data left out by
 * {@link withholdPrivate} once the session holds any.
 */
import type {
  EventMask,
  EventMaskContext,
  SerializedSessionEvent,
} from '../runtime/store/event-serialization.js';
import { TraceMasker, type TraceMaskerOptions } from './trace-masker.js';
import { configuredDatasets, withholdPrivate } from '../ecosystem/withhold-private.js';

/** Options of {@link traceEventMask}: those of a `TraceRecorder` that decide what a record holds. */
export interface TraceEventMaskOptions extends TraceMaskerOptions {
  /**
   * Keep results, messages and prompt texts mirrored while the session
   * holds private data, for a stream that stays where the data may go.
   * @default false
   */
  readonly includePrivateResults?: boolean;
}

/**
 * A mask for `mirrorEvents` that writes what a `TraceRecorder` with the
 * same options would write of each event.
 *
 * @throws TraceError `trace-options` when `maxTextLength` is not an integer of at least 64.
 * @example
 * const session = await Session.open({
 *   sessionId,
 *   store: new RedisSessionStore({ url }),
 *   mirrorEvents: { mask: traceEventMask({ servers, tools: { tools: () => section.tools() } }) },
 * });
 */
export function traceEventMask(options: TraceEventMaskOptions = {}): EventMask {
  const masker = new TraceMasker(options);
  const keepPrivate = options.includePrivateResults ?? false;
  const datasets = configuredDatasets(options.servers);
  return function maskAsTrace(event: object, context: EventMaskContext): SerializedSessionEvent {
    const { type, fields } = masker.event(event);
    const kept =
      context.hasPrivateData && !keepPrivate ? withholdPrivate(type, fields, { datasets }) : fields;
    return Object.freeze({ type, data: JSON.stringify(kept) });
  };
}
