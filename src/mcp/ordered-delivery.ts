/**
 * Messages from a server handled in the order they arrived.
 *
 * The SDK's client handles a notification one microtask late
 * (`Promise.resolve().then(handler)`) but a response at once. When a
 * progress notification and the response of its call arrive in the same
 * read (a busy machine, or a server that writes both at once), the
 * response is handled first: it removes the call's progress handler, and
 * the progress is dropped as "unknown token" — no `McpToolProgress`, and
 * no restart of the call's timeout. A response that arrives while a
 * notification of the same read is still waiting for its turn waits one
 * turn too; with no notification in flight (the common call), responses
 * are handled at once, as before.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { messageOf } from '../core/errors.js';

/**
 * Wraps the `onmessage` that the SDK's client has set on `transport`
 * (call it right after `client.connect(transport)` has started).
 */
export function deliverInOrder(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  /** Notifications whose handler the SDK has queued and not run yet. */
  let notificationsWaiting = 0;
  const settled = (): void => {
    notificationsWaiting -= 1;
  };
  transport.onmessage = (message, extra) => {
    const isNotification = 'method' in message && !('id' in message);
    const isResponse = !('method' in message);
    if (isResponse && notificationsWaiting > 0) {
      // After the notification's handler, which the SDK queued before this;
      // a throw goes where the transport reports its errors, as it would have.
      Promise.resolve()
        .then(() => deliver(message, extra))
        .catch((error: unknown) => {
          transport.onerror?.(error instanceof Error ? error : new Error(messageOf(error)));
        });
      return;
    }
    deliver(message, extra);
    if (isNotification) {
      notificationsWaiting += 1;
      // Queued after the SDK's handler of this notification: it has run by then.
      void Promise.resolve().then(settled);
    }
  };
}
