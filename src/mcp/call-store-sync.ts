/**
 * A bridged call and the session's store: before the call, the session is
 * brought level with what other workers stored; after it, an escalation
 * the call brought is written before the call returns. Both fail closed.
 */
import type { Session } from '../runtime/session.js';
import { messageOf } from '../core/errors.js';
import { ToolResult } from '../tools/tool-result.js';

/**
 * Brings the session level with its store before a call: merges what other
 * workers stored (cheap when nothing changed) and writes an escalation an
 * earlier call could not record. Fails closed: an error result when the
 * store cannot be reached, since the call might otherwise go to the normal
 * endpoint of a session another worker has escalated.
 */
export async function syncWithStore(
  session: Session,
  serverName: string,
  original: string,
  signal: AbortSignal,
): Promise<ToolResult<null> | undefined> {
  try {
    await session.syncFromStore({ signal });
  } catch (error) {
    return ToolResult.error(
      `tool "${original}" of server "${serverName}" was not called: the session store could not be read to check for escalations by other workers: ${messageOf(error)}`,
    );
  }
  // Asked here first: returned from this function, even a settled promise costs turns.
  if (!session.hasPendingPrivateData) return undefined;
  return recordEscalation(session, serverName, original, signal, 'was not called');
}

/**
 * Writes a pending escalation to the session's store. When that fails the
 * local state stays raised (so this process isolates anyway), the
 * escalation stays pending for the next call, and the call reports the
 * failure instead of its result.
 */
export async function recordEscalation(
  session: Session,
  serverName: string,
  original: string,
  signal: AbortSignal,
  outcome = 'ran',
): Promise<ToolResult<null> | undefined> {
  if (!session.hasPendingPrivateData) return undefined;
  try {
    await session.flushPrivateData({ signal });
    return undefined;
  } catch (error) {
    return ToolResult.error(
      `tool "${original}" of server "${serverName}" ${outcome}, but the session store could not record the escalation to "${session.privateData.sensitivity}": ${messageOf(error)}; this process keeps the session isolated and records the escalation on the next call`,
    );
  }
}
