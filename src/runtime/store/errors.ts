/** Codes carried by {@link SessionStoreError}. */
export type SessionStoreErrorCode =
  /** The store could not be reached or did not answer in time. */
  | 'store-unavailable'
  /** What the store holds for a session cannot be read back. */
  | 'store-corrupt'
  /** Another process held the session's file lock for longer than `lockTimeoutMs`. */
  | 'store-lock-timeout'
  /** A store was configured in a way that would weaken it (a directory inside a workspace). */
  | 'store-config'
  /** The store was used after `close()`. */
  | 'store-closed'
  /** A session was used for persistence before its state was loaded from the store. */
  | 'session-not-loaded';

/**
 * Raised by session stores and by the persistence methods of `Session`.
 * `cause` carries the underlying I/O or Redis error.
 */
export class SessionStoreError extends Error {
  override readonly name: string = 'SessionStoreError';
  constructor(
    readonly code: SessionStoreErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
