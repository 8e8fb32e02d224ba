/** Codes carried by {@link TraceError}. */
export type TraceErrorCode =
  /** An option is out of range: a size, a port, a host that is not loopback. */
  | 'trace-options'
  /** The trace file could not be written; recording stopped. */
  | 'trace-write'
  /** A trace file or directory could not be read. */
  | 'trace-read'
  /** The viewer could not listen (the address is in use). */
  | 'trace-viewer';

/** Base class of errors raised while recording, reading or showing a session trace. */
export class TraceError extends Error {
  override readonly name: string = 'TraceError';
  constructor(
    readonly code: TraceErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
