import type {
  LoggingMessageNotification,
  Tool as McpToolDescription,
} from '@modelcontextprotocol/sdk/types.js';

/** What a connection tells its owner. */
export interface ConnectionListener {
  connected?(info: { transport: string; toolCount: number; reconnect: boolean }): void;
  disconnected?(info: { expected: boolean; reason?: string }): void;
  failed?(info: { reason: string }): void;
  toolsChanged?(tools: readonly McpToolDescription[]): void;
  /** A `notifications/message` the server sent (its own log). */
  log?(message: LoggingMessageNotification['params']): void;
}

/** The listeners of one connection (a pool shares a connection among groups). */
export class ConnectionListeners {
  readonly #listeners = new Set<ConnectionListener>();

  /** Adds a listener; returns its remover. */
  add(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; one that throws does not stop the others or the connection. */
  emit<K extends keyof ConnectionListener>(
    kind: K,
    info: Parameters<NonNullable<ConnectionListener[K]>>[0],
  ): void {
    for (const listener of [...this.#listeners]) {
      try {
        (listener[kind] as ((value: typeof info) => void) | undefined)?.(info);
      } catch {
        // A listener's failure must not break the connection's own bookkeeping.
      }
    }
  }
}
