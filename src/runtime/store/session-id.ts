import { isWellFormed } from '../../core/well-formed.js';

/**
 * Refuses a session id with a lone surrogate: a store names a session by
 * its UTF-8 form (a file's hash, a Redis key), where every lone surrogate
 * reads as U+FFFD, so two such ids would share one session's state.
 * @throws TypeError naming the id.
 */
export function assertWellFormedSessionId(sessionId: string): void {
  if (!isWellFormed(sessionId)) {
    throw new TypeError(
      `session id ${JSON.stringify(sessionId)} holds a lone surrogate (half of a UTF-16 pair): stores need well-formed Unicode, or two ids would share one session`,
    );
  }
}
